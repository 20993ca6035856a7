"""A text stepping API for external agent frameworks: command lines in, JSON text out.

>>> env = TextEnv("operation", "default", seed=1)
>>> env.reset(seed=1).splitlines()[0][:8]
'You oper'
>>> observation, reward, done, info = env.step("creator_incentive")
>>> observation.startswith('{"action":"creator_incentive"'), reward, done
(True, 0.0, False)
"""

from __future__ import annotations

from typing import Any

from bizsim.runs.live import Episode
from bizsim.runs.rewards import reward_rule
from bizsim.runs.observation import metric_of, observation_text, prompt_text
from bizsim.simcore.errors import BizSimError
from bizsim.simcore.registry import world_spec
from bizsim.simcore.world import World

from bizsim.surfaces._rl_args import check_seed, check_start

__all__ = ["TextEnv", "metric_of", "observation_text", "prompt_text"]


class TextEnv:
    """Step a registered world one command line at a time, from outside SimPy.

    A thin adapter over :class:`bizsim.runs.live.Episode` (unrecorded): each
    :meth:`reset` opens a fresh episode, and a run driven through it leaves the
    trajectory a native agent process issuing the same lines leaves.

    Reward: the change of the world's metric (``summary()["metric_value"]``)
    caused by the step, so the rewards of an episode sum to the final metric
    minus the initial one. The metric is the world's own: startup funds in
    cents, operation mean DAU over the days so far, vending net worth in cents.

    With a ``start`` (:class:`~bizsim.agents.start.StartState`) an episode
    begins where it says (a recorded point, or a policy's play until a
    point, on the episode's seed); with a ``window``
    (:class:`~bizsim.agents.start.Window`) it ends after that many agent
    turns or simulated days (``done``, with ``info["truncated"]`` true).
    The return over a window is the metric at its end minus the metric at
    its start.

    Args:
        world: a registered world name (``startup``, ``operation``, ``vending``...).
        preset: a preset name, a ``.toml`` path, or a config object.
        seed: the episode seed :meth:`reset` uses when given none (an integer from 0 to 2^63 - 1).
        start: where episodes start (default: a fresh world of ``preset``), or a snapshot.
        window: how long an episode lasts (default: until the world ends): a ``Window``, ``N`` turns or
            ``{"days": D}``.
        reward: ``"delta"`` (each step's metric change, above), ``"terminal"`` (0 until the step that ends the
            episode or its window, which gets the metric change over the episode) or ``"shaped"`` (``delta`` plus
            ``sum_i w_i x`` each sub-metric's change: over a window, the metric change plus ``sum_i w_i x`` each
            sub-metric's change); see :mod:`bizsim.runs.rewards`.
        reward_weights: ``"shaped"`` only: weights by sub-metric name (``{"prestige": 0}``), over the world's
            declared defaults.
    """


    def __init__(self, world: str, preset: Any = "default", seed: int = 1, *, start: Any = None,
                 window: Any = None, reward: str = "delta", reward_weights: Any = None) -> None:
        from bizsim.agents.start import Window

        self.world_name = world_spec(world).world_class().name  # checks the name now, not at the first reset
        self.preset = preset
        self.seed = check_seed(seed)
        self.start = check_start(self.world_name, start)
        self.window = Window.of(window)
        self.reward_rule = reward_rule(world, reward, reward_weights)  # refused here, not at the first reset
        self.reward = reward
        self.reward_weights = reward_weights
        self._episode: Episode | None = None

    @property
    def world(self) -> World:
        """The live world (after :meth:`reset`)."""
        return self._require().world

    @property
    def metric(self) -> float:
        """The world's metric after the last step (or at reset)."""
        return self._require().metric

    @property
    def done(self) -> bool:
        """True once the episode has ended."""
        return self._require().world.done

    @property
    def truncated(self) -> bool:
        """True once the episode's window is over (never without a window)."""
        return self._episode is not None and self._episode.truncated

    @property
    def start_metric(self) -> float:
        """The world's metric where the current episode started."""
        return self._require().start_metric

    @property
    def start_us(self) -> int:
        """The instant the current episode started at."""
        return self._require().start_us

    @property
    def turns(self) -> int:
        """Agent turns (advance commands) played in the current episode."""
        return self._episode.turns if self._episode is not None else 0

    def reset(self, seed: int | None = None) -> str:
        """Start a new episode (on ``seed``, else the last seed given: the constructor's until a reset names one);
        return the first observation.

        The first observation is the world's system prompt (see :func:`prompt_text`). The previous episode's
        world is freed first (:meth:`close`): read what you need of it before.
        """
        if seed is not None:
            self.seed = check_seed(seed)
        self.close()
        self._episode = Episode(self.world_name, self.preset, self.seed, start=self.start, window=self.window,
                                surface="text", reward=self.reward, reward_weights=self.reward_weights)
        return prompt_text(self._episode.world)

    def step(self, command: str) -> tuple[str, float, bool, dict]:
        """Run one command line; return ``(observation, reward, done, info)`` (see :meth:`Episode.step`).

        Raises:
            BizSimError: the episode has ended (call :meth:`reset`) or was never started.
        """
        return self._require().step(command)

    def step_tool(self, name: str, arguments: dict[str, Any] | None) -> tuple[str, float, bool, dict]:
        """Run one tool call (a command's tool name and JSON arguments); as :meth:`step`."""
        return self._require().step_tool(name, arguments)

    def close(self) -> None:
        """Free the current episode's world now (:meth:`World.close`); :meth:`reset` starts another."""
        if self._episode is not None:
            self._episode.world.close()
            self._episode = None

    def _require(self) -> Episode:
        if self._episode is None:
            raise BizSimError("no episode yet; call reset() first")
        return self._episode
