"""``bizsim shell``: history and completion on a terminal, readable results, and a session recorded as a run."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bizsim.analysis.verify import verify_run_dir
from bizsim.cli.shell import _Completer, play, render
from bizsim.models.startup import StartupWorld


def test_a_long_listing_is_summarised_and_the_full_json_is_a_word_away():
    """A listing shows a few rows and says how many more; `json` prints the last result whole."""
    out: list[str] = []
    play("startup", "default", 1, as_json=False, lines=["market browse", "json", "quit"], write=out.append)
    summary, full = out[0], json.loads(out[1])
    assert "... " in summary and "more (type `json` for all)" in summary and len(summary.splitlines()) < 20
    assert len(full["tasks"]) > 8 and full["tasks"][0]["task_id"] in summary


def test_help_and_errors_read_as_text():
    """Help is its text, not JSON with escaped newlines; a refusal is two plain lines."""
    assert "\n" in render({"help": "a\nb"}, as_json=False) and "\\n" not in render({"help": "a\nb"}, as_json=False)
    assert "error: nope\nhint:  try" == render({"error": "nope", "hint": "try"}, as_json=False)


def test_completion_offers_commands_flags_and_the_ids_results_showed():
    """Tab completes a command's next word, its flags, and task ids the session has seen."""
    seen: set[str] = set()
    complete = _Completer(StartupWorld("default", 1), seen)
    assert {"accept", "assign", "assign-all"} <= set(complete.candidates("task a", "a"))
    assert ["market"] == complete.candidates("mar", "mar")
    assert ["--task-id"] == complete.candidates("task accept --t", "--t")
    assert [] == complete.candidates("task accept --task-id T", "T")  # no result has shown an id yet
    seen.update({"Task-10", "Task-8"})
    assert ["Task-10"] == complete.candidates("task accept --task-id Task-1", "Task-1")


def test_a_session_with_out_is_a_run_that_verify_replays(tmp_path: Path):
    """`--out` writes the session as a run directory of agent `human`; verify replays it to the same bytes."""
    lines = ["task accept --task-id Task-10", "task assign --task-id Task-10 --employees Emp_1,Emp_2",
             "task dispatch --task-id Task-10", "sim resume", "company status", "quit"]
    result = play("startup", "default", 1, out=str(tmp_path / "run"), lines=lines, write=lambda s: None)
    assert ("human", "agent_stopped", 1) == (result.agent, result.terminal_reason, result.turns)
    assert json.loads((tmp_path / "run" / "result.json").read_text())["agent"] == "human"
    report = verify_run_dir(tmp_path / "run")
    assert report.ok, report


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_the_up_arrow_recalls_the_last_line_on_a_terminal():
    """On a terminal the up arrow is history (readline), not an unknown command '\\x1b[A'."""
    leader, follower = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "bizsim.cli", "shell", "operation", "--seed", "1"],
                            stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    seen = b""

    def read_until(marker: bytes, timeout: float = 60.0) -> None:
        nonlocal seen
        end = time.monotonic() + timeout
        while marker not in seen and time.monotonic() < end:
            if select.select([leader], [], [], 0.5)[0]:
                try:
                    seen += os.read(leader, 65536)
                except OSError:
                    break
        assert marker in seen, seen[-2000:]

    try:
        read_until(b"]> ")
        os.write(leader, b"help --command task_done\r")
        read_until(b"task_done", 30)
        mark = len(seen)
        os.write(leader, b"\x1b[A\r")  # up arrow: the same help again
        read_until(b"]> ", 30)
        time.sleep(0.5)
        again = seen[mark:]
        while select.select([leader], [], [], 1.0)[0]:
            again += os.read(leader, 65536)
        assert b"Unknown command" not in again and again.count(b"task_done") >= 2, again
        os.write(leader, b"quit\r")
        assert 0 == proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
