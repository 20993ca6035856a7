"""`bizsim verify`: a run directory's command logs, replayed episode after episode, give back its bytes."""

from __future__ import annotations

import json

import pytest
from bizsim.agents.llm import LLMAgentConfig, ScriptedClient
from bizsim.analysis import load
from bizsim.runs import RunSpec, run_episode, run_llm
from bizsim.cli import main
from bizsim.runs.rundir import read_episode_logs
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.replay import replay
from bizsim.models.startup import StartupWorld

from .llm_policies import calls, greedy_policy
from .test_freelance_llm_run import freelancer


def noting(world):
    """Writes the scratchpad in episode 1; later episodes read it and staff by what it says (one employee)."""
    if world.call("scratchpad read")["content"]:
        team = "Emp_1"
    else:
        world.call("scratchpad write", content="staff lightly")
        team = "Emp_1,Emp_2"
    while not world.done:
        if world.call("company status")["tasks"]["active"] == 0:
            top = world.call("market browse", limit=1)["tasks"][0]["task_id"]
            world.call("task accept", task_id=top)
            world.call("task assign", task_id=top, employees=team)
            world.call("task dispatch", task_id=top)
        yield world.advance()


@pytest.fixture
def restarted(tmp_path):
    """A three-episode run directory (a bankruptcy each time) whose later episodes depend on the scratchpad."""
    result = run_episode("startup", "default", noting, seed=1, max_episodes=3, out=tmp_path / "run")
    assert 3 == len(result.episodes)
    return tmp_path / "run", result


def test_every_episode_of_a_restarted_run_is_kept_and_replays(restarted):
    path, result = restarted
    assert ["commands.jsonl", "trajectory.jsonl"] == sorted(p.name for p in (path / "episodes" / "1").iterdir())
    assert not (path / "episodes" / "3").exists()  # the last episode is the directory's own files
    logs = read_episode_logs(path)
    assert [w.command_log() for w in result.worlds] == logs
    for n, world in enumerate(result.earlier_worlds, 1):
        assert world.trajectory.to_jsonl() == (path / "episodes" / str(n) / "trajectory.jsonl").read_text()
    found = verify_run_dir(path)
    assert (True, 3, sum(map(len, logs))) == (found.ok, found.episodes, found.commands), found.problems


def test_the_last_episode_needs_the_scratchpad_the_earlier_ones_left(restarted):
    """Replayed alone on a fresh world, the last log reads an empty scratchpad: the chain is what makes it exact."""
    path, result = restarted
    alone = replay(lambda: StartupWorld("default", 1), read_episode_logs(path)[-1])
    assert alone.trajectory.to_jsonl() != result.final_world.trajectory.to_jsonl()
    assert load(path).runs.iloc[0].final_funds_cents == result.final_world.funds_cents


def test_a_changed_record_or_result_is_found(restarted, capsys):
    path, _ = restarted
    file = path / "episodes" / "2" / "trajectory.jsonl"
    lines = file.read_text().splitlines(keepends=True)
    lines[5] = lines[5].replace('"t_us":', '"t_us":1')
    file.write_text("".join(lines))
    result = json.loads((path / "result.json").read_text())
    result["episodes"][0]["final_funds_cents"] += 1
    (path / "result.json").write_text(json.dumps(result))
    assert 1 == main(["verify", str(path)])
    out = capsys.readouterr().out
    assert "DIFFERS" in out and "episode 2: trajectory.jsonl line 6 differs" in out
    assert "episode 1: result.json final_funds_cents=" in out


def test_a_command_log_that_does_not_belong_is_found(restarted):
    path, _ = restarted
    log = path / "commands.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    rows[-1]["t_us"] += 1
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert any("does not replay" in p for p in verify_run_dir(path).problems)


def test_an_overwritten_restarted_run_leaves_no_stale_episodes(restarted):
    path, _ = restarted
    run_episode("startup", "default", "greedy", seed=1, out=path, overwrite=True)
    assert not (path / "episodes").exists()
    assert verify_run_dir(path).ok


def test_bad_directories_are_a_clear_error(tmp_path, restarted, capsys):
    path, _ = restarted
    assert 2 == main(["verify", str(tmp_path / "nothing")])
    assert "no result.json" in capsys.readouterr().err
    (path / "commands.jsonl").write_text("not json\n")
    with pytest.raises(ConfigError, match="commands.jsonl.* line 1 is not JSON"):
        verify_run_dir(path)
    assert 2 == main(["verify", str(path)])


def test_llm_runs_verify_with_their_recorded_roles_and_caps(tmp_path, capsys):
    """The freelance auditor answers from llm_calls.jsonl; a run stopped by its turn cap ends without a command."""
    run_llm(RunSpec("freelance", agent="llm", seed=3, agent_options={"model": "scripted", "max_turns": 24, "auditor": "llm"}),
            out=tmp_path / "audited", client=ScriptedClient(freelancer))

    def unknown_command_first(messages, tools):
        return calls("teleport --to moon") if len(messages) <= 2 else greedy_policy(messages, tools)

    capped = run_llm(RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=12)),
                     out=tmp_path / "capped", client=ScriptedClient(unknown_command_first))
    assert capped.terminal_detail is not None
    assert '"name":"?"' in (tmp_path / "capped" / "trajectory.jsonl").read_text()
    assert 0 == main(["verify", str(tmp_path / "audited"), str(tmp_path / "capped")])
    assert 2 == capsys.readouterr().out.count("replayed to the same bytes")


def test_a_refused_unknown_tool_is_left_out_but_counted(tmp_path):
    """A tool name that is no command is logged as ``?tool NAME``; it changed nothing, so only its count is compared."""

    def confused(world):
        world.execute_tool("teleport", {"to": "moon"}, driven=True)
        yield from noting(world)

    run_episode("startup", "default", confused, seed=1, out=tmp_path / "run")
    assert '"tool":"teleport"' in (tmp_path / "run" / "trajectory.jsonl").read_text()
    assert verify_run_dir(tmp_path / "run").ok
    file = tmp_path / "run" / "trajectory.jsonl"
    file.write_text("".join(line for line in file.read_text().splitlines(keepends=True) if '"tool":"teleport"' not in line))
    assert ["trajectory.jsonl records 0 refused unknown commands; the replay made 1"] == list(
        verify_run_dir(tmp_path / "run").problems)


def test_a_run_of_the_reference_bot_verifies(tmp_path):
    """greedy-reference acts through hidden commands (``bot take``); a replay of its log runs them too."""
    run_episode("startup", "reference", "greedy-reference", seed=1, out=tmp_path / "run")
    assert verify_run_dir(tmp_path / "run").ok


def test_damaged_files_are_differences_or_a_clear_error_never_a_crash(restarted):
    path, _ = restarted
    (path / "episodes" / "1" / "trajectory.jsonl").write_text("null\n[1, 2]\n")
    (path / "episodes" / "2" / "trajectory.jsonl").write_bytes(b"\xff\xfe")
    problems = verify_run_dir(path).problems
    assert any(p.startswith("episode 1: trajectory.jsonl line 1 differs") for p in problems)
    assert any(p.startswith("episode 2: trajectory.jsonl cannot be read") for p in problems)
    whole = json.loads((path / "result.json").read_text())
    (path / "result.json").write_text(json.dumps({**whole, "episodes": [3, 4, 5]}))
    with pytest.raises(ConfigError, match=r"result.json episodes\[0\]\(=3\) must be an object"):
        verify_run_dir(path)  # episodes that are not summaries: refused as every reader of result.json refuses them
    (path / "result.json").write_text(json.dumps({"world": "startup", "seed": 1, "preset": "default"}))
    with pytest.raises(ConfigError, match="result.json is missing benchmark_id, agent, terminal_reason, turns"):
        verify_run_dir(path)
    (path / "result.json").write_text("[]")
    with pytest.raises(ConfigError, match="result.json does not hold a JSON object"):
        verify_run_dir(path)


def test_a_config_that_is_not_the_named_preset_is_found(tmp_path):
    run_episode("startup", "default", "greedy", seed=1, out=tmp_path / "run")
    config = tmp_path / "run" / "config.toml"
    config.write_text(config.read_text().replace("initial_funds_cents = 20000000", "initial_funds_cents = 20000001"))
    assert any("config.toml is not preset 'default'" in p for p in verify_run_dir(tmp_path / "run").problems)


def test_writing_a_run_leaves_other_files_in_episodes_alone(tmp_path):
    mine = tmp_path / "run" / "episodes" / "notes.csv"
    mine.parent.mkdir(parents=True)
    mine.write_text("keep me")
    run_episode("startup", "default", "greedy", seed=1, out=tmp_path / "run")
    assert "keep me" == mine.read_text()


def test_loading_a_folder_of_run_directories_names_the_one_at_fault(tmp_path):
    """``load`` of a folder of run directories says which directory it could not rebuild."""
    from bizsim.simcore.errors import BizSimError

    for seed in (1, 2):
        run_episode("operation", "default", "threshold", seed=seed, out=tmp_path / f"run{seed}")
    log = tmp_path / "run2" / "commands.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    rows[3]["t_us"] += 1
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(BizSimError, match="run2"):
        load(tmp_path)


def test_a_line_appended_past_the_end_of_the_log_is_found(tmp_path):
    """Commands added to commands.jsonl after the episode's end replay as refusals the recording lacks: DIFFERS."""
    out = tmp_path / "run"
    run_episode("operation", "default", "threshold", seed=1, out=out)
    assert verify_run_dir(out).ok
    log = out / "commands.jsonl"
    end = json.loads((out / "trajectory.jsonl").read_text(encoding="utf-8").splitlines()[-1])["t_us"]
    with log.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"t_us": end, "line": "creator_incentive"}) + "\n")
    found = verify_run_dir(out)
    assert not found.ok and any("trajectory.jsonl" in p for p in found.problems), found.problems


@pytest.mark.parametrize("key, change", [
    ("final_funds_cents", lambda v: v + 1), ("metric_value", lambda v: v + 1),
    ("terminal_reason", lambda v: "horizon_end"), ("commands", lambda v: v - 1),
])
def test_an_edited_top_level_figure_of_a_restarted_run_is_found(restarted, key, change):
    """The top level of a multi-episode result.json repeats the last episode's figures: an edit there is found."""
    path, _ = restarted
    result = json.loads((path / "result.json").read_text())
    result[key] = change(result[key])
    (path / "result.json").write_text(json.dumps(result))
    found = verify_run_dir(path)
    assert not found.ok and any(key in p for p in found.problems), found.problems


def line_break_agent(world):
    """Sends command text holding the line breaks str.splitlines splits at (U+2028, U+0085, U+001C), then plays."""
    for odd in ("\u2028", "\x85", "\x1c", "\u2029"):
        world.execute(f"market browse --limit 1{odd}", driven=True)
        world.execute(f"scratchpad write --content 'a{odd}b'", driven=True)
    yield world.advance()


def surrogate_agent(world):
    """Sends lone surrogates in command lines and tool calls, accepted and refused ones, then plays."""
    world.execute("scratchpad write --content 'a\ud800b'")
    world.execute("market browse --limit 1\udfff")
    world.execute("teleport \ud800")
    world.execute_tool("scratchpad_append", {"content": "c\udc00"})
    world.execute_tool("scratchpad_append\ud800", {"content\ud800": 1})
    yield world.advance()


def test_lone_surrogates_in_commands_replay_as_they_ran(tmp_path):
    """A lone surrogate becomes U+FFFD before the world reads the line, so the log keeps the line that ran: its
    replay accepts and refuses the same commands (an escaped form replayed as another, accepted command)."""
    result = run_episode("startup", "default", surrogate_agent, seed=2, out=tmp_path / "run")
    assert "a\ufffdb" == result.final_world.scratchpad
    assert verify_run_dir(tmp_path / "run").ok
    log = [line for _, line in result.final_world.command_log()]
    assert "scratchpad write --content 'a\ufffdb'" in log and "teleport \ufffd" in log


def hidden_command_agent(world):
    """Types the reference bot's hidden shortcuts, which an agent is refused; then plays on."""
    world.execute("yc-bench bot wait")
    world.execute("bot take --task-id Task-10")
    yield world.advance()


def test_a_refused_hidden_command_replays_as_a_refusal(tmp_path):
    """The replay may run hidden commands (the built-in bots issue them), so the log marks the ones an agent was
    refused: replaying them refuses them again instead of running them, and verify passes."""
    result = run_episode("startup", "reference", hidden_command_agent, seed=1, out=tmp_path / "run")
    log = [line for _, line in result.final_world.command_log()]
    assert "?hidden yc-bench bot wait" in log and 0 == result.final_world.observation().get("active_tasks", 0)
    found = verify_run_dir(tmp_path / "run")
    assert found.ok, found.problems


def test_an_honest_run_with_odd_line_breaks_in_its_commands_verifies(tmp_path):
    """Records are split at \\n only: command text with U+2028-class characters does not break verify."""
    run_episode("startup", "default", line_break_agent, seed=2, out=tmp_path / "run")
    found = verify_run_dir(tmp_path / "run")
    assert found.ok, found.problems


def test_verify_takes_a_sweep_directory_and_replays_every_run_it_keeps(tmp_path):
    """``bizsim verify SWEEP`` replays each run directory a sweep kept; a sweep that kept none is told to use
    --run-dirs (exit 2)."""
    from bizsim.cli.main import main
    from bizsim.runs import grid, sweep

    sweep(grid("operation", "default", "threshold", "1-2"), tmp_path / "kept", backend="serial", progress=False,
          run_dirs=True)
    assert 0 == main(["verify", str(tmp_path / "kept")])
    sweep(grid("operation", "default", "threshold", "1"), tmp_path / "bare", backend="serial", progress=False)
    assert 2 == main(["verify", str(tmp_path / "bare")])
