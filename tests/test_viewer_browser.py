"""The run viewer in a real headless Chromium: what a person sees on a run, two runs, a sweep, a live run."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("playwright")
from bizsim.analysis.labels import dollars
from bizsim.view import write_view
from bizsim.view.run_data import run_data
from bizsim.view.server import ViewServer
from playwright.sync_api import expect

from ._browser import browser_fixture, open_page
from ._view_runs import HOSTILE, baseline_run, fork_family, hostile_llm_run, llm_run, memory_llm_run, small_sweep

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("viewer_browser")


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module."""
    yield from browser_fixture()


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """A greedy run of startup seed 1, and a short LLM run of the same world and seed."""
    root = tmp_path_factory.mktemp("runs")
    return {"greedy": baseline_run(root / "greedy"), "llm": llm_run(root / "llm")}


def test_llm_run_shows_the_transcript_the_final_funds_and_jumps_from_an_event(browser, runs, tmp_path):
    """The header's final funds are result.json's in dollars; a turn shows the model's request, answer and the
    commands' results; clicking a completed task's mark opens the turn it happened in."""
    path = write_view([runs["llm"]], tmp_path / "llm.html")
    page = open_page(browser, path.as_uri())
    result = json.loads((runs["llm"] / "result.json").read_text())
    assert dollars(result["final_funds_cents"]) == page.inner_text("#final-metric")
    page.keyboard.press("ArrowDown")  # the arrow keys move through the turns before anything is clicked
    assert page.inner_text("#turn-title").startswith("Turn 2 ·")
    page.keyboard.press("ArrowUp")
    assert page.inner_text("#turn-title").startswith("Turn 1 ·")
    page.click(".list .row[data-i='1']")
    assert "Turn 2 · 2025-01-01 09:00" == page.inner_text("#turn-title")
    detail = page.inner_text(".detail")
    sent = [json.loads(line) for line in (runs["llm"] / "agent_commands.jsonl").read_text().splitlines()]
    for rec in (r for r in sent if r["turn"] == 2):
        assert rec["line"] in detail
    assert "verified against the recorded hash" in detail and "WHAT THE MODEL RECEIVED" in detail.upper()
    assert '"status": "planned"' in detail  # the accept command's result
    page.screenshot(path=str(tmp_path / "llm-turn.png"), full_page=False)

    data = run_data(runs["llm"])
    task = next(m for m in data["markers"] if m["name"] == "task_completed")
    times = [t["t"] for t in data["turns"]]
    expected = max(i for i, t in enumerate(times) if t < task["t"])  # the turn whose advance it happened in
    page.locator(f"rect.mk[data-turn='{expected}']").first.click()
    assert page.inner_text("#turn-title").startswith(f"Turn {expected + 1} ·")
    assert task["label"] in page.inner_text(".detail")
    page.screenshot(path=str(tmp_path / "llm-event-jump.png"))
    assert [] == page.errors


def test_a_run_page_draws_the_metric_as_the_report_counts_it(browser, runs, tmp_path):
    """Under the turns, the month-end funds the report draws: a point a month on the chart, the values listed."""
    pytest.importorskip("pandas")
    reported = run_data(runs["greedy"])["reported"]
    page = open_page(browser, write_view([runs["greedy"]], tmp_path / "greedy.html").as_uri())
    listed = " · ".join(f"{k}: {dollars(v)}" for k, v in zip(reported["keys"], reported["values"]))
    assert listed == page.inner_text(".reported-values")
    path = page.get_attribute("#chart-reported path.series", "d")
    assert len(reported["values"]) == 12 == path.count("L") + 1
    assert [] == page.errors


def test_agent_text_is_shown_as_text_and_never_runs(browser, tmp_path):
    """Markup in the model's answer and scratchpad is printed literally: no script of it runs, no element appears."""
    run = hostile_llm_run(tmp_path / "hostile")
    path = write_view([run], tmp_path / "hostile.html")
    assert "</script><script>window.pwned" not in path.read_text(encoding="utf-8")
    page = open_page(browser, path.as_uri())
    page.click(".list .row[data-i='1']")
    page.wait_for_timeout(100)
    assert page.evaluate("window.pwned") is None
    assert 0 == page.locator("img").count()
    assert HOSTILE in page.inner_text(".detail")
    page.screenshot(path=str(tmp_path / "hostile.png"))


def test_a_turn_shows_the_memory_the_model_was_given(browser, tmp_path):
    """The memory panel of a turn: its notes (carried from the turn that wrote them) and what was recalled."""
    run = memory_llm_run(tmp_path / "memory")
    recalls = run_data(run)["turns"][3]["memory"]["recalls"]
    path = write_view([run], tmp_path / "memory.html")
    page = open_page(browser, path.as_uri())
    page.click(".list .row[data-i='3']")
    page.click(".detail .memory summary")  # the rolling window's recalls start folded
    memory = page.inner_text(".detail .memory")
    assert "memory at this turn (scratchpad, window)" in memory.lower()
    assert "buy low\nsell high" in memory and "unchanged since the previous turn" in memory.lower()
    assert f"Recent history (rolling window): {len(recalls)} recalled" in memory
    assert all(r["text"] in memory and f"from turn {r['turn']}" in memory for r in recalls)
    page.screenshot(path=str(tmp_path / "memory.png"))
    assert [] == page.errors


def test_two_runs_side_by_side_align_by_simulated_time(browser, runs, tmp_path):
    """Picking a turn of the LLM run selects the greedy agent's turn in progress at that simulated instant."""
    path = write_view([runs["greedy"], runs["llm"]], tmp_path / "compare.html")
    page = open_page(browser, path.as_uri())
    a, b = run_data(runs["greedy"]), run_data(runs["llm"], requests=False)
    pick = len(b["turns"]) - 3
    t = b["turns"][pick]["t"]
    expected = max(i for i, turn in enumerate(a["turns"]) if turn["t"] <= t)
    page.locator("#side-1 .list").evaluate(f"e => e.scrollTop = {pick} * 30")
    page.click(f"#side-1 .list .row[data-i='{pick}']")
    assert f"A turn {expected + 1}, B turn {pick + 1}" in page.inner_text("#align-info")
    assert page.locator(f"#side-0 .list .row.sel[data-i='{expected}']").count() == 1
    assert page.inner_text("#side-0 #turn-title").startswith(f"Turn {expected + 1} ·")
    # the marks have a legend here too, in colours that are not the runs' (A blue, B red)
    legend = page.inner_text(".legend")
    assert "task completed" in legend and "monthly payroll" in legend
    fills = {page.locator("rect.mk").nth(k).get_attribute("fill") for k in range(page.locator("rect.mk").count())}
    assert fills and not fills & {"#2457c5", "#d1495b"}
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(tmp_path / "compare.png"))
    assert [] == page.errors


def test_a_fork_family_shows_each_fork_under_its_parent_and_opens_it_beside_the_parent(browser, tmp_path):
    """The family's table: forks under their parents with the fork point and the change in the final funds; a
    fork's link opens it beside its parent at the fork point."""
    family = fork_family(tmp_path / "family")
    path = write_view([family], tmp_path / "family.html")
    page = open_page(browser, path.as_uri())
    rows = page.locator("#family-table tr[data-id]")
    assert ["parent", "random-10", "greedy-14"] == [rows.nth(k).get_attribute("data-id") for k in range(3)]
    final = {m: json.loads((family / m / "result.json").read_text())["final_funds_cents"] for m in ("random-10", "greedy-14")}
    change = final["greedy-14"] - final["random-10"]
    row = page.inner_text("#family-table tr[data-id='greedy-14']")
    assert "↳ greedy-14" in row and "random-10" in row and "turn 14 · " in row and dollars(final["greedy-14"]) in row
    assert ("+" if change > 0 else "−") + dollars(abs(change)) in row
    assert 2 == page.locator("rect.mk").count()  # the two fork points
    page.screenshot(path=str(tmp_path / "family.png"), full_page=True)
    page.click("#family-table tr[data-id='greedy-14'] a.open-pair")
    page.wait_for_selector("#fork-note")
    assert "after turn 14" in page.inner_text("#fork-note")
    assert page.inner_text("#side-1 #turn-title").startswith("Turn 15 ·")
    assert page.locator("#side-1 .list .row.sel[data-i='14']").is_visible()
    page.screenshot(path=str(tmp_path / "family-pair.png"))
    assert [] == page.errors


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> Path:
    """Startup, greedy and random, seeds 1-2, with run directories."""
    return small_sweep(tmp_path_factory.mktemp("sweep") / "sweep")


def test_sweep_table_filters_sorts_and_opens_a_run(browser, sweep, tmp_path):
    """Filtering the agent column leaves that agent's runs; sorting by the metric orders them; a row opens its run."""
    path = write_view([sweep], tmp_path / "sweep.html")
    page = open_page(browser, path.as_uri())
    assert "4 of 4 runs shown" == page.inner_text("#runs-count")
    page.fill("#filter-agent", "random")
    expect(page.locator("#runs-count")).to_have_text("2 of 4 runs shown")
    agents = page.locator(".trow:visible div:nth-child(3)").all_inner_texts()
    assert ["random", "random"] == agents
    page.fill("#filter-agent", "")
    expect(page.locator("#runs-count")).to_have_text("4 of 4 runs shown")
    page.click(".thead div[data-col='value']")
    shown = page.locator(".trow:visible div:nth-child(7)").all_inner_texts()
    records = [json.loads(line) for line in (sweep / "results.jsonl").read_text().splitlines()]
    assert sorted(r["run"]["metric_value"] for r in records) == [_cents(s) for s in shown]
    page.screenshot(path=str(tmp_path / "sweep.png"), full_page=True)
    row = page.locator(".trow:visible").first
    run_id = row.locator("div").last.inner_text()
    row.click()
    page.wait_for_selector("#final-metric")
    opened = next(r for r in records if r["run_id"] == run_id)
    assert dollars(opened["run"]["metric_value"]) == page.inner_text("#final-metric")
    page.click("#back")  # the run's page leads back to the sweep
    expect(page.locator("#runs-count")).to_have_text("4 of 4 runs shown")
    assert [] == page.errors


def _cents(text: str) -> int:
    return round(float(text.replace("$", "").replace(",", "")) * 100)


def test_follow_redraws_a_run_as_it_is_written(browser, runs, tmp_path):
    """Served with --follow, a run still being written shows what is there, then its end once written."""
    live = tmp_path / "live"
    live.mkdir()
    lines = (runs["greedy"] / "trajectory.jsonl").read_text().splitlines(keepends=True)
    shutil.copy(runs["greedy"] / "config.toml", live)
    (live / "trajectory.jsonl").write_text("".join(lines[:40]) + lines[40][:25])  # a torn last line, as mid-write
    with ViewServer([live], follow=True) as server:
        page = open_page(browser, server.url)
        assert "still running" in page.inner_text("header").lower()
        before = page.locator(".list .row").count()
        for name in ("trajectory.jsonl", "commands.jsonl", "result.json"):
            shutil.copy(runs["greedy"] / name, live)
        time.sleep(0.05)
        result = json.loads((runs["greedy"] / "result.json").read_text())
        expect(page.locator("#final-metric")).to_have_text(dollars(result["final_funds_cents"]), timeout=10_000)
        assert "horizon end" in page.inner_text("header").lower()
        assert before > 0
        page.screenshot(path=str(tmp_path / "follow.png"))
        assert [] == page.errors


@pytest.mark.slow
def test_the_report_reads_as_a_person_would_publish_it(browser, sweep, tmp_path):
    """In the browser the report shows money in dollars and words, no exponents or raw names, every figure drawn,
    wide tables scrolling instead of cut, and where it came from."""
    pytest.importorskip("matplotlib")
    from bizsim.analysis.report import write_report

    path = write_report(sweep, tmp_path / "report", command=["bizsim", "report", "sweep"])
    page = open_page_plain(browser, path.as_uri())
    text = page.inner_text("body")
    exponent = re.search(r"\b\d+(\.\d+)?[eE][-+]?\d+\b", text)  # a whole word: run ids are hexadecimal
    assert exponent is None, text[exponent.start() - 40:exponent.end() + 20]
    assert "_cents" not in text and "($)" not in text
    # the report's one headline reading of a startup run: a bankruptcy as $0, as its figures count it
    assert "Final funds, a bankruptcy as $0 (dollars)" in text and "Every run (per seed)" in text
    records = [json.loads(line) for line in (sweep / "results.jsonl").read_text().splitlines()]
    for r in records:
        assert dollars(max(0, r["run"]["metric_value"])) in text
    images = page.locator("img")
    assert images.count() >= 4
    assert all(page.eval_on_selector_all("img", "els => els.map(e => e.complete && e.naturalWidth > 0)"))
    assert {"auto"} == set(page.eval_on_selector_all(".wide", "els => els.map(e => getComputedStyle(e).overflowX)"))
    prov = page.inner_text("dl.prov")
    assert "bizsim report sweep" in prov and "startup-v1" in prov and "seeds\t1-2" in prov.replace("\n", "\t")
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert [] == page.errors


def open_page_plain(browser, url: str):
    """A page that is not the viewer (no ready mark): loaded, page errors recorded."""
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(url)
    page.wait_for_load_state("load")
    return page


def test_a_minimal_run_from_another_source_reads_cleanly(browser, tmp_path):
    """The smallest data a registered source may give (docs/viewer.md): no 'undefined', no empty axes."""
    from bizsim.view import render

    data = {"kind": "run", "meta": {"path": "mine"}, "figures": {}, "timeline": [], "markers": [], "turns": [],
            "problems": []}
    path = tmp_path / "mine.html"
    path.write_text(render(data, title="mine"))
    page = open_page(browser, path.as_uri())
    text = page.inner_text("body")
    assert "undefined" not in text.lower() and "Nothing over simulated time" in text
    assert 0 == page.locator("#chart svg").count()
    page.screenshot(path=str(tmp_path / "minimal.png"))
    assert [] == page.errors


def test_a_sweep_page_keeps_an_options_arms_apart(browser, tmp_path):
    """Two values of an agent option: two groups in the summary (a column of their own) and a column in the runs."""
    from bizsim.runs import grid, sweep

    agents = [{"name": "random", "options": {"max_parallel": k}} for k in (2, 4)]
    sweep(grid("startup", "default", agents, "1-2"), tmp_path / "sw", backend="serial", progress=False)
    page = open_page(browser, write_view([tmp_path / "sw"], tmp_path / "sw.html").as_uri())
    head = page.locator("table.grp tr").first.inner_text()
    assert "max parallel" in head
    rows = [r.split("\t") for r in page.locator("table.grp tr").all_inner_texts()[1:]]
    assert [["2", "2"], ["4", "2"]] == [[r[4].strip(), r[5].strip()] for r in rows]  # option, then its runs
    assert "max parallel" in page.inner_text(".thead")
    page.screenshot(path=str(tmp_path / "options.png"), full_page=True)
    assert [] == page.errors


def test_an_llm_runs_header_counts_its_answered_calls_and_marks_a_refused_one(browser, tmp_path):
    """A call refused for good (the loopback server's 401 on the fifth request) is listed, marked ✕, and the
    header counts the turns result.json counts: the answered calls."""
    from bizsim.runs import RunSpec, run_llm

    from .llm_policies import greedy_policy
    from .llm_server import LoopbackLLMServer, require_litellm

    require_litellm()
    with LoopbackLLMServer(greedy_policy, faults={4: "401"}) as server:
        spec = RunSpec("startup", agent="llm", agent_options={"model": "hosted_vllm/greedy", "api_base": server.url,
                                                              "max_turns": 6})
        run_llm(spec, out=tmp_path / "run", sleep=lambda s: None)
    turns = json.loads((tmp_path / "run" / "result.json").read_text())["turns"]
    page = open_page(browser, write_view([tmp_path / "run"], tmp_path / "run.html").as_uri())
    assert (4, "4") == (turns, page.inner_text("xpath=//div[@class='stat'][span[text()='turns']]/b"))
    assert ["1", "2", "3", "4", "✕"] == [page.inner_text(f".list .row[data-i='{i}'] .n") for i in range(5)]


def test_a_played_run_names_its_player(browser, tmp_path):
    """A run a person played in the browser names them in the header, as text (a name may hold markup)."""
    from bizsim.surfaces.play import PlaySession

    played = PlaySession("operation", "default", 1, out=tmp_path / "ana", player=f"ana{HOSTILE[:60]}",
                         overrides={"horizon_days": 2})
    for tool in ("acquisition_boost", "task_done", "task_done"):
        played.call(tool, {})
    played.close()
    page = open_page(browser, write_view([tmp_path / "ana"], tmp_path / "ana.html").as_uri())
    assert f"human, played by ana{HOSTILE[:60]}" in page.inner_text("header h1")
    assert page.evaluate("window.pwned") is None
    assert 0 == page.locator("img").count()


def test_startup_v2s_page_keeps_signal_truth_apart_and_each_kind_in_its_own_colour(browser, tmp_path,
                                                                                  tmp_path_factory):
    """startup-v2 on `hard`: the 1,837 signal-truth marks start hidden under their own heading and, shown, take a
    row of their own; a turn folds them into one line; every legend swatch is a colour a reader tells apart from
    the others (CIEDE2000 at least 15)."""
    from itertools import combinations

    from ._browser import legend_colours
    from ._colour import delta_e
    from ._shared_runs import V2_HARD_PLANNER, played_once

    out, _ = played_once(tmp_path_factory, V2_HARD_PLANNER)  # startup-v2, hard, planner, seed 1; read only
    page = open_page(browser, write_view([out], tmp_path / "v2.html").as_uri())
    assert 0 == page.locator("rect.mk.quiet").count() and page.locator("rect.mk").count() > 700
    box = page.locator("label[data-kind='signal_truth'] input")
    assert not box.is_checked()
    assert "Kept for checking" in page.inner_text(".legend .quiet-head")
    box.click()
    rows = {float(y) for y in page.eval_on_selector_all("rect.mk:not(.quiet)", "rs => rs.map(r => r.getAttribute('y'))")}
    quiet = page.eval_on_selector_all("rect.mk.quiet", "rs => rs.map(r => r.getAttribute('y'))")
    assert 1837 == len(quiet) and 1 == len({float(y) for y in quiet}) and float(quiet[0]) > max(rows)
    assert "signal truth ×21 (kept for checking)" in page.inner_text("details.ev.quiet summary")
    assert "signal truth" not in page.inner_text(".detail").split("signal truth ×21")[0]  # the rest stand alone
    colours = legend_colours(page)
    assert {"task cancel", "signal truth", "late payment", "employee ramp"} <= set(colours)

    def hex_of(rgb: str) -> str:
        return "#" + "".join(f"{int(v):02x}" for v in re.findall(r"\d+", rgb)[:3])

    swatches = {k: hex_of(v) for k, v in colours.items() if not k.endswith("(failed)")}
    closest = min((delta_e(a, b), ka, kb) for (ka, a), (kb, b) in combinations(swatches.items(), 2))
    assert closest[0] >= 15, closest
    page.screenshot(path=str(tmp_path / "v2-page.png"))
    assert [] == page.errors
