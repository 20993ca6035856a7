"""What a newcomer reads on the viewer's pages, in a real headless Chromium: one colour per kind of event on
every page, marks and lists that say which run they belong to, search that moves the page with it."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

pytest.importorskip("playwright")
from bizsim.analysis.labels import KIND_COLORS, kind_color
from bizsim.view import write_view
from bizsim.view.page import render
from bizsim.view.run_data import run_data

from ._browser import browser_fixture, legend_colours, open_page, rgb
from ._view_runs import baseline_run

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("viewer_reading")


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module."""
    yield from browser_fixture()


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Startup seed 1 played by the greedy agent and by the planner."""
    root = tmp_path_factory.mktemp("reading")
    return {"greedy": baseline_run(root / "greedy"), "planner": baseline_run(root / "planner", agent="planner")}


@pytest.fixture(scope="module")
def planner_page(runs, tmp_path_factory) -> Path:
    """The planner's page, written once for the tests that only read it."""
    return write_view([runs["planner"]], tmp_path_factory.mktemp("planner-page") / "planner.html")


@pytest.fixture(scope="module")
def planner_data(runs) -> dict:
    """The viewer's data of the planner's run."""
    return run_data(runs["planner"])


def test_a_kind_of_event_has_one_colour_on_the_run_and_the_compare_page(browser, runs, planner_page, tmp_path):
    """`task accept`, `task completed` and the rest: the colour of labels.KIND_COLORS on one run's page and on the
    side-by-side page, whatever other kinds each page holds."""
    one = open_page(browser, planner_page.as_uri())
    two = open_page(browser, write_view([runs["greedy"], runs["planner"]], tmp_path / "two.html").as_uri())
    on_one, on_two = legend_colours(one), legend_colours(two)
    assert {"task accept", "task completed", "monthly payroll", "task cancel"} <= set(on_one)
    for kind in ("task accept", "task completed", "monthly payroll", "task cancel", "horizon end"):
        assert rgb(KIND_COLORS[kind]) == on_one[kind] == on_two[kind], kind
    assert rgb("#222222") == on_two["task completed (failed)"]
    one.screenshot(path=str(tmp_path / "one.png"))
    assert [] == one.errors == two.errors


def test_a_kind_the_table_lacks_keeps_the_colour_python_gives_it(browser, runs, tmp_path):
    """A third-party world's kinds: the page's colour is labels.kind_color's (the same hash in both languages)."""
    data = run_data(runs["greedy"])
    names = ["harvest_in", "ünïcode event", "a" * 60, "storm (failed)"]
    data["markers"] = [{"t": 3600_000_000 * (k + 1), "kind": "event", "name": n, "label": n, "turn": 0}
                       for k, n in enumerate(names)]
    path = tmp_path / "custom.html"
    path.write_text(render(data, title="custom"), encoding="utf-8")
    page = open_page(browser, path.as_uri())
    shown = legend_colours(page)
    assert {n.replace("_", " "): rgb(kind_color(n)) for n in names} == shown
    assert len({kind_color(n) for n in names[:3]}) > 1  # the fallback spreads kinds over its colours
    assert [] == page.errors


def _still_run(out: Path) -> Path:
    """An LLM run whose model only ever reads the company's status: simulated time never moves."""
    from bizsim.agents.llm import ScriptedClient, reply
    from bizsim.runs.llm_run import run_llm
    from bizsim.runs.runspec import RunSpec

    spec = RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 5})
    run_llm(spec, out=out, client=ScriptedClient([reply("yc-bench company status")] * 5))
    return out


def test_a_run_whose_time_never_moved_has_one_date_and_ends_in_its_last_turn(browser, tmp_path):
    """One tick, no seven "Jan 1"; the axis says time never moved; the end mark opens the last turn; the ending
    names the cap that stopped it."""
    run = _still_run(tmp_path / "still")
    data = run_data(run, requests=False)
    assert 5 == len(data["turns"]) and {0} == {t["t"] for t in data["turns"]}
    [end] = [m for m in data["markers"] if m["name"] == "episode_end"]
    assert 4 == end["turn"]
    page = open_page(browser, write_view([run], tmp_path / "still.html").as_uri())
    assert "stopped by its turn cap (max_turns), as asked" == page.inner_text("header .badge").lower()
    ticks = page.locator("#chart .axis text").all_text_contents()
    assert 1 == sum(1 for t in ticks if t.startswith("Jan 1")) and any("never moved" in t for t in ticks)
    page.click("rect.mk")
    assert page.inner_text("#turn-title").startswith("Turn 5 ·")
    page.screenshot(path=str(tmp_path / "still.png"))
    assert [] == page.errors


def test_compare_marks_say_whose_they_are_and_lists_lead_with_decisions(browser, runs, tmp_path):
    """The side-by-side page labels its lanes of marks A and B; a planner's turn names its decisions first."""
    page = open_page(browser, write_view([runs["planner"], runs["greedy"]], tmp_path / "two.html").as_uri())
    assert ["A marks", "B marks"] == [t.split("…")[0] for t in page.locator("#chart text.lane").evaluate_all("es => es.map(e => e.firstChild.textContent)")]
    first = page.inner_text("#side-0 .list .row[data-i='0']")
    assert re.search(r"Jan 1\s*task accept ×\d+, task cancel ×2, ", first), first
    title = page.locator("#side-0 .list .row[data-i='0']").get_attribute("title")
    assert "company status" in title and "task accept" in title  # the whole summary, on hover
    page.screenshot(path=str(tmp_path / "two.png"))
    assert [] == page.errors


def test_search_finds_the_date_the_list_shows_and_the_detail_follows(browser, planner_page, planner_data):
    """"Jul 9" (as the list writes dates) finds the turns of that day; the detail moves to the first turn found."""
    page = open_page(browser, planner_page.as_uri())
    data = planner_data
    start = datetime.fromisoformat(data["meta"]["start"])
    on_day = [i for i, t in enumerate(data["turns"]) if (start + timedelta(microseconds=t["t"])).date() == date(2025, 7, 9)]
    assert on_day, "seed 1's planner has turns on Jul 9"
    assert page.inner_text("#turn-title").startswith("Turn 1 ·")
    page.fill("#search", "Jul 9")
    page.wait_for_function(f"() => document.querySelector('.tools .count').textContent.startsWith('{len(on_day)} of')")
    rows = page.locator(".list .row")
    assert [str(i) for i in on_day] == [rows.nth(k).get_attribute("data-i") for k in range(rows.count())]
    assert page.inner_text("#turn-title").startswith(f"Turn {on_day[0] + 1} · 2025-07-09")
    assert page.locator(f".list .row.sel[data-i='{on_day[0]}']").count() == 1
    assert [] == page.errors


def test_an_ecogym_turn_shows_its_days_report_and_counts_days_as_the_world_does(browser, tmp_path):
    """The day's report is the advance command's result, its summary line on top and nothing folded; the first
    turn is day 0, as the world's first report (current_day 1, when day 0 ends) counts."""
    from bizsim.cli.main import main

    run = tmp_path / "vending"
    assert 0 == main(["run", "vending", "--agent", "planner", "--preset", "small", "--seed", "1", "--out", str(run),
                      "--json", "--no-progress"])
    data = run_data(run)
    first = data["turns"][0]
    advance = first["commands"][-1]
    assert ("task_done", True, 1) == (advance["name"], advance["advance"], first["stop"]["current_day"])
    page = open_page(browser, write_view([run], tmp_path / "vending.html").as_uri())
    assert page.inner_text("#turn-title").startswith("Turn 1 · day 0 · ")
    last = page.locator(".detail .cmd").last
    assert "task_done" == last.locator(".line").first.inner_text()
    assert first["stop"]["summary"] == last.locator(".line.report").inner_text()
    assert '"current_day": 1' in last.locator("pre").inner_text()
    assert "(no result)" not in page.inner_text(".detail") and 0 == page.locator(".detail details").count()
    page.click(".list .row[data-i='3']")
    assert page.inner_text("#turn-title").startswith("Turn 4 · day 3 · ")
    assert [] == page.errors


def test_a_planner_years_page_writes_a_listed_object_once_and_shows_it_whole(browser, runs, planner_page,
                                                                            planner_data):
    """The startup planner browses the market ~300 times a year: each task it lists is written once (the page was
    10.6 MB, 9.5 of it repeated tasks), and a turn's result reads exactly as the world answered it."""
    path = planner_page
    assert path.stat().st_size < 4_000_000
    rows = [json.loads(line) for line in (runs["planner"] / "trajectory.jsonl").read_text().splitlines()]
    browses = [r for r in rows if r["kind"] == "cmd" and r["name"] == "market browse"]
    data = planner_data
    k = next(i for i, t in enumerate(data["turns"]) if i > 3 and any(c["name"] == "market browse" for c in t["commands"]))
    before = sum(1 for t in data["turns"][:k] for c in t["commands"] if c["name"] == "market browse")
    page = open_page(browser, path.as_uri())
    page.click(".list .row[data-i='0']")
    page.locator(".list").evaluate(f"e => e.scrollTop = {k} * 30")
    page.click(f".list .row[data-i='{k}']")
    box = page.locator(".detail .cmd", has=page.locator(".line", has_text="market browse")).first
    box.locator("summary").click()
    assert browses[before]["data"]["result"] == json.loads(box.locator("pre").inner_text())
    assert [] == page.errors


def test_a_sweep_groups_interval_stays_within_what_its_seeds_did():
    """The sweep page's (and `bizsim sweep`'s) interval of a group's mean is the report's percentile bootstrap: a
    group whose seeds went $0, $0 and $10,000 gets an interval inside [$0, $10,000], never below $0 as a t-interval
    of those three seeds (about -$11,000 to $17,700) would."""
    from bizsim.view.sweep_data import _groups

    rows = [["startup", "default", "greedy", None, seed, "final_funds_cents", value, "ok", None, 60, f"r{seed}"]
            for seed, value in ((1, 0), (2, 0), (3, 1_000_000))]
    (group,) = _groups(rows, [])
    assert 3 == group["n"] and group["mean"] == pytest.approx(1_000_000 / 3)
    assert 0 <= group["ci_low"] < group["mean"] < group["ci_high"] <= 1_000_000
