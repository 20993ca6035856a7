"""The verifiers environment, end to end with verifiers' own rollout code against a loopback model server."""

from __future__ import annotations

import importlib.util
import json

import pytest

if importlib.util.find_spec("verifiers") is None or importlib.util.find_spec("openai") is None:
    # checked without the import, which takes seconds in every pytest-xdist worker that collects the module
    pytest.skip("needs verifiers and openai (bizsim[rl])", allow_module_level=True)

from bizsim.agents.llm.loopback import LoopbackLLMServer
from bizsim.agents.start import StartState
from bizsim.surfaces.textenv import TextEnv
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.registry import world_spec
from bizsim.surfaces import _rl_args


def _adapter():
    """bizsim's verifiers adapter, imported when a test runs (it imports verifiers)."""
    from bizsim.surfaces import verifiers_env

    return verifiers_env


def rotating_policy(messages, tools):
    """Each answer: one intervention (rotating through the tools) and the advance, plus a call with broken JSON."""
    names = [t["function"]["name"] for t in tools or []]
    n = sum(1 for m in messages if m["role"] == "assistant")
    calls = [{"name": names[n % 4], "arguments": {}}, {"name": "task_done", "arguments": "{not json"},
             {"name": "task_done", "arguments": {}}]
    return {"content": None, "tool_calls": calls}


def _tool_calls(completion):
    """The tool calls of a rollout's output, in order (verifiers writes each as JSON text)."""
    for message in completion:
        for call in message.get("tool_calls") or []:
            yield json.loads(call) if isinstance(call, str) else call


def _replay(env, completion):
    """Play a rollout's tool calls on ``env`` as the rollout did (arguments that are not JSON included)."""
    for call in _tool_calls(completion):
        try:
            args = json.loads(call["arguments"])
        except ValueError:
            args = {"__invalid_json__": call["arguments"]}
        env.step_tool(call["name"], args)


def _evaluate(env, server, n):
    import openai
    from verifiers.clients import OpenAIChatCompletionsClient

    client = OpenAIChatCompletionsClient(openai.AsyncOpenAI(base_url=server.url, api_key="sk-loopback"))
    return env.evaluate_sync(client=client, model="scripted", num_examples=n, rollouts_per_example=1,
                             state_columns=["bizsim"])


def test_a_verifiers_rollout_scores_the_metric_change_of_its_window():
    """verifiers' own evaluate runs each eval row as a rollout: the window ends it, every tool call ran as the
    world's command (a refused one included), and the reward equals the metric change the same calls make
    through the stepping env, which is also the sum of the per-step rewards."""
    start = StartState("operation", agent="planner", until={"day": 30})
    env = _adapter().load_environment(world="operation", start=start, window={"days": 3},
                           seeds={"train": "1-8", "eval": "101-102"})
    with LoopbackLLMServer(rotating_policy, lifetime_s=120) as server:
        out = _evaluate(env, server, 2)
        assert 6 == server.policy_calls  # three days, one answer a day, none wasted after the window
    assert [101, 102] == [o["info"]["seed"] for o in out["outputs"]]
    for o in out["outputs"]:
        record = o["bizsim"]
        assert ("episode_over", True, 3, 9) == (o["stop_condition"], record["truncated"], record["turns"],
                                                 record["commands"])
        again = TextEnv("operation", seed=record["seed"], start=start, window={"days": 3})
        again.reset()
        _replay(again, o["completion"])
        assert again.metric - again.start_metric == pytest.approx(o["reward"], rel=1e-12)
        assert sum(record["rewards"]) == pytest.approx(o["reward"], rel=1e-9)
        assert 33 == again.world.day


def test_a_shaped_rollout_scores_the_metric_change_plus_the_weighted_sub_metrics():
    """With ``reward="shaped"`` the rubric's reward is (the metric change plus each weight times its sub-metric's
    change over the rollout) times ``reward_scale``: the sum of the shaped step rewards, not the bare metric change."""
    env = _adapter().load_environment(world="operation", window={"days": 2}, seeds="1", eval_seeds="5",
                                      reward="shaped", reward_weights={"dau": 2.0}, reward_scale=0.5)
    with LoopbackLLMServer(rotating_policy, lifetime_s=120) as server:
        (o,) = _evaluate(env, server, 1)["outputs"]
    again = TextEnv("operation", seed=5, window={"days": 2})
    again.reset()
    spec = world_spec("operation")
    weights = {s.name: s.weight for s in spec.sub_metrics} | {"dau": 2.0}
    before = {s.name: s.read(again.world) for s in spec.sub_metrics}
    _replay(again, o["completion"])
    shaping = sum(weights[s.name] * (s.read(again.world) - before[s.name]) for s in spec.sub_metrics)
    assert shaping != 0 and 2 == again.turns
    assert 0.5 * (again.metric - again.start_metric + shaping) == pytest.approx(o["reward"], rel=1e-9)


def test_train_and_eval_rows_use_disjoint_seed_sets():
    """The train dataset holds the train seeds, the eval dataset the eval seeds; overlapping sets are refused."""
    env = _adapter().load_environment(world="startup", window=5, seeds="1-5", eval_seeds=[50, 51])
    assert [1, 2, 3, 4, 5] == [r["info"]["seed"] for r in env.dataset]
    assert [50, 51] == [r["info"]["seed"] for r in env.eval_dataset]
    with pytest.raises(ConfigError, match="disjoint"):
        _adapter().split_seeds({"train": "1-10", "eval": "10-12"})
    # The one tests/test_hostile_configs.py bounds in a memory-capped child (imported there without verifiers).
    assert _rl_args.split_seeds is _adapter().split_seeds and _rl_args.DEFAULT_SEEDS is _adapter().DEFAULT_SEEDS
    with pytest.raises(ConfigError, match="not operation"):
        _adapter().load_environment(world="operation", start=StartState("startup"))


def test_the_startup_world_offers_its_commands_as_tools_and_plays_a_window():
    """Startup rollouts get one tool per visible command; a model that only resumes time plays refused turns and
    the window of two turns still ends the rollout."""
    env = _adapter().load_environment(world="startup", window=2, seeds="1", eval_seeds="7")
    names = {t.name for t in env.tool_defs}
    assert {"task_accept", "sim_resume", "market_browse"} <= names

    def resume(messages, tools):
        return {"content": None, "tool_calls": [{"name": "sim_resume", "arguments": {}}]}

    with LoopbackLLMServer(resume, lifetime_s=60) as server:
        out = _evaluate(env, server, 1)
    (o,) = out["outputs"]
    assert (0.0, 2, "episode_over") == (o["reward"], o["bizsim"]["turns"], o["stop_condition"])


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"reward_scale": "nan"}, r"reward_scale\(='nan'\) must be a finite number > 0"),
    ({"reward_scale": "x"}, r"reward_scale\(='x'\) must be a finite number > 0"),
    ({"reward_scale": float("nan")}, r"reward_scale\(=nan\)"),
    ({"reward_scale": float("inf")}, r"reward_scale\(=inf\)"),
    ({"reward_scale": 0}, r"reward_scale\(=0\)"),
    ({"reward_scale": True}, r"reward_scale\(=True\)"),
    ({"max_turns": -1}, r"max_turns\(=-1\) must be an integer from 1 to 100,000"),
    ({"max_turns": 1.5}, r"max_turns\(=1.5\) must be an integer"),
    ({"max_turns": "10"}, r"max_turns\(='10'\) must be an integer"),
    ({"seeds": "1-10000000"}, r"10,000,000 seeds or more, past the limit of 100,000"),
    ({"seeds": "1-5", "eval_seeds": "x"}, r"seeds: 'x' is not a seed"),
    ({"window": {"days": float("inf")}}, r"days\(=inf\) must be a finite number > 0"),
    ({"window": {"turns": 1.5}}, r"turns\(=1.5\) must be an integer >= 1"),
    ({"window": {"weeks": 1}}, r"window\(=\{'weeks': 1\}\)"),
    ({"preset": "nope"}, r"unknown operation preset 'nope'"),
    ({"world": 3}, r"world\(=3\) must be a registered world's name"),
    ({"max_turn": 5}, r"unknown argument\(s\) \['max_turn'\]"),
    ({"system_prompt": "hi"}, r"unknown argument\(s\) \['system_prompt'\]"),
    ({"reward": "dense"}, r"reward\(='dense'\) must be one of delta, terminal, shaped"),
    ({"reward": "shaped", "reward_weights": {"dau": "high"}}, r"reward_weights\['dau'\]\(='high'\) must be a finite"),
])
def test_load_environment_refuses_each_bad_argument_with_one_config_error(kwargs, match):
    """A bad value is a ConfigError naming the argument and the rule, not a raw ValueError, a MemoryError or
    a reward that is silently NaN."""
    kwargs = {"world": "operation", **kwargs}
    with pytest.raises(ConfigError, match=match):
        _adapter().load_environment(**kwargs)


def test_load_environment_takes_verifiers_own_arguments():
    """An argument verifiers' environment takes is passed on, and good values of ours are kept."""
    env = _adapter().load_environment(world="operation", seeds="1-2", eval_seeds="9", max_turns=3, reward_scale=2,
                                  max_workers=4)
    assert (3, 2.0, 4) == (env.max_turns, env.reward_scale, env.max_workers)
