"""A live episode played from outside: each call recorded as it happens, the directory verifiable at any moment."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from bizsim.analysis import run_episode
from bizsim.analysis.live import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, Budgets, LiveEpisode
from bizsim.analysis.verify import verify_run_dir
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_CALL_CHARS

from ._greedy_client import argv_of, play_greedy

GREEDY_SEED_1_CENTS = 42_029_521  # bizsim's own greedy run, startup preset default, seed 1


def _tool(episode):
    return lambda command, arguments: episode.call_tool(command.replace(" ", "_"), arguments).result


def test_greedy_through_tool_calls_ends_as_bizsims_greedy_and_verifies(tmp_path):
    """The greedy policy as an outside client of tool calls ends the year with the native greedy's funds."""
    native = run_episode("startup", "default", "greedy", 1)
    with LiveEpisode("startup", "default", 1, out=tmp_path / "run", surface="test") as episode:
        play_greedy(_tool(episode))
        assert episode.done
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert (GREEDY_SEED_1_CENTS, "horizon_end") == (native.final_funds_cents, native.terminal_reason)
    assert (GREEDY_SEED_1_CENTS, "horizon_end", native.commands) == (
        result["final_funds_cents"], result["terminal_reason"], result["commands"])
    assert native.trajectory.to_jsonl() == (tmp_path / "run" / "trajectory.jsonl").read_text()
    assert verify_run_dir(tmp_path / "run").ok
    assert ["commands.jsonl", "config.toml", "live.lock", "result.json", "trajectory.jsonl"] == sorted(
        p.name for p in (tmp_path / "run").iterdir())


def test_the_directory_verifies_after_every_call(tmp_path):
    """Mid-episode, after each answered call, the directory is a complete run up to that call."""
    episode = LiveEpisode("startup", "default", 1, out=tmp_path / "run")
    lines = ["employee list", "market browse --limit 1", "sim resume", "help task accept", "company status"]
    for n, line in enumerate(lines, 1):
        episode.call_line(line)
        found = verify_run_dir(tmp_path / "run")
        assert (True, n) == (found.ok, found.commands), found.problems
    assert "agent_stopped" == json.loads((tmp_path / "run" / "result.json").read_text())["terminal_reason"]
    episode.close("client disconnected")
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert ("client disconnected", False) == (result["terminal_detail"], result["live"]["open"])
    assert verify_run_dir(tmp_path / "run").ok


def test_a_killed_process_leaves_a_verifiable_directory(tmp_path):
    """SIGKILL between calls: what was answered is on disk, and `verify` passes on it."""
    run = tmp_path / "run"
    code = textwrap.dedent(f"""
        import sys
        from bizsim.analysis.live import LiveEpisode
        ep = LiveEpisode("startup", "default", 1, out={str(run)!r})
        for line in ["market browse --limit 1", "employee list", "company status"]:
            ep.call_line(line)
        print("answered", flush=True)
        sys.stdin.read()
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert "answered\n" == proc.stdout.readline()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    found = verify_run_dir(run)
    assert (True, 3) == (found.ok, found.commands), found.problems
    with LiveEpisode("startup", "default", 1, out=run, overwrite=True) as again:  # the dead process's lock is gone
        assert EXIT_OK == again.call_line("company status").status


def test_a_second_episode_on_an_open_directory_is_refused(tmp_path):
    """Two live episodes never record into one directory, even with overwrite."""
    with LiveEpisode("startup", "default", 1, out=tmp_path / "run"):
        with pytest.raises(ConfigError, match="recording a live episode already"):
            LiveEpisode("startup", "default", 1, out=tmp_path / "run", overwrite=True)
    with pytest.raises(ConfigError, match="already holds a run"):
        LiveEpisode("startup", "default", 1, out=tmp_path / "run")


def test_exit_statuses_are_the_reference_clis(tmp_path):
    """0 ran, 1 the world refused it, 2 nothing ran (usage); help answers without running anything."""
    with LiveEpisode("startup", "default", 1, out=tmp_path / "run") as episode:
        assert EXIT_OK == episode.call_argv(argv_of("market browse", {"limit": 2})).status
        assert EXIT_REFUSED == episode.call_line("yc-bench task accept --task-id Task-404").status
        assert EXIT_USAGE == episode.call_line("task accept --task-id").status
        assert EXIT_USAGE == episode.call_line("bot wait").status  # a built-in agent's hidden command
        assert EXIT_USAGE == episode.call_tool("bot_take", {"task_id": "x"}).status
        assert EXIT_USAGE == episode.call_tool("no_such_tool", {}).status
        assert EXIT_USAGE == episode.call_tool("task_accept", {"task_id": 3, "extra": 1}).status
        helped = episode.call_line("yc-bench task accept --help")
        assert (EXIT_OK, True) == (helped.status, helped.result["help"].startswith("task accept --task-id"))
        commands = episode.result()["commands"]
    assert 5 == commands  # the two hidden commands never reached the world; help is no command
    assert verify_run_dir(tmp_path / "run").ok


def test_hostile_calls_are_refused_without_changing_the_run(tmp_path):
    """Oversized, non-text, undecodable and too deeply nested calls answer an error and change nothing."""
    with LiveEpisode("startup", "default", 1, out=tmp_path / "run") as episode:
        for outcome in (
            episode.call_line("scratchpad write --content " + "x" * MAX_CALL_CHARS),
            episode.call_line(None), episode.call_line(b"company status"), episode.call_argv("company status"),
            episode.call_tool("scratchpad_write", '{"content": "' + "y" * MAX_CALL_CHARS + '"}'),
            episode.call_tool("scratchpad_write", "{"), episode.call_tool("scratchpad_write", "[" * 100 + "]" * 100),
            episode.call_tool("scratchpad_write", ["content"]), episode.call_tool(None, {}),
        ):
            assert (EXIT_USAGE, True) == (outcome.status, "error" in outcome.result)
        assert "" == episode.call_line("scratchpad read").result["content"]
        episode.set_client("x" * 10_000, "\udcff")
        live = episode.result()["live"]
    assert (9, 200) == (live["calls_not_run"], len(live["clients"][0]["name"]))
    assert verify_run_dir(tmp_path / "run").ok


def test_budgets_end_the_episode_as_the_llm_harness_does(tmp_path):
    """A budget reached aborts the world with the budget's name; later calls are refused and not recorded."""
    with LiveEpisode("startup", "default", 1, out=tmp_path / "a", budgets=Budgets(max_turns=2)) as episode:
        assert not episode.call_line("company status").done
        assert episode.call_line("company status").done
        assert EXIT_USAGE == episode.call_line("company status").status
        result = episode.result()
    assert ("error", "max_turns", 2) == (result["terminal_reason"], result["terminal_detail"], result["commands"])
    with LiveEpisode("startup", "default", 1, out=tmp_path / "b", budgets=Budgets(max_cost_usd=0.5)) as episode:
        episode.report_usage(100, 20, cost_usd=0.25)
        assert not episode.done
        episode.report_usage(100, 20, cost_usd=0.25)
        assert ("max_cost_usd", 240) == (episode.result()["terminal_detail"], episode.result()["live"]["usage"][
            "prompt_tokens"] + episode.result()["live"]["usage"]["completion_tokens"])
    for path in ("a", "b"):
        assert verify_run_dir(tmp_path / path).ok
    with pytest.raises(ConfigError, match="max_turns"):
        Budgets(max_turns=0)


def test_overrides_and_every_registered_world(tmp_path):
    """Any registered world opens with overrides; its advance command is among its tools; the run verifies."""
    from bizsim.simcore.registry import registered

    with LiveEpisode("startup", "default", 2, out=tmp_path / "s", overrides={"initial_funds_cents": 123_456}) as ep:
        assert 123_456 == ep.call_line("company status").result["funds_cents"]
        assert "custom" == ep.result()["preset"]
    assert verify_run_dir(tmp_path / "s").ok
    for name in registered():
        with LiveEpisode(name, "default", 3, out=tmp_path / name) as episode:
            assert episode.advance_command.replace(" ", "_") in [t["function"]["name"] for t in episode.tools()]
            assert episode.system_prompt() and episode.advance_command in episode.rules()
            for _ in range(3):
                episode.call_tool(episode.advance_command.replace(" ", "_"), {})
        assert verify_run_dir(tmp_path / name).ok, name
