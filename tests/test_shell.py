"""``bizsim shell`` as a person uses it: in a real pseudo-terminal, with history, Tab completion and readable answers."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import pytest

from bizsim.cli.shell_screen import Completer, render
from bizsim.simcore.driver import Driver
from bizsim.simcore.registry import world_spec

pty = pytest.importorskip("pty")


class Terminal:
    """A ``bizsim shell`` in a pseudo-terminal: what is typed, and what the screen shows."""

    def __init__(self, *args: str) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "TERM": "dumb", "COLUMNS": "120", "LINES": "40"}
        self.proc = subprocess.Popen([sys.executable, "-m", "bizsim.cli", "shell", *args], stdin=slave, stdout=slave,
                                     stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.screen = ""

    def type(self, keys: str, until: str, timeout: float = 30.0) -> str:
        """Send keystrokes; return what appears until ``until`` shows (beyond what was on screen before)."""
        start = len(self.screen)
        os.write(self.master, keys.encode())
        deadline = time.monotonic() + timeout
        while until not in self.screen[start:]:
            left = deadline - time.monotonic()
            assert left > 0, f"waited for {until!r}; the screen shows:\n{self.screen[start:][-2000:]}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    self.screen += os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:  # the shell exited
                    break
        return self.screen[start:]

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        finally:
            os.close(self.master)


def test_history_completion_and_readable_answers_in_a_terminal():
    """The up arrow repeats a command (it was `Unknown command '\\x1b[A'`), Tab completes a command and an id the
    world showed, help is text, a listing is a table cut to 15 rows, `json` prints the last answer whole."""
    term = Terminal("startup", "--seed", "1")
    try:
        term.type("", until="]> ")
        first = term.type("company status\r", until="]> ")
        assert "funds: $200,000.00" in first and "{" not in first
        again = term.type("\x1b[A\r", until="]> ")
        assert "funds: $200,000.00" in again and "Unknown command" not in again
        listing = term.type("market br\t--limit 20\r", until="]> ")
        assert "tasks (20)" in listing and "5 more rows" in listing and "Task-10" in listing
        whole = term.type("json\r", until="]> ")
        assert '"task_id": "Task-10"' in whole and whole.count('"task_id"') == 20
        # Tab twice lists the ids the world has shown; readline then shows the prompt and the line again.
        accepted = term.type("task accept --task-id Task-1\t\t", until="]> task accept --task-id Task-1")
        assert "Task-10" in accepted and "Task-119" in accepted
        term.type("\x15", until="")  # clear the line (Ctrl-U)
        helped = term.type("help\r", until="]> ")
        assert "market browse      Browse market tasks" in helped and "\\n" not in helped
        term.type("quit\r", until="")
    finally:
        assert 0 == term.close()


def test_answers_are_rendered_for_people():
    """Money in dollars under its plain name, errors in a line with their hint, nested tables in a line."""
    world = world_spec("startup").make("default", 1)
    driver = Driver(world)
    status = render(driver.send("company status"))
    assert "funds: $200,000.00" in status and "monthly_payroll: $38,005.03" in status
    assert "tasks: active 0, planned 0, completed 0, cancelled 0" in status
    assert "error: Task 'nope' not found.\n  hint: Use `market browse`" in render(driver.send("task accept --task-id nope"))


def test_completion_offers_commands_flags_and_seen_ids():
    world = world_spec("startup").make("default", 1)
    completer = Completer(world)
    assert ["market browse "] == completer.candidates("mar")
    assert "task accept " in completer.candidates("task a") and "task assign " in completer.candidates("task a")
    assert ["task accept --task-id "] == completer.candidates("task accept -")
    assert [] == completer.candidates("task accept --task-id T")
    completer.learn(Driver(world).send("market browse --limit 3"))
    assert 3 == len(completer.candidates("task accept --task-id Task-"))


def test_a_session_recorded_with_out_verifies_as_a_human_baseline(tmp_path):
    """`--out` records the typed commands as a run directory: verify replays it, load reads it, agent `human`."""
    import json

    from bizsim.runs.verify import verify_run_dir

    script = "company status\ntask accept --task-id Task-10\nno such thing\nsim resume\nquit\n"
    proc = subprocess.run([sys.executable, "-m", "bizsim.cli", "shell", "startup", "--seed", "1", "--out",
                           str(tmp_path / "me")], input=script, capture_output=True, text=True, timeout=60)
    assert 0 == proc.returncode, proc.stderr
    assert f"recorded in {tmp_path / 'me'}" in proc.stdout
    result = json.loads((tmp_path / "me" / "result.json").read_text())
    assert ("human", "shell") == (result["agent"], result["live"]["surface"])
    assert [{"name": "bizsim shell"}] == [{k: c[k] for k in ("name",)} for c in result["live"]["clients"]]
    found = verify_run_dir(tmp_path / "me")
    assert found.ok and 4 == found.commands, found.problems


def test_money_is_in_dollars_headers_are_whole_and_no_field_is_shown_twice(monkeypatch):
    """`sim resume`'s balance_delta and funds_after (cents under YC-Bench's names) and vending's dollar fields read
    as dollars; at 160 columns no header is cut (`reward_fu…` was); `money` beside `money_cents` is shown once."""
    monkeypatch.setenv("COLUMNS", "160")
    world = world_spec("startup").make("default", 1)
    driver = Driver(world)
    listing = render(driver.send("market browse --limit 3"), world.money_fields)
    header = next(line for line in listing.splitlines() if "task_id" in line)
    assert ["task_id", "client_name", "required_prestige", "required_trust", "reward_funds", "reward_prestige_delta",
            "skill_boost_pct", "requirements"] == header.split() and "…" not in listing
    for line in ("task accept --task-id Task-10", "task assign --task-id Task-10 --employees Emp_1",
                 "task dispatch --task-id Task-10"):
        driver.send(line)
    resumed = render(driver.send("sim resume"), world.money_fields)
    assert "balance_delta: -$38,005.03" in resumed and "$161,994.97" in resumed and "3800503" not in resumed
    vending = world_spec("vending").make("default", 1)
    state = render(Driver(vending).send("task_done"), vending.money_fields)
    assert "current_state: money $100.00, total_inventory_items 0" in state and state.count("money") == 1
    products = render(Driver(vending).send("products_research --query water"), vending.money_fields)
    assert "$1.92" in products
    monkeypatch.setenv("COLUMNS", "60")
    narrow = render(Driver(world_spec("startup").make("default", 1)).send("market browse --limit 3"))
    assert "…" not in narrow.splitlines()[4] and "columns not shown: " in narrow  # fewer columns, none cut


@pytest.mark.parametrize("columns", [60, 72, 80, 95, 100, 120, 140])
def test_the_last_visible_column_is_never_cut_at_the_terminal_edge(monkeypatch, columns):
    """At every width the header names each column shown whole (at 80 columns `reward_funds` read `reward_fun`), and
    no line is wider than the terminal."""
    monkeypatch.setenv("COLUMNS", str(columns))
    world = world_spec("startup").make("default", 1)
    listing = render(Driver(world).send("market browse --limit 3"), world.money_fields)
    lines = listing.splitlines()
    header = next(line for line in lines if "task_id" in line)
    names = {"task_id", "client_name", "required_prestige", "required_trust", "reward_funds", "reward_prestige_delta",
             "skill_boost_pct", "requirements"}
    assert set(header.split()) <= names
    assert max(len(line) for line in lines[:lines.index(header) + 5]) <= columns
