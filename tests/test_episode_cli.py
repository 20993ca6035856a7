"""run_episode, run directories and the bizsim command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bizsim.runs import read_command_log, run_episode
from bizsim.cli import main
from bizsim.models.startup import StartupWorld
from bizsim.simcore.replay import replay


def test_run_episode_result_fields():
    """The result carries the terminal reason, money, tasks, turns and commands."""
    r = run_episode("startup", "reference", "greedy-reference", seed=1)
    d = r.to_dict()
    assert "bankruptcy" == d["terminal_reason"]
    assert d["bankrupt"] is True
    assert -2_438_278 == d["final_funds_cents"]
    assert {"2025-01": 20_000_000, "2025-02": 16_199_497} == {k: d["month_end_funds_cents"][k] for k in ("2025-01", "2025-02")}
    assert (1, 2, 0) == (d["tasks_succeeded"], d["tasks_failed"], d["tasks_cancelled"])
    assert 9 == d["turns"]
    assert d["commands"] == r.trajectory.count("cmd")


def test_run_directory_replays(tmp_path):
    """A run directory holds config, command log, trajectory and result; its log replays."""
    r = run_episode("startup", "default", "greedy", seed=2, out=tmp_path / "run")
    names = sorted(p.name for p in (tmp_path / "run").iterdir())
    assert ["commands.jsonl", "config.toml", "result.json", "trajectory.jsonl"] == names
    assert r.to_dict() == json.loads((tmp_path / "run" / "result.json").read_text())
    again = replay(lambda: StartupWorld("default", 2), read_command_log(tmp_path / "run"))
    assert r.final_world.state() == again.state()


def test_multi_episode_carries_the_scratchpad():
    """After a bankruptcy a new episode starts on the same seed with the scratchpad kept."""

    def noting(world):
        if not world.scratchpad:
            world.call("scratchpad write", content="episode one was here")
        while not world.done:
            if world.call("company status")["tasks"]["active"] == 0:
                top = world.call("market browse", limit=1)["tasks"][0]["task_id"]
                world.call("task accept", task_id=top)
                world.call("task assign", task_id=top, employees="Emp_1")
                world.call("task dispatch", task_id=top)
            yield world.advance()

    r = run_episode("startup", "default", noting, seed=1, max_episodes=2)
    assert 2 == len(r.episodes)
    assert ["bankruptcy", "bankruptcy"] == [e["terminal_reason"] for e in r.episodes]
    assert "episode one was here" == r.final_world.scratchpad


def test_cli_run_json(capsys):
    """`bizsim run --json` prints one object with the documented fields."""
    assert 0 == main(["run", "startup", "--agent", "greedy-reference", "--preset", "reference", "--seed", "3", "--json"])
    d = json.loads(capsys.readouterr().out)
    for key in ("world", "preset", "seed", "agent", "terminal_reason", "bankrupt", "final_funds_cents",
                "month_end_funds_cents", "tasks_succeeded", "tasks_failed", "turns"):
        assert key in d
    assert -3_017_422 == d["final_funds_cents"]


def test_cli_summary_and_agent_options(capsys, tmp_path):
    """The readable summary names the outcome; agent options reach the agent."""
    assert 0 == main(["run", "startup", "--agent", "random", "--agent-opt", "max_parallel=1", "--seed", "2",
                      "--out", str(tmp_path / "r")])
    out = capsys.readouterr().out
    assert "startup-v1" in out and "final funds" in out and "run directory" in out
    assert {"max_parallel": 1} == json.loads((tmp_path / "r" / "result.json").read_text())["agent_options"]


def test_a_run_directory_is_replaced_only_with_overwrite(capsys, tmp_path):
    """A second run into the same --out is refused before it runs (exit 2, files unchanged); --overwrite replaces it."""
    out = tmp_path / "r"
    assert 0 == main(["run", "startup", "--seed", "1", "--out", str(out), "--no-progress", "--json"])
    first = (out / "result.json").read_bytes()
    try:
        code = main(["run", "startup", "--seed", "2", "--out", str(out), "--no-progress"])
    except SystemExit as exc:
        code = exc.code
    assert 2 == code and "--overwrite" in capsys.readouterr().err
    assert first == (out / "result.json").read_bytes()
    assert 0 == main(["run", "startup", "--seed", "2", "--out", str(out), "--overwrite", "--no-progress", "--json"])
    assert 2 == json.loads((out / "result.json").read_text())["seed"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "startup", "--agent", "nope"], "unknown agent"),
        (["run", "startup", "--preset", "nope"], "unknown startup preset"),
        (["run", "nowhere"], "unknown world"),
        (["run", "startup", "--agent-opt", "novalue"], "KEY=VALUE"),
        (["run", "startup", "--agent", "random", "--agent-opt", "bogus=1"], "no option"),
        (["run", "vending", "--agent", "markup", "--agent-opt", "markup=abc"], "markup='abc' must be a finite number"),
        (["run", "vending", "--agent", "markup", "--agent-opt", "markup=0"], "markup(=0) must be > 0"),
        (["run", "operation", "--agent", "threshold", "--agent-opt", "low=nap"], "low(='nap') must be one of"),
        (["run", "startup", "--agent", "planner", "--agent-opt", "max_team=0"], "max_team(=0) must be >= 1"),
        (["run", "freelance", "--agent", "cautious", "--agent-opt", "tired=high"], "tired='high' must be an integer"),
        (["run", "startup", "--seed", "-3"], "--seed"),
        (["run", "startup", "--seed", "x"], "invalid int"),
    ],
)
def test_cli_bad_arguments_exit_2(argv, message, capsys):
    """Bad arguments give one clear message and exit status 2."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    assert 2 == code
    assert message in capsys.readouterr().err


def test_cli_list(capsys):
    """`bizsim list` names worlds, presets and agents."""
    assert 0 == main(["list"])
    out = capsys.readouterr().out
    assert "startup" in out and "nightmare" in out and "greedy-reference" in out
    arenas = out[out.index("\narenas"):]  # after every single-agent world, each arena with its seats and base world
    assert "vending-arena (vending-arena-v1)" in arenas and "seats:   2 to 8, each playing vending" in arenas
    assert "startup-arena (startup-arena-v1)" in arenas and "seats:   2 to 4, each playing startup" in arenas


def test_cli_shell_plays_by_text():
    """`bizsim shell` reads commands from stdin and answers in JSON, errors included."""
    script = "company status\ntask accept --task-id Task-10\nno such thing\nquit\n"
    proc = subprocess.run(
        [sys.executable, "-m", "bizsim.cli", "shell", "startup", "--seed", "1"],
        input=script, capture_output=True, text=True, timeout=60,
    )
    assert 0 == proc.returncode, proc.stderr
    assert '"replacement_task_id": "Task-9000"' in proc.stdout
    assert "Unknown command" in proc.stdout


def test_an_agent_that_never_gets_time_moving_is_stopped():
    """An agent that resumes with nothing active forever ends as agent_stalled, not a hang."""

    def idle(world):
        while True:
            yield world.advance()

    r = run_episode("startup", "default", idle, seed=1)
    assert "agent_stalled" == r.terminal_reason
    assert 0 == r.final_world.now_us


def test_the_worlds_figures_are_attributes_tab_completion_offers():
    """`result.final_funds_cents` works and is in dir(result); a misspelt figure's error lists the real ones."""
    result = run_episode("startup", agent="greedy", seed=1)
    assert {"final_funds_cents", "tasks_succeeded", "to_dict", "terminal_reason"} <= set(dir(result))
    assert result.summary["final_funds_cents"] == result.final_funds_cents
    with pytest.raises(AttributeError, match="final_funds_cents"):
        result.final_fund_cents  # noqa: B018


def test_a_runs_summary_gives_the_start_and_the_reference_agents_beside_it(capsys):
    """`bizsim run` prints the metric at the start and, for preset default, the planner's and the default agent's
    figures on the same seed and over seeds 1-10; elsewhere, how to make the planner's."""
    assert 0 == main(["run", "startup", "--agent", "random", "--seed", "1", "--no-progress"])
    text = capsys.readouterr().out
    assert "  at the start: $200,000.00\n" in text
    assert "beside it on this seed: planner $2,832,905.66, greedy (the default agent) $420,295.21" in text
    assert "over seeds 1-10: planner mean $2,845,268.54, greedy mean $182,289.66" in text
    assert 0 == main(["run", "startup", "--preset", "easy", "--agent", "greedy", "--seed", "2", "--no-progress"])
    assert ("`bizsim run startup --preset easy --agent planner --seed 2` gives the planner's"
            in capsys.readouterr().out)


def _worlds_with_figures() -> list[str]:
    """The registered worlds whose benchmark version the reference figures hold: every table row is replayed."""
    from bizsim.analysis.reference_figures import FIGURES
    from bizsim.simcore.registry import world_names, world_spec

    by_id = {world_spec(name).benchmark_id: name for name in world_names()}
    return [by_id[benchmark_id] for benchmark_id in FIGURES]


@pytest.mark.parametrize("world", _worlds_with_figures())
def test_the_reference_figures_are_what_the_agents_score_now(world):
    """Seed 1 of every agent in the table, replayed: a change of dynamics that forgot to bump the version fails."""
    from bizsim.analysis.reference_figures import FIGURES
    from bizsim.simcore.registry import world_spec

    table = FIGURES[world_spec(world).benchmark_id]
    for agent, values in table.items():
        assert values[0] == pytest.approx(run_episode(world, "default", agent, 1).summary["metric_value"], abs=1e-5)


def test_bizsim_run_lists_the_months_of_the_year_without_a_stub_january(capsys):
    """A year from 1 January 09:00 ends on the next 1 January 09:00: twelve month-ends, December's not repeated."""
    assert 0 == main(["run", "startup", "--agent", "greedy", "--seed", "1", "--no-progress"])
    line = next(x for x in capsys.readouterr().out.splitlines() if "month-end funds" in x)
    assert "2025-12 $420,295.21" in line and "2026-01" not in line and 12 == line.count("$")
