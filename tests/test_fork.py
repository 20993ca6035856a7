"""Forks: a recorded run continued from a point, by its own agent (exactly the parent) or another (verified)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import attrs
import pytest
from bizsim.runs import run_episode
from bizsim.runs.fork import cut, fork, load_parent
from bizsim.runs.verify import verify_run_dir
from bizsim.cli.main import main
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.registry import world_names
from bizsim.simcore.snapshot import restore
from hypothesis import given, settings
from hypothesis import strategies as st

from .strategies import fork_cases


def _same_run(a, b) -> None:
    assert a.final_world.trajectory.to_jsonl() == b.final_world.trajectory.to_jsonl()
    assert a.final_world.state() == b.final_world.state()
    assert attrs.evolve(a.record(), fork=None) == attrs.evolve(b.record(), fork=None)


@pytest.mark.parametrize("name", world_names())
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_a_fork_with_the_parents_own_agent_reproduces_the_parent(name, data):
    """Forked at any turn with the agent and options that played it, a run comes back exactly."""
    preset, agent, seed, share = data.draw(fork_cases(name), label="run")
    parent = run_episode(name, preset, agent, seed)
    turn = round(share * parent.turns)
    child = fork(parent, at=turn, agent=agent)
    _same_run(parent, child)
    assert ("continued", turn) == (child.fork["mode"], child.fork["turn"])


@pytest.mark.parametrize("name", world_names())
@settings(max_examples=2, deadline=None)
@given(data=st.data())
def test_a_fork_handed_to_another_agent_keeps_the_prefix_and_verifies(name, data):
    """A fork to another agent (or the same one started afresh) keeps the parent's commands up to the fork point,
    counts the parent's turns, and its run directory replays to the same bytes under ``verify``."""
    preset, agent, seed, share = data.draw(fork_cases(name), label="parent")
    _, other_agent, _, _ = data.draw(fork_cases(name), label="continuation agent")  # only its agent is used
    with tempfile.TemporaryDirectory() as tmp:
        parent = run_episode(name, preset, agent, seed, out=Path(tmp, "parent"))
        turn = round(share * parent.turns)
        child = fork(Path(tmp, "parent"), at=turn, agent=other_agent, fresh=True, out=Path(tmp, "child"))
        k = child.fork["commands"]
        assert parent.command_log[:k] == child.command_log[:k]
        assert child.turns >= turn and "handover" == child.fork["mode"]
        found = verify_run_dir(Path(tmp, "child"))
        assert found.ok, found.problems


def test_fork_points_by_turn_hour_and_day_fall_on_turn_starts():
    """A time point is the first turn starting at or after it; past the run's end is a clear error."""
    parent = load_parent(run_episode("operation", "default", "round-robin", 1))
    assert (0, 0) == cut(parent.snapshot, 0)
    k, turn = cut(parent.snapshot, {"day": 10})
    assert 10 == turn and parent.snapshot.log[k][0] >= 10 * 24 * 3_600_000_000
    assert cut(parent.snapshot, {"hours": 240}) == (k, turn)
    with pytest.raises(ConfigError, match="365 turns"):
        cut(parent.snapshot, 400)
    with pytest.raises(ConfigError, match="before day 9999"):
        cut(parent.snapshot, {"day": 9999})
    with pytest.raises(ConfigError, match="turn number"):
        cut(parent.snapshot, {"week": 2})


def test_a_forks_instant_is_when_its_first_own_turn_starts():
    """The recorded instant is after the kept prefix's last advance: the new agent's first command, at or after a
    day point; at a snapshot's end, the world's clock."""
    parent = run_episode("startup", "default", "greedy", 1)
    for at in (20, {"day": 90}):
        child = fork(parent, at=at, agent="random")
        k = child.fork["commands"]
        assert child.command_log[k][0] == child.fork["t_us"] == parent.command_log[k][0] > parent.command_log[k - 1][0]
    assert child.fork["t_us"] >= 90 * 24 * 3_600_000_000
    log = parent.command_log
    snap = parent.final_world.snapshot().prefix(next(n for n in range(40, len(log)) if log[n - 1][1] == "sim resume"))
    assert restore(snap).now_us == fork(snap, agent="random").fork["t_us"] > snap.t_us


def test_a_snapshot_forks_from_where_it_stands():
    """A snapshot is a parent too: forked at its end, the new agent starts where the snapshot stands."""
    parent = run_episode("startup", "default", "greedy", 3)
    snap = parent.final_world.snapshot().prefix(40)
    child = fork(snap, agent="random")
    assert snap.log == tuple(child.command_log[:40]) and "snapshot" == child.fork["parent"]


def test_verify_catches_a_fork_whose_parent_has_another_prefix(tmp_path):
    """A fork pins its parent's prefix: a parent directory whose log differs there is reported."""
    run_episode("startup", "default", "greedy", 2, out=tmp_path / "parent")
    fork(tmp_path / "parent", at=5, agent="planner", out=tmp_path / "child")
    assert verify_run_dir(tmp_path / "child").ok
    log = (tmp_path / "parent" / "commands.jsonl").read_text().splitlines()
    log[0] = json.dumps({"t_us": 0, "line": "company status"})
    (tmp_path / "parent" / "commands.jsonl").write_text("\n".join(log) + "\n")
    problems = verify_run_dir(tmp_path / "child").problems
    assert any("does not start with the prefix" in p for p in problems), problems


def test_bizsim_fork_on_the_command_line(tmp_path, capsys):
    """``bizsim fork RUN_DIR --at-turn N --agent NAME --out DIR --json`` writes a fork that verifies."""
    assert 0 == main(["run", "startup", "--agent", "greedy", "--seed", "4", "--out", str(tmp_path / "p"),
                      "--no-progress", "--json"])
    capsys.readouterr()
    assert 0 == main(["fork", str(tmp_path / "p"), "--at-turn", "12", "--agent", "random", "--agent-opt",
                      "seed=7", "--out", str(tmp_path / "c"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert ({"turn": 12}, "random", {"seed": 7}) == (out["fork"]["at"], out["agent"], out["agent_options"])
    assert 0 == main(["verify", str(tmp_path / "c")])
    assert 2 == main(["fork", str(tmp_path / "p"), "--at-turn", "9999", "--agent", "greedy",
                      "--out", str(tmp_path / "d")])
    assert "turns; choose a turn from 0" in capsys.readouterr().err


def test_a_parent_and_its_forks_compare_from_the_fork_point():
    """The table starts every run at the parent's metric at the fork point and ends at each run's own final metric;
    the plot draws one line per run from there."""
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    from bizsim.analysis.fork_compare import compare_forks, fork_series
    from bizsim.analysis.plots import fork_metric

    parent = run_episode("operation", "default", "round-robin", 2)
    forks = [fork(parent, at={"day": 200}, agent=a) for a in ("threshold", "round-robin")]
    table = compare_forks(parent, forks)
    assert [parent.metric_value, *(f.metric_value for f in forks)] == list(table["final_metric"])
    assert 1 == table["metric_at_fork"].nunique() and [0.0, 0.0] == list(table["vs_parent"].iloc[[0, 2]])
    assert ["", "handover", "continued"] == list(table["mode"])
    series = fork_series(parent, forks)
    assert 0.0 == series["day"].min() and {"parent (round-robin)"} < set(series["run"])
    ax = fork_metric(series, metric="mean_dau")
    assert 3 == len(ax.get_lines()) and "days since the fork point" == ax.get_xlabel()


def test_an_llm_agent_plays_on_from_a_fork_and_the_fork_verifies(tmp_path):
    """``fork(..., agent="llm")`` is an LLM run starting from the snapshot: its log keeps the parent's prefix, its
    record names the fork, and ``verify`` replays it (the model's answers are in its call log, not needed)."""
    from bizsim.agents.llm import ScriptedClient

    from .llm_policies import greedy_policy

    run_episode("startup", "default", "greedy", 5, out=tmp_path / "parent")
    child = fork(tmp_path / "parent", at=8, agent="llm", agent_options={"max_turns": 15},
                 client=ScriptedClient(greedy_policy), out=tmp_path / "llm")
    k = child.episode.fork["commands"]
    parent_log = run_episode("startup", "default", "greedy", 5).command_log
    assert parent_log[:k] == child.episode.command_log[:k] and k < len(child.episode.command_log)
    recorded = json.loads((tmp_path / "llm" / "result.json").read_text())
    assert ({"turn": 8}, "handover", "llm") == (recorded["fork"]["at"], recorded["fork"]["mode"], recorded["agent"])
    assert (tmp_path / "llm" / "run.json").exists()
    found = verify_run_dir(tmp_path / "llm")
    assert found.ok, found.problems


def test_forking_an_arena_directory_says_it_is_an_arena_not_that_a_log_is_missing(tmp_path, capsys):
    """An arena run's commands live in its seats' folders; `bizsim fork` on its directory named the missing
    top-level commands.jsonl. It now names the arena and where an arena is forked."""
    from bizsim.runs import RunSpec, execute

    out = tmp_path / "arena"
    execute(RunSpec("vending-arena", "small", seed=1, roster=["planner", "markup"]), out=out)
    with pytest.raises(ConfigError, match="holds an arena run.*replay_arena"):
        load_parent(out)
    assert 2 == main(["fork", str(out), "--at-turn", "3", "--agent", "planner", "--out", str(tmp_path / "f")])
    assert "holds an arena run" in capsys.readouterr().err
    assert not (tmp_path / "f").exists()
