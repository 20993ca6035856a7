"""The command line's flags: repeated options are never silently dropped, errors are one line, --version."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from bizsim.analysis import load
from bizsim.cli import main


def test_a_repeated_list_flag_adds_to_the_list(tmp_path, capsys):
    """`--agent greedy --agent planner` sweeps both agents: 2 agents x 2 seeds are 4 runs."""
    out = tmp_path / "s"
    assert 0 == main(["sweep", "--world", "startup", "--agent", "greedy", "--agent", "planner", "--seeds", "1-2",
                      "--out", str(out), "--backend", "serial", "--no-progress"])
    assert "4 runs: 4 run now" in capsys.readouterr().out
    assert ["greedy", "greedy", "planner", "planner"] == sorted(load(out).runs["agent"])


@pytest.mark.parametrize("argv, flag", [
    (["run", "startup", "--seed", "1", "--seed", "2"], "--seed"),
    (["run", "startup", "--preset", "easy", "--preset", "hard"], "--preset"),
    (["sweep", "--world", "startup", "--out", "a", "--out", "b"], "--out"),
])
def test_a_repeated_single_flag_is_refused_in_one_line(argv, flag, capsys):
    """A single-valued option given twice is exit 2 and one line naming it, before anything runs."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert 2 == stop.value.code and 1 == err.count("\n") and f"{flag} was given twice" in err


def test_parser_errors_are_one_line_and_version_answers(capsys):
    """A malformed value is one line that points at --help; --version names the installed version."""
    with pytest.raises(SystemExit) as stop:
        main(["run", "startup", "--seed", "abc"])
    err = capsys.readouterr().err
    assert 2 == stop.value.code
    assert "bizsim: error: argument --seed: invalid int value: 'abc' (see `bizsim run --help`)\n" == err
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.startswith("bizsim 0.")


def test_run_accepts_an_agent_of_your_own_from_the_current_directory(tmp_path):
    """`bizsim run startup --agent mymod:idle` finds ./mymod.py, as `bizsim sweep` does."""
    (tmp_path / "mymod.py").write_text(
        "def idle(world):\n    while not world.done:\n        yield world.advance()\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    script = os.path.join(os.path.dirname(sys.executable), "bizsim")  # the console script: no `-m` to add the cwd
    proc = subprocess.run([script, "run", "startup", "--agent", "mymod:idle", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert 0 == proc.returncode, proc.stderr
    assert '"agent": "mymod:idle"' in proc.stdout
