"""verifiers 0.4 plays every registered world through bizsim's native taskset (``bizsim-verifiers``), in process.

verifiers' own rollout code runs it: ``vf-eval`` for one world, and verifiers' rollout API (``Env.serving`` and
``Env.run_slot``, what ``vf-eval`` runs) for every registered world at once; the model is the loopback scripted
server and its program verifiers' ``null`` chat harness. verifiers 0.4 cannot be installed beside the test extra
(it pins mcp 2.0.0 and openai below 3), so the suite skips this module; docs/rl.md says how to run it.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ._verifiers_04 import needs_verifiers_04

needs_verifiers_04()

from bizsim.agents.llm.loopback import LoopbackLLMServer
from bizsim.agents.start import StartState
from bizsim.runs._replay import replay_run_dir
from bizsim.runs.live import Episode
from bizsim.runs.rewards import reward_rule
from bizsim.runs.rundir import read_record
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.registry import world_names, world_spec

pytestmark = pytest.mark.xdist_group("verifiers_v04")


def _advance_tools() -> set[str]:
    tools = set()
    for name in world_names():
        with Episode(name) as episode:
            tools.add(episode.world.commands.by_name[episode.advance_command].tool_name)
    return tools


ADVANCE = _advance_tools()


def play(messages, tools):
    """One tool call a reply: another of the world's tools (with no arguments, which it may refuse), then the
    tool that moves time on, in turn."""
    names = [t["function"]["name"] for t in tools or []]
    advance = next(n for n in names if n in ADVANCE)
    other = next((n for n in names if n != advance), advance)
    n = sum(1 for m in messages if m["role"] == "assistant")
    return {"content": None, "tool_calls": [{"name": other if n % 2 == 0 else advance, "arguments": {}}]}


def start_metric(world: str, seed: int, start: StartState | None) -> float:
    """The world's metric where a rollout on that seed starts (a fresh world, or the start state's)."""
    with Episode(world, seed=seed, start=start) as episode:
        return episode.start_metric


def recorded(trace: dict, start: StartState | None = None) -> tuple[Path, float]:
    """The run directory a trace names, and the metric change it recorded since the rollout's start."""
    run = Path(trace["info"]["bizsim"]["run"])
    record = read_record(run)
    return run, record.summary["metric_value"] - start_metric(record.world, record.seed, start)


def test_every_registered_world_rolls_out_with_verifiers_own_rollout_code(tmp_path):
    """For every registered world, lemonade (the example third-party world) included, one rollout of two turns
    from where its default agent stands after day 2: each reward is the metric change of the run directory it
    recorded since that start, all of it on the call that ended the window (``terminal``), and each directory
    verifies."""
    from verifiers.v1 import EvalClientConfig, ModelContext
    from verifiers.v1.env import RunSlot

    from bizsim.surfaces.verifiers_taskset import load_environment

    async def roll(world: str, ctx: ModelContext) -> dict:
        env = load_environment(world=world, seeds=[3], window={"turns": 2}, reward="terminal",
                               start_agent=world_spec(world).default_agent, start_until={"day": 2},
                               out=str(tmp_path / world))
        async with env.serving():
            (task,) = list(env.taskset)
            episode = await env.run_slot(RunSlot(task), ctx)
        assert episode.ok, episode.errors
        (trace,) = episode.traces
        return trace.model_dump(mode="json")

    async def roll_all(url: str) -> list[dict]:
        ctx = ModelContext(client=EvalClientConfig(base_url=url, api_key_var="LOOPBACK_KEY"), model="scripted")
        return await asyncio.gather(*(roll(w, ctx) for w in world_names()))

    os.environ.setdefault("LOOPBACK_KEY", "sk-loopback")
    with LoopbackLLMServer(play, lifetime_s=600) as llm:
        traces = asyncio.run(roll_all(llm.url))
    assert len(world_names()) >= 5 and "lemonade" in world_names()
    changes = []
    for world, trace in zip(world_names(), traces):
        run, change = recorded(trace, StartState(world, agent=world_spec(world).default_agent, until={"day": 2}))
        changes.append(change)
        assert verify_run_dir(run).ok, world
        assert world == read_record(run).world
        assert "episode_over" == trace["stop_condition"], world
        assert pytest.approx(change) == trace["rewards"]["metric_change"]["score"], world
        steps = trace["info"]["bizsim"]["step_rewards"]
        assert read_record(run).live["calls"] == len(steps) and pytest.approx(change) == sum(steps), world
        assert not any(steps[:-1]), world  # terminal: all of it on the call that ended the window
        assert read_record(run).live["calls"] == trace["metrics"]["tool_calls"] > 0
    assert sum(c != 0 for c in changes) >= 3, changes  # the worlds moved: the rewards are not all 0


def test_vf_eval_scores_each_seed_with_the_recorded_metric_change_scaled(tmp_path):
    """``vf-eval`` on the taskset id, configured in TOML: two seeds of the vending world for two days, its funds
    scaled to dollars, cut at three model calls, from where the markup policy stands on day 8 (stock on the
    shelves), the reward shaped with one weight set; each reward is 0.01 times its run's metric change plus the
    weighted change of the sub-metrics, read here from the replayed run, and each run verifies."""
    with LoopbackLLMServer(play, lifetime_s=600) as llm:
        (tmp_path / "eval.toml").write_text(f'''model = "scripted"
push = false
output_dir = "{tmp_path / 'vf'}"
[client]
base_url = "{llm.url}"
api_key_var = "LOOPBACK_KEY"
[env.taskset]
id = "bizsim-verifiers"
world = "vending"
seeds = "1-2"
window = {{days = 2}}
max_turns = 3
reward_scale = 0.01
reward = "shaped"
reward_weights = {{inventory_value = 0.5}}
start_agent = "markup"
start_until = {{day = 8}}
out = "{tmp_path / 'runs'}"
''')
        done = subprocess.run([str(Path(sys.executable).parent / "vf-eval"), "@", "eval.toml", "--no-rich"],
                              cwd=tmp_path, env=dict(os.environ, LOOPBACK_KEY="sk-loopback"), capture_output=True,
                              text=True, timeout=600)
    assert 0 == done.returncode, done.stderr[-3000:]
    traces = [t for line in next((tmp_path / "vf").glob("*/traces.jsonl")).read_text().splitlines()
              for t in json.loads(line)["traces"]]
    assert [1, 2] == sorted(t["task"]["data"]["seed"] for t in traces)
    stocked = StartState("vending", agent="markup", until={"day": 8})
    for trace in traces:
        run, change = recorded(trace, stocked)
        assert verify_run_dir(run).ok
        assert "turn_limit" == trace["stop_condition"]
        rule = reward_rule("vending", "shaped", {"inventory_value": 0.5})
        seed = trace["task"]["data"]["seed"]
        with Episode("vending", seed=seed, start=stocked, reward="shaped",
                     reward_weights={"inventory_value": 0.5}) as fresh:
            start = fresh.start_potential
        (end_world,) = replay_run_dir(run)[2]
        shaping = rule.potential(end_world, end_world.summary()) - start
        assert shaping != 0  # the sub-metrics moved: the test tells shaped from delta
        assert pytest.approx(0.01 * (change + shaping)) == trace["rewards"]["metric_change"]["score"]
        assert pytest.approx(0.01 * (change + shaping)) == sum(trace["info"]["bizsim"]["step_rewards"])
        assert 3 == read_record(run).live["calls"]
