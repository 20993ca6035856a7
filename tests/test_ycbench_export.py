"""``bizsim export yc-bench``: the file the reference's plot scripts read, field by field against the reference's own
file of the same scripted run, and exports of runs without a model (a baseline, a live episode)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bizsim.agents.llm import LLMAgentConfig
from bizsim.agents.llm.scripted import ScriptedClient
from bizsim.analysis import export_rollout
from bizsim.runs import RunSpec, run_episode, run_llm
from bizsim.runs.live import Episode

from .llm_policies import export_policy

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("ycbench_export")

#: The reference harness's own results file of this scripted run (made by benchmarks/ycbench_export_check.py; the
#: transcript keeps each turn's commands and output, not the prompts bizsim words its own way).
REFERENCE = Path(__file__).parent / "data" / "ycbench_reference" / "export_policy_seed2_40turns.json"
MODEL = "openai/exporter"


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> tuple[dict, dict, Path]:
    """The reference's file of the scripted run, and bizsim's export of the same run."""
    root = tmp_path_factory.mktemp("ycx")
    spec = RunSpec("startup", "reference", "llm", 2, agent_options=LLMAgentConfig(model=MODEL, max_turns=40))
    run_llm(spec, out=root / "run", client=ScriptedClient(export_policy(), model=MODEL))
    file = export_rollout(root / "run", root)
    return json.loads(REFERENCE.read_text()), json.loads(file.read_text()), root / "run"


def test_the_run_shows_what_the_plot_scripts_look_for(pair):
    """The stored run has a failed task, a trust reconstruction, a scratchpad and adversarial clients to count."""
    ref, _, _ = pair
    tasks = ref["time_series"]["tasks"]
    assert {True, False} <= {t["success"] for t in tasks}
    assert ref["time_series"]["scratchpad"] and any(c["is_rat"] for c in ref["time_series"]["clients"])


def test_top_level_fields_are_the_references(pair):
    """Every top-level field, with the same values (wall-clock times are ISO 8601 with a zone)."""
    ref, ours, run = pair
    assert list(ref) == list(ours)
    for key in ("session_id", "model", "seed", "horizon_years", "total_episodes", "terminal", "terminal_reason",
                "terminal_detail", "turns_completed", "total_cost_usd"):
        assert ref[key] == ours[key], key
    for key in ("started_at", "ended_at"):
        assert ours[key].endswith("+00:00") and ours[key] >= ours["started_at"]
    from datetime import datetime

    span = datetime.fromisoformat(ours["ended_at"]) - datetime.fromisoformat(ours["started_at"])
    wall = json.loads((run / "result.json").read_text())["wall_s"]  # the run's one runtime
    assert pytest.approx(wall, abs=1e-5) == span.total_seconds()


@pytest.mark.parametrize("series", ["funds", "ledger", "prestige", "client_trust", "employees", "scratchpad", "config"])
def test_time_series_equal_the_references(pair, series):
    """Funds (from the first movement of money), ledger, prestige, trust, employees, scratchpad and settings: equal."""
    ref, ours, _ = pair
    assert ref["time_series"][series] == ours["time_series"][series]


def test_tasks_assignments_and_clients_equal_the_references(pair):
    """Tasks field by field but their random ids; assignments and clients with the reference's id order set aside."""
    ref, ours, _ = pair
    strip = lambda rows: [{k: v for k, v in t.items() if k != "task_id"} for t in rows]
    assert strip(ref["time_series"]["tasks"]) == strip(ours["time_series"]["tasks"])
    assert list(ref["time_series"]["tasks"][0]) == list(ours["time_series"]["tasks"][0])
    team = lambda rows: [{**a, "employees_assigned": sorted(a["employees_assigned"])} for a in rows]
    assert team(ref["time_series"]["assignments"]) == team(ours["time_series"]["assignments"])
    by_name = lambda rows: sorted(rows, key=lambda c: c["name"])
    assert by_name(ref["time_series"]["clients"]) == by_name(ours["time_series"]["clients"])


def test_every_turn_runs_the_references_commands(pair):
    """Per turn: the same commands and the same output line; cost as recorded."""
    ref, ours, _ = pair
    assert len(ref["transcript"]) == len(ours["transcript"])
    for theirs, mine in zip(ref["transcript"], ours["transcript"]):
        assert theirs["commands"] == [c.split(" -> ", 1)[0] for c in mine["commands_executed"]], theirs["turn"]
        assert (theirs["turn"], theirs["agent_output"]) == (mine["turn"], mine["agent_output"])
        assert mine["cost_usd"] == 0.0


def test_a_baseline_run_exports_with_an_empty_transcript(tmp_path):
    """A greedy run (no model) exports its world; no turns of a model, no tokens, no wall-clock times."""
    result = run_episode("startup", "reference", "greedy", 3, out=tmp_path / "run")
    data = json.loads(export_rollout(tmp_path / "run", tmp_path).read_text())
    assert "yc_bench_result_default_3_greedy.json" in {p.name for p in tmp_path.iterdir()}
    assert [] == data["transcript"] and (None, None) == (data["started_at"], data["ended_at"])
    funds = data["time_series"]["funds"]
    first = data["time_series"]["ledger"][0]
    assert ("start", first["time"], 20_000_000) == (funds[0]["event"], funds[0]["time"], funds[0]["funds_cents"])
    assert result.summary["final_funds_cents"] == funds[-1]["funds_cents"]
    assert result.turns == data["turns_completed"] and "greedy" == data["model"]
    assert {"bankruptcy": "bankruptcy", "horizon_end": "horizon_end"}[result.terminal_reason] == data["terminal_reason"]


def test_a_live_episode_exports(tmp_path):
    """A shell/MCP-style episode, driven a call at a time and closed, exports as its agent's run."""
    with Episode("startup", "reference", 1, out=tmp_path / "run", surface="shell") as ep:
        for line in ("market browse --limit 1", "task accept --task-id Task-10", "task assign-all --task-id Task-10",
                     "task dispatch --task-id Task-10", "sim resume"):
            ep.call_line(line)
    data = json.loads(export_rollout(tmp_path / "run", tmp_path / "out.json").read_text())
    assert "shell" == data["model"] and [] == data["transcript"]
    assert ["Task-10"] == [t["title"] for t in data["time_series"]["tasks"]]
    assert ["Task-10"] == [a["task_title"] for a in data["time_series"]["assignments"]]
