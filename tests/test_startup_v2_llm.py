"""A scripted model plays a startup-v2 year through the LLM harness (run_llm, the yc-bench protocol, a run directory).

The model is played in process (``ScriptedClient``): what v2 adds to the harness is the prompt and the events, the
same over any client; the HTTP path through litellm and the loopback server is the same as v1's and is tested there
(tests/test_llm_e2e.py), once.
"""

from __future__ import annotations

from bizsim.agents.llm import LLMAgentConfig, ScriptedClient
from bizsim.runs import RunSpec, run_llm
from bizsim.models.startup.v2 import StartupV2World
from bizsim.simcore.testing import assert_money_conserved, assert_replays

from .llm_policies import calls, greedy_policy


SYSTEM: list[str] = []


def hiring_policy(messages: list[dict], tools: list[dict] | None) -> dict:
    """Hire the first candidate on the first turn, then play the greedy floor (which re-reads the roster)."""
    SYSTEM[:] = [messages[0]["content"]]
    if not any(m["role"] == "assistant" for m in messages):
        return calls("yc-bench employee candidates", "yc-bench employee hire --candidate Cand-1",
                     "yc-bench employee list", "yc-bench market browse --limit 1")
    return greedy_policy(messages, tools)


def test_a_scripted_model_plays_a_v2_year(tmp_path):
    """The harness tells the model of the labour market and the disruptions, carries the new commands and events,
    and the year it records replays byte for byte with money conserved."""
    spec = RunSpec("startup-v2", "default", "llm", 1, agent_options=LLMAgentConfig(model="scripted"))
    result = run_llm(spec, out=tmp_path / "run", client=ScriptedClient(hiring_policy))
    system = SYSTEM[0]
    world = result.final_world
    assert "startup-v2" == result.episode.benchmark_id and world.done
    assert "employee hire --candidate" in system and "clients can go under" in system
    events = {name for _, kind, name, _ in world.trajectory if kind == "event"}
    assert {"employee_started", "employee_ramp", "disruption_warning"} <= events
    assert events & {"market_downturn", "client_collapsed", "employee_resigned", "late_payment"}
    assert_money_conserved(world, world.funds_cents)
    assert_replays(lambda: StartupV2World("default", 1), world)
    turns = (tmp_path / "run" / "result.json").read_text()
    assert '"benchmark_id": "startup-v2"' in turns or '"benchmark_id":"startup-v2"' in turns
