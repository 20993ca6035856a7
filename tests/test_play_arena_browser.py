"""``bizsim play`` on an arena: a person plays one seat in a real headless Chromium against built-in agents. The page
is the seat's own world page plus the arena (the seat, who plays the others, whose turn, the standings only at the
end); the run it records is the one the same lines make through the Python API, and it verifies and resumes."""

from __future__ import annotations

import json

import pytest
from bizsim.runs.live_arena import ArenaEpisode
from bizsim.runs.rundir import RunDir, read_record
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.errors import ConfigError
from bizsim.surfaces.play import PlaySession

from ._browser import browser_fixture, tab_fixture
from .test_play_browser import BAD, Player

pytestmark = pytest.mark.xdist_group("play_browser")

SHORT = {"horizon_days": 4}


@pytest.fixture(scope="module")
def browser():
    yield from browser_fixture()


@pytest.fixture(scope="module")
def tab(browser):
    """One tab at 1280x800 for the module."""
    yield from tab_fixture(browser)


def _seat_logs(root):
    run = RunDir(root)
    return [(seat.commands.read_text(), seat.trajectory.read_text()) for seat in run.seat_dirs()] + \
        [run.trajectory.read_text()]


def test_a_vending_arena_seat_by_clicks_equals_the_api_and_shows_the_standings_at_the_end(tab, tmp_path):
    """Seat 1 of three: the market view, a message with markup in it (shown as text), then every day's advance; the
    arena panel names the seats and hides the standings until the arena is over; the directory equals the API's
    run of the same lines, byte for byte, and verifies."""
    out = tmp_path / "run"
    roster = ["planner", "human", "markup"]
    player = Player(tab, PlaySession("vending-arena", "small", 2, out=out, player="ann", roster=roster,
                                     overrides=SHORT))
    page = player.page
    assert "seat 1" in page.inner_text("header .title strong")
    assert ["seat 0 planner", "seat 1 human (you)", "seat 2 markup"] == [
        " ".join(page.inner_text(f"#arena tr[data-seat='{k}']").split()) for k in range(3)]
    assert "your turn" in page.inner_text("#arena-turn") and page.locator("#standings").count() == 0
    player.click("market_view")
    assert "machines" in page.inner_text("#last")
    player.submit("message_send", to="0", text=BAD)
    assert "ran" in page.inner_text("#last h3") and BAD in page.inner_text("#log")
    for day in range(SHORT["horizon_days"]):
        player.advance(key=day % 2 == 0)
    page.wait_for_selector("body[data-done='1']")
    assert "the arena is over" in page.inner_text("#arena-turn")
    standings = page.inner_text("#standings")
    assert all(label in standings for label in ("planner", "human", "markup"))
    assert page.title() != "1"  # the markup in the message never ran
    player.close()
    lines = [json.loads(x)["line"] for x in RunDir(out).seat(1).commands.read_text().splitlines()]
    api = ArenaEpisode("vending-arena", "small", 2, roster=roster, overrides=SHORT, out=tmp_path / "api",
                       surface="play", agent="human")
    for line in lines:
        api.call_line(line)
    api.close()
    assert _seat_logs(out) == _seat_logs(tmp_path / "api")
    assert verify_run_dir(out).ok
    record = read_record(out)
    assert [s["agent"] for s in record.seats] == roster and record.live["surface"] == "play"


def test_a_startup_arena_seat_is_played_stopped_and_resumed(tab, tmp_path):
    """A company among two rivals: its own forms and the arena's (companies, a message to a rival); the session
    stops mid-year, the directory verifies, and --resume opens the page where it was."""
    out = tmp_path / "run"
    player = Player(tab, PlaySession("startup-arena", "default", 3, out=out, roster=["greedy", "random", "human"]))
    page = player.page
    assert "You play seat 2 of 3" in page.inner_text("#arena-turn")
    player.click("arena_companies")
    assert "BenchCo-A" in page.inner_text("#last")
    player.submit("message_send", to="0", text="truce on design tasks?")
    player.submit("market_browse", limit="3")
    player.close()
    player.server.session.close("the tab closed")
    assert verify_run_dir(out).ok and read_record(out).terminal_reason == "agent_stopped"
    resumed = Player(tab, PlaySession.resume(out))
    assert "earlier session" in resumed.page.inner_text("#log")
    resumed.click("company_status")
    assert resumed.server.session.episode.calls == 4
    resumed.close()
    resumed.server.session.close()
    assert verify_run_dir(out).ok


def test_an_arena_needs_its_seats_and_one_human():
    with pytest.raises(ConfigError, match="is an arena: give each seat"):
        PlaySession("vending-arena", "small", 1, out="unused")
    with pytest.raises(ConfigError, match="no seat of the roster is played from outside: give exactly one --seat human"):
        PlaySession("vending-arena", "small", 1, out="unused", roster=["planner", "markup"])
    with pytest.raises(ConfigError, match="a seat bizsim mcp plays"):
        PlaySession("vending-arena", "small", 1, out="unused", roster=["mcp", "markup"])


def test_the_command_line_plays_an_arena_seat_and_refuses_a_roster_without_one(tmp_path, capsys):
    from bizsim.cli.main import main

    assert 2 == main(["play", "vending-arena", "--seat", "planner", "--seat", "markup", "--no-browser",
                      "--out", str(tmp_path / "r")])
    assert "give exactly one --seat human" in capsys.readouterr().err
    assert 2 == main(["play", "--resume", str(tmp_path), "--seat", "human", "--no-browser"])
    assert "drop the world, --set and --seat" in capsys.readouterr().err


def test_a_resumed_arena_session_keeps_its_metric_history(tmp_path):
    out = tmp_path / "run"
    session = PlaySession("vending-arena", "small", 1, out=out, roster=["human", "markup"], overrides=SHORT)
    for _ in range(3):
        session.call("task_done", {})
    before = [point[0] for point in session.history]
    session.close()
    resumed = PlaySession.resume(out)
    assert [point[0] for point in resumed.history] == before and len(before) == 4
    resumed.close()
