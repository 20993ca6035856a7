"""A live episode played from outside: each call recorded as it happens, the directory verifiable at any moment."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from bizsim.runs import run_episode
from bizsim.runs.live import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, Budgets, Episode
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_CALL_CHARS

from ._greedy_client import argv_of, play_greedy

GREEDY_SEED_1_CENTS = 42_029_521  # bizsim's own greedy run, startup preset default, seed 1


def _tool(episode):
    return lambda command, arguments: episode.call_tool(command.replace(" ", "_"), arguments).result


def test_greedy_through_tool_calls_ends_as_bizsims_greedy_and_verifies(tmp_path):
    """The greedy policy as an outside client of tool calls ends the year with the native greedy's funds."""
    native = run_episode("startup", "default", "greedy", 1)
    with Episode("startup", "default", 1, out=tmp_path / "run", surface="test") as episode:
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
    episode = Episode("startup", "default", 1, out=tmp_path / "run")
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
        from bizsim.runs.live import Episode
        ep = Episode("startup", "default", 1, out={str(run)!r})
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
    with Episode("startup", "default", 1, out=run, overwrite=True) as again:  # the dead process's lock is gone
        assert EXIT_OK == again.call_line("company status").status


def test_a_second_episode_on_an_open_directory_is_refused(tmp_path):
    """Two live episodes never record into one directory, even with overwrite."""
    with Episode("startup", "default", 1, out=tmp_path / "run"), pytest.raises(
            ConfigError, match="recording a live episode already"):
        Episode("startup", "default", 1, out=tmp_path / "run", overwrite=True)
    with pytest.raises(ConfigError, match="already holds a run"):
        Episode("startup", "default", 1, out=tmp_path / "run")


def test_exit_statuses_are_the_reference_clis(tmp_path):
    """0 ran, 1 the world refused it, 2 nothing ran (usage); help answers without running anything."""
    with Episode("startup", "default", 1, out=tmp_path / "run") as episode:
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
    with Episode("startup", "default", 1, out=tmp_path / "run") as episode:
        for outcome in (
            episode.call_line("scratchpad write --content " + "x" * MAX_CALL_CHARS),
            episode.call_line(None), episode.call_line(b"company status"), episode.call_argv("company status"),
            episode.call_tool("scratchpad_write", '{"content": "' + "y" * MAX_CALL_CHARS + '"}'),
            episode.call_tool("scratchpad_write", "{"), episode.call_tool("scratchpad_write", "[" * 100 + "]" * 100),
            episode.call_tool("scratchpad_write", ["content"]), episode.call_tool(None, {}),
        ):
            assert (EXIT_USAGE, True) == (outcome.status, "error" in outcome.result)
        assert "" == episode.call_line("scratchpad read").result["content"]
        # Lone surrogates (undecodable argv bytes, JSON escapes) reach the world as U+FFFD, so the log can hold them.
        assert "a\ufffdb" == episode.call_argv(["scratchpad", "write", "--content", "a\udcffb"]).result["content"]
        assert "\ufffd" == episode.call_tool("scratchpad_write", '{"content": "\\ud800"}').result["content"]
        episode.set_client("x" * 10_000, "\udcff")
        live = episode.result()["live"]
    assert (9, 200) == (live["calls_not_run"], len(live["clients"][0]["name"]))
    assert verify_run_dir(tmp_path / "run").ok


def test_budgets_end_the_episode_as_the_llm_harness_does(tmp_path):
    """A budget reached aborts the world with the budget's name; later calls are refused and not recorded."""
    with Episode("startup", "default", 1, out=tmp_path / "a", budgets=Budgets(max_turns=2)) as episode:
        assert not episode.call_line("company status").done
        assert episode.call_line("company status").done
        assert EXIT_USAGE == episode.call_line("company status").status
        result = episode.result()
    assert ("error", "max_turns", 2, 2) == (result["terminal_reason"], result["terminal_detail"], result["commands"],
                                            result["turns"])  # the refused call after the end is not counted
    with Episode("startup", "default", 1, out=tmp_path / "b", budgets=Budgets(max_cost_usd=0.5)) as episode:
        episode.report_usage(100, 20, cost_usd=0.25)
        assert not episode.done
        episode.report_usage(100, 20, cost_usd=0.25)
        assert ("max_cost_usd", 240) == (episode.result()["terminal_detail"], episode.result()["live"]["usage"][
            "prompt_tokens"] + episode.result()["live"]["usage"]["completion_tokens"])
    for path in ("a", "b"):
        assert verify_run_dir(tmp_path / path).ok
    with pytest.raises(ConfigError, match="max_turns"):
        Budgets(max_turns=0)


@pytest.mark.parametrize(("last", "logged"), [("task accept --help", 1), (None, 1), ("not-a-command", 2)])
def test_a_budget_ended_by_a_call_that_ran_nothing_is_written_whole(tmp_path, last, logged):
    """The call that reaches max_turns may be help text or refused before the world: the world's end is on disk."""
    with Episode("startup", "default", 1, out=tmp_path / "run", budgets=Budgets(max_turns=2)) as episode:
        episode.call_line("company status")
        assert episode.call_line(last).done
        on_disk = (tmp_path / "run" / "trajectory.jsonl").read_text()
        assert episode.world.trajectory.to_jsonl() == on_disk
    assert '"episode_end"' in on_disk.splitlines()[-1]
    found = verify_run_dir(tmp_path / "run")
    assert (True, logged) == (found.ok, found.commands), found.problems  # the world logs an unknown command


def test_reported_usage_is_checked_and_clients_are_counted_once(tmp_path):
    """Usage that is not a count or a finite cost is refused whole; a client past the recorded ones counts once."""
    with Episode("startup", "default", 1, out=tmp_path / "run") as episode:
        for bad in ({"prompt_tokens": -1}, {"completion_tokens": 1.5}, {"prompt_tokens": True},
                    {"prompt_tokens": 10**13}, {"cost_usd": float("inf")}, {"cost_usd": float("nan")},
                    {"cost_usd": -0.01}, {"cost_usd": "1"}, {"prompt_tokens": 5, "cost_usd": float("inf")}):
            with pytest.raises(ConfigError, match="prompt_tokens|completion_tokens|cost_usd"):
                episode.report_usage(**bad)
        episode.report_usage(7, 3, cost_usd=1)
        for n in range(20):
            for _ in range(3):  # a client sends many requests
                episode.set_client(f"agent-{n}", "1.0")
        live = episode.result()["live"]
    assert ({"prompt_tokens": 7, "completion_tokens": 3, "cost_usd": 1.0}, 16, 4) == (
        live["usage"], len(live["clients"]), live["other_clients"])
    text = (tmp_path / "run" / "result.json").read_text()
    assert "Infinity" not in text and "NaN" not in text


def test_overrides_and_every_registered_world(tmp_path):
    """Any registered world opens with overrides; its advance command is among its tools; the run verifies."""
    from bizsim.simcore.registry import registered

    with Episode("startup", "default", 2, out=tmp_path / "s", overrides={"initial_funds_cents": 123_456},
                 metadata={"sample": 1}) as ep:
        assert 123_456 == ep.call_line("company status").result["funds_cents"]
        assert "custom" == ep.result()["preset"]
        ep.add_metadata(log="eval.json")
        with pytest.raises(ConfigError, match="JSON data"):
            ep.add_metadata(bad=object())
    assert {"sample": 1, "log": "eval.json"} == json.loads((tmp_path / "s" / "result.json").read_text())["live"][
        "metadata"]
    assert verify_run_dir(tmp_path / "s").ok
    for name in registered():
        with Episode(name, "default", 3, out=tmp_path / name) as episode:
            assert episode.advance_command.replace(" ", "_") in [t["function"]["name"] for t in episode.tools()]
            assert episode.system_prompt() and episode.advance_command in episode.rules()
            for _ in range(3):
                episode.call_tool(episode.advance_command.replace(" ", "_"), {})
        assert verify_run_dir(tmp_path / name).ok, name


def test_the_command_line_stays_lazy(tmp_path):
    """`bizsim --help` and a baseline run load no MCP SDK, web server or live-episode code; `bizsim do` no world."""
    from .test_cli_imports import _modules_after

    surfaces = ("mcp", "uvicorn", "starlette", "anyio", "bizsim.runs.live", "bizsim.surfaces.mcp_server",
                "bizsim.surfaces.shell_session")
    for argv in (["--help"], ["run", "startup", "--agent", "greedy", "--out", str(tmp_path / "r")]):
        loaded = _modules_after(
            "import contextlib, io\nfrom bizsim.cli import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n    main({argv!r})")
        assert [] == [m for m in loaded if m.startswith(surfaces)], argv
    loaded = _modules_after(
        "import contextlib, io\nfrom bizsim.cli import main\n"
        "with contextlib.redirect_stderr(io.StringIO()):\n"
        f"    main(['do', '--run', {str(tmp_path)!r}, 'company status'])")
    assert [] == [m for m in loaded if m.startswith(("simpy", "numpy", "bizsim.models", "bizsim.analysis", *surfaces))]


def test_command_line_options_of_the_live_surfaces(tmp_path, capsys):
    """--set nests dotted keys and reads JSON; a bad world, seed or pair is one error line and exit status 2."""
    from bizsim.cli import main
    from bizsim.cli.live import _overrides

    assert {"a": {"b": 3, "c": "x"}, "d": [1]} == _overrides(["a.b=3", "a.c=x", "d=[1]"])
    for argv, message in (
        (["mcp", "nosuchworld", "--out", str(tmp_path / "a")], "unknown world"),
        (["serve", "startup", "--seed", "-1", "--out", str(tmp_path / "b")], "--seed: -1 is not from 0"),
        (["serve", "startup", "--set", "novalue", "--out", str(tmp_path / "c")], "must look like KEY=VALUE"),
        (["shim", str(tmp_path / "bin"), "--run", str(tmp_path), "--name", "../x"], "plain file name"),
        (["mcp", "startup", "--http", "1", "--idle-timeout", "0", "--out", str(tmp_path / "d")],
         "--idle-timeout: '0' is not a finite number above 0"),
        (["mcp", "startup", "--idle-timeout", "nan", "--out", str(tmp_path / "d")], "--idle-timeout: 'nan' is not"),
    ):
        try:
            code = main(argv)
        except SystemExit as exc:  # the parser's own range checks
            code = exc.code
        assert 2 == code
        assert message in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists() and not (tmp_path / "d").exists()


def test_a_swapped_file_shows_each_version_whole_and_closes_to_an_ordinary_file(tmp_path):
    """Each write replaces the file at once (its two hidden halves take turns); close leaves one plain file."""
    import doctest

    import bizsim.runs.live
    from bizsim.simcore.files import SwappedFile

    target = tmp_path / "result.json"
    swapped = SwappedFile(target)
    for text in ("{}\n", '{"a": 1}\n', "[]\n"):
        swapped.write(text)
        assert text == target.read_text()
    assert 2 == os.stat(target).st_nlink  # one of the hidden halves is the same file
    swapped.close('{"final": true}\n')
    assert ('{"final": true}\n', 1, ["result.json"]) == (
        target.read_text(), os.stat(target).st_nlink, [p.name for p in tmp_path.iterdir()])
    assert 0 == doctest.testmod(bizsim.runs.live).failed


def test_a_resumed_episode_keeps_its_budgets_and_reported_usage(tmp_path):
    """Resuming continues the run as it was: the calls, the usage the client reported and the budgets carry on, so
    a budget cannot be escaped by stopping the server and resuming."""
    from bizsim.runs.budgets import Budgets
    from bizsim.runs.live import Episode

    with Episode("startup", "default", 1, out=tmp_path, surface="doc", budgets=Budgets(max_turns=4)) as ep:
        ep.call_line("company status")
        ep.report_usage(prompt_tokens=10, completion_tokens=5, cost_usd=0.5)
    again = Episode.resume(tmp_path, surface="doc")
    try:
        assert (1, 10, 5, 0.5, 4) == (again.calls, again.prompt_tokens, again.completion_tokens, again.cost_usd,
                                      again.max_turns)
        for _ in range(3):
            again.call_line("company status")
        assert again.done and "max_turns" == again.world.terminal_detail
    finally:
        again.close()


def test_a_resume_never_writes_through_a_link_planted_at_a_log(tmp_path):
    """A run directory may come from anyone: a link at trajectory.jsonl (a log a resume does not read) must not make
    the resumed run write into the file it points to; the link is replaced by the run's own log."""
    from bizsim.simcore.jsonl import JsonlWriter

    out, victim = tmp_path / "run", tmp_path / "victim.txt"
    ep = Episode("vending", "small", 1, out=out, surface="mcp")
    ep.call_line("task_done")
    ep.close("stop")
    victim.write_text("precious\n")
    (out / "trajectory.jsonl").unlink()
    (out / "trajectory.jsonl").symlink_to(victim)
    again = Episode.resume(out, surface="mcp")
    again.call_line("task_done")
    again.close()
    assert "precious\n" == victim.read_text()
    assert not (out / "trajectory.jsonl").is_symlink() and verify_run_dir(out).ok
    # appended to (a model run's call log on --resume), a link is refused, not followed or cut
    (tmp_path / "calls.jsonl").symlink_to(victim)
    with pytest.raises(ConfigError, match="symbolic link"):
        JsonlWriter(tmp_path / "calls.jsonl")
    assert "precious\n" == victim.read_text()
