"""The viewer's arena page: its data (a lane per seat, the messages and transfers between them) and, in a real
headless Chromium, what a person sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from bizsim.runs import RunSpec, execute
from bizsim.view import write_view
from bizsim.view.sources import load_view

from ._browser import browser_fixture, open_page

MESSAGE = "<b>Let us not undercut each other on water.</b>"


@pytest.fixture(scope="module")
def arena_run(tmp_path_factory) -> Path:
    """planner in seat 0; in seat 1 a seat that writes, pays and ships to seat 0 (tests._arena_agents:trader)."""
    out = tmp_path_factory.mktemp("arena") / "run"
    execute(RunSpec("vending-arena", "small", seed=1, roster=["planner", "tests._arena_agents:trader"]), out=out)
    return out


def test_the_page_data_has_a_lane_per_seat_and_every_message_and_transfer(arena_run):
    """Two lanes ranked by net worth; the message, the five dollars and the shipped unit, each from seat 1 to 0."""
    data = load_view(arena_run)
    assert "arena" == data["kind"] and [] == data["problems"]
    assert [(0, "planner", 1), (1, "tests._arena_agents:trader", 2)] == [
        (s["seat"], s["label"], s["rank"]) for s in data["seats"]]
    assert [("message", 1, 0), ("money", 1, 0), ("goods", 1, 0)] == [(l["kind"], l["from"], l["to"]) for l in data["links"]]
    assert MESSAGE == data["links"][0]["text"] and "$5.00 sent" == data["links"][1]["label"]
    assert any(m["name"] == "order_place" for m in data["seats"][1]["marks"])  # a marked decision on its lane


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module."""
    yield from browser_fixture()


def test_the_arena_page_draws_lanes_and_arrows_and_shows_a_message_as_text(browser, arena_run, tmp_path):
    """The page draws two lanes and three arrows; picking the message shows its text as text (no markup runs)."""
    page_file = write_view([arena_run], tmp_path / "arena.html")
    page = open_page(browser, page_file.as_uri(), height=1000)
    assert 2 == page.locator("#arena-standings tr[data-seat]").count()
    assert 3 == page.locator("#arena-lanes g.link").count()
    assert {"message", "money", "goods"} == {page.locator("#arena-lanes g.link").nth(k).get_attribute("data-kind")
                                             for k in range(3)}
    page.locator("#arena-links tr[data-kind=message]").click()
    detail = page.locator("#arena-detail")
    assert MESSAGE in detail.inner_text() and 0 == detail.locator("b").count()
    page.locator("#arena-lanes g.link[data-kind=goods]").dispatch_event("click")
    assert "goods: seat 1 → seat 0" in detail.inner_text()
    page.screenshot(path=str(tmp_path / "arena.png"), full_page=True)
    assert [] == page.errors


def test_an_edited_arena_directory_is_shown_with_its_problems_and_refused_by_verify(arena_run, tmp_path):
    """A result.json whose seats list was damaged: the page still draws the lanes and says what is wrong; verify
    names the damage (a ConfigError, never a traceback)."""
    import json
    import shutil

    from bizsim.runs.verify import verify_run_dir
    from bizsim.simcore.errors import ConfigError

    copy = tmp_path / "edited"
    shutil.copytree(arena_run, copy)
    data = json.loads((copy / "result.json").read_text())
    data["seats"] = [1, "x"]
    (copy / "result.json").write_text(json.dumps(data))
    page = load_view(copy)
    assert 2 == len(page["seats"]) and any("seats[0]" in p for p in page["problems"])
    with pytest.raises(ConfigError, match=r"seats\[0\]"):
        verify_run_dir(copy)


def test_an_absurd_transfer_amount_and_a_non_text_ending_detail_are_stated_not_a_traceback(arena_run, tmp_path):
    """An edited arena directory: a money event of 10**400 cents (no float holds it) and a seat whose ending detail
    is a list. The page still has both lanes and every link; the transfer's amount is not drawn and the problem is
    stated; the detail is left out of the ending words."""
    import json
    import shutil

    copy = tmp_path / "edited"
    shutil.copytree(arena_run, copy)
    lines = (copy / "trajectory.jsonl").read_text().splitlines()
    for i, line in enumerate(lines):
        row = json.loads(line)
        if row.get("name") == "money":
            row["data"]["amount_cents"] = 10**400
            lines[i] = json.dumps(row)
    (copy / "trajectory.jsonl").write_text("\n".join(lines) + "\n")
    data = json.loads((copy / "result.json").read_text())
    data["seats"][0]["terminal_detail"] = ["x"]
    (copy / "result.json").write_text(json.dumps(data))
    page = load_view(copy)
    assert 2 == len(page["seats"]) and page["seats"][0]["ending"]
    assert ["message", "money", "goods"] == [l["kind"] for l in page["links"]]
    assert "money sent" == page["links"][1]["label"]
    assert any("amount" in p and "trajectory.jsonl" in p for p in page["problems"])
    assert "x" not in str(page["seats"][0]["ending"]).split()


def test_the_page_dates_an_arena_run_from_its_own_start_date(tmp_path):
    """A preset that moves ``start_date`` moves the page's calendar: the start comes from the run's own
    ``config.toml``, not the default preset's (the page showed a 2025 date for a run that began in 2031)."""
    from bizsim.cli import main
    from bizsim.view.arena_data import arena_data

    preset = tmp_path / "my.toml"
    preset.write_text('extends = "small"\nstart_date = "2031-06-15"\nhorizon_days = 3\n')
    out = tmp_path / "run"
    assert 0 == main(["run", "vending-arena", "--preset", str(preset), "--seat", "markup", "--seat", "markup",
                      "--out", str(out), "--no-progress"])
    assert arena_data(out)["meta"]["start"].startswith("2031-06-15")
