"""A verifiers environment for every registered world: seeded windows of a world, played with its tools.

:func:`load_environment` follows the verifiers convention (``vf.load_environment`` imports a module's
``load_environment`` function), so ``load_environment(world="operation", window={"days": 7})`` is a
``vf.MultiTurnEnv`` whose rows are episodes: each row names a seed; its rollout starts where the
:class:`~bizsim.agents.start.StartState` says on that seed, offers the model one tool per command of the world
(:meth:`~bizsim.simcore.commands.CommandSet.tool_schemas`), runs every tool call as that command, and ends when
the window is over, the world ends, the model answers without a tool call, or ``max_turns`` model calls were
made. The rubric's reward is the change in the world's metric over the rollout (the sum of the per-step rewards
the Gymnasium driver defines), times ``reward_scale``; with ``reward="shaped"`` it is the sum of the shaped step
rewards (the metric change plus ``sum_i w_i x`` each sub-metric's change, :mod:`bizsim.runs.rewards`), times
``reward_scale``.

Train and eval rows use separate seed sets (``seeds={"train": "1-100", "eval": "1001-1020"}``); overlapping
sets are refused, so an agent is never scored on a world it trained on.

Needs the ``rl`` extra (``pip install -e ".[rl]"`` in the bizsim checkout; verifiers 0.1.14, its classic in-process API).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

try:
    import verifiers as vf
    from datasets import Dataset
except ImportError as exc:  # pragma: no cover - depends on the environment
    from bizsim.simcore.extras import install_hint

    raise ImportError(f"bizsim.surfaces.verifiers_env needs verifiers: {install_hint('rl')}") from exc

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.registry import world_spec

from bizsim.agents.start import StartState, Window
from bizsim.runs.rewards import reward_rule
# split_seeds lives with the other argument checks, so a caller that only checks seeds does not import verifiers.
from bizsim.surfaces._rl_args import (DEFAULT_SEEDS, MAX_ROLLOUT_MODEL_CALLS, check_count, check_reward_scale,
                                      check_start, check_world, split_seeds)
from bizsim.surfaces.textenv import TextEnv, prompt_text

__all__ = ["DEFAULT_SEEDS", "MAX_ROLLOUT_MODEL_CALLS", "BizSimVerifiersEnv", "load_environment", "split_seeds"]

#: verifiers' own arguments that :func:`load_environment` passes on; the others it sets itself.
_OWN = frozenset({"dataset", "eval_dataset", "rubric", "tool_defs", "env_id", "max_turns", "system_prompt"})


class BizSimVerifiersEnv(vf.MultiTurnEnv):
    """A bizsim world as a verifiers multi-turn tool environment (see the module's description).

    The live world of each rollout sits on a :class:`~bizsim.surfaces.textenv.TextEnv`, kept by the environment
    under the rollout's trajectory id and freed when the rollout is cleaned up.
    """

    def __init__(self, *, world: str, preset: str, start: StartState | None, window: Window | None,
                 reward_scale: float = 1.0, reward: str = "delta", reward_weights: Any = None,
                 **kwargs: Any) -> None:
        self.world_name, self.preset, self.start, self.window = world, preset, start, window
        reward_rule(world, reward, reward_weights)
        self.reward, self.reward_weights = reward, reward_weights
        self.reward_scale = check_reward_scale(reward_scale)
        self.commands = world_spec(world).world_class().commands
        tools = [vf.Tool(name=t["function"]["name"], description=t["function"]["description"],
                         parameters=t["function"]["parameters"]) for t in self.commands.tool_schemas()]
        self.live: dict[str, TextEnv] = {}
        super().__init__(tool_defs=tools, **kwargs)

    def text_env(self, seed: int) -> TextEnv:
        """A stepping env on ``seed``, reset to where the start state says; its first observation is the prompt."""
        env = TextEnv(self.world_name, self.preset, seed, start=self.start, window=self.window, reward=self.reward,
                      reward_weights=self.reward_weights)
        env.reset()
        return env

    async def setup_state(self, state: vf.State) -> None:
        """Build the rollout's world and put its prompt and first observation in the conversation."""
        seed = int(state["info"]["seed"])
        env = self.text_env(seed)
        self.live[state["trajectory_id"]] = env
        world = env.world
        state["prompt"] = [
            vf.SystemMessage(role="system", content=prompt_text(world)),
            vf.UserMessage(role="user", content=_opening(world, env)),
        ]
        state["bizsim"] = {"seed": seed, "start_metric": env.start_metric, "metric": env.metric, "rewards": [],
                           "turns": 0, "commands": 0}

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> vf.Messages:
        """Run the last answer's tool calls as commands; each result is a tool message (JSON text)."""
        env = self.live[state["trajectory_id"]]
        calls = getattr(messages[-1], "tool_calls", None) or []
        out: list[Any] = []
        gained = 0.0
        for call in calls:
            if env.done or env.truncated:
                text = json.dumps({"error": "The window is over.", "hint": "Stop calling tools."})
            else:
                text, reward, _done, _info = env.step_tool(call.name, _arguments(call.arguments))
                gained += reward
                state["bizsim"]["commands"] += 1
            out.append(vf.ToolMessage(role="tool", content=text, tool_call_id=call.id))
        record = state["bizsim"]
        record["rewards"].append(gained)
        record["metric"], record["turns"] = env.metric, env.turns
        if env.done or env.truncated:
            state["final_env_response"] = out  # the rollout ends on these results, without another model call
        return out

    @vf.stop
    async def episode_over(self, state: vf.State) -> bool:
        """The world ended or the window is over."""
        env = self.live.get(state["trajectory_id"])
        return env is not None and (env.done or env.truncated)

    @vf.stop
    async def answered_without_tools(self, state: vf.State) -> bool:
        """The model answered with text only: it has nothing more to do."""
        trajectory = state["trajectory"]
        if not trajectory:
            return False
        last = trajectory[-1]["completion"]
        return bool(last) and not getattr(last[-1], "tool_calls", None)

    @vf.cleanup
    async def free_world(self, state: vf.State) -> None:
        """Free the rollout's world (its figures are in ``state["bizsim"]``)."""
        env = self.live.pop(state["trajectory_id"], None)
        if env is not None:
            state["bizsim"]["done"], state["bizsim"]["truncated"] = env.done, env.truncated
            env.close()


def _check_passed_on(kwargs: Mapping[str, Any]) -> None:
    """Refuse an argument verifiers would silently keep (a typo of one of ours, or one we set)."""
    import inspect

    known: set[str] = set()
    for cls in (vf.MultiTurnEnv, vf.Environment):
        known |= {p.name for p in inspect.signature(cls.__init__).parameters.values()
                  if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    known -= _OWN | {"self"}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ConfigError(f"load_environment got unknown argument(s) {unknown}; bizsim's are world, preset, start, "
                          f"window, seeds, eval_seeds, max_turns, reward_scale, reward, reward_weights, and "
                          f"verifiers' own are "
                          f"{sorted(known)}")


def _arguments(raw: Any) -> dict[str, Any] | None:
    """A tool call's arguments as a dict; text that is not a JSON object becomes an empty call the command
    refuses with its own error (the model sees why)."""
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        return {"__invalid_json__": str(raw)[:200]}
    return value if isinstance(value, dict) else {"__invalid_json__": str(raw)[:200]}


def _opening(world: Any, env: TextEnv) -> str:
    window = env.window
    span = ("until the episode ends" if window is None else
            f"for {window.turns} turns" if window.turns is not None else f"for {window.days:g} days")
    return (f"It is {world.now_iso}. You play from here {span}; your score is the change in "
            f"{world.summary()['metric']}. Call the tools to act; the {world.advance_command} tool moves time on.\n"
            f"Current state: {json.dumps(world.observation(), sort_keys=True, default=str)}")


def _rows(world: str, seeds: list[int]) -> Any:
    return Dataset.from_list([
        {"prompt": [{"role": "user", "content": f"{world} episode on seed {s}"}], "answer": "",
         "info": {"seed": s}} for s in seeds
    ])


def load_environment(
    world: str = "startup",
    preset: str = "default",
    start: Any = None,
    window: Any = None,
    seeds: Any = None,
    eval_seeds: Any = None,
    max_turns: int = 200,
    reward_scale: float = 1.0,
    reward: str = "delta",
    reward_weights: Any = None,
    **kwargs: Any,
) -> BizSimVerifiersEnv:
    """A verifiers environment for a registered world.

    Args:
        world: a registered world name.
        preset: its preset (for fresh and policy start states).
        start: where rollouts start: a :class:`~bizsim.agents.start.StartState`, a snapshot, or ``None`` (a
            fresh world on the row's seed).
        window: how long a rollout lasts: a :class:`~bizsim.agents.start.Window`, ``N`` agent turns or
            ``{"days": D}`` (default: until the world ends or ``max_turns``).
        seeds: train seeds (``"1-100"``, a list) or ``{"train": ..., "eval": ...}``; default
            :data:`DEFAULT_SEEDS`.
        eval_seeds: eval seeds when ``seeds`` gives only the train ones.
        max_turns: at most this many model calls a rollout.
        reward_scale: the reward is the metric change times this: a finite number > 0 (startup's metric is in
            cents).
        reward: ``"delta"`` or ``"terminal"`` (either way the rollout's reward is the metric change) or
            ``"shaped"`` (the metric change plus ``sum_i w_i x`` each of the world's sub-metrics' change over the
            rollout); see :mod:`bizsim.runs.rewards`.
        reward_weights: ``"shaped"`` only: weights by sub-metric name over the world's declared defaults.
        kwargs: verifiers' own ``Environment``/``MultiTurnEnv`` arguments (``sampling_args``, ``max_workers``,
            ...), passed on; not those this function sets (``system_prompt``: the world writes its own).

    Raises:
        ConfigError: an unknown world or preset, overlapping or empty seed sets (or more than
            :data:`~bizsim.simcore.limits.MAX_SEEDS`, counted before any is listed), a start state of another world,
            a ``max_turns`` that is not an integer from 1 to :data:`MAX_ROLLOUT_MODEL_CALLS`, a ``reward_scale``
            that is not a finite number > 0, a bad window, an unknown reward or bad ``reward_weights``
            (:func:`~bizsim.runs.rewards.reward_rule`), an argument verifiers does not take.
    """
    name = check_world(world)
    turns = check_count(max_turns, "max_turns", high=MAX_ROLLOUT_MODEL_CALLS)
    scale = check_reward_scale(reward_scale)
    rule = reward_rule(name, reward, reward_weights)
    _check_passed_on(kwargs)
    state = check_start(name, start)
    if state is None:
        state = StartState(name, preset=preset)
    train, held = split_seeds(seeds, eval_seeds)

    async def metric_change(state: vf.State) -> float:
        """The world's metric at the end of the rollout minus at its start (the per-step rewards' sum)."""
        record = state.get("bizsim") or {}
        return scale * float(record.get("metric", 0.0) - record.get("start_metric", 0.0))

    async def shaped_return(state: vf.State) -> float:
        """The shaped step rewards' sum: the metric change plus ``sum_i w_i x`` each sub-metric's change."""
        record = state.get("bizsim") or {}
        return scale * math.fsum(record.get("rewards", ()))

    rubric = vf.Rubric(funcs=[shaped_return if rule.mode == "shaped" else metric_change], weights=[1.0])
    return BizSimVerifiersEnv(
        world=name, preset=preset, start=state, window=Window.of(window), reward_scale=scale, reward=reward,
        reward_weights=reward_weights,
        dataset=_rows(name, train), eval_dataset=_rows(name, held), rubric=rubric, max_turns=turns,
        env_id=f"bizsim-{world_spec(name).benchmark_id}", **kwargs,
    )
