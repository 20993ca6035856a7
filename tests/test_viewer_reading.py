"""What a newcomer reads on the viewer's pages, in a real headless Chromium: one colour per kind of event on
every page, marks and lists that say which run they belong to, search that moves the page with it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("playwright")
from bizsim.analysis.labels import KIND_COLORS, kind_color
from bizsim.analysis.view import write_view
from bizsim.analysis.view.page import render
from bizsim.analysis.view.run_data import run_data

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


def test_a_kind_of_event_has_one_colour_on_the_run_and_the_compare_page(browser, runs, tmp_path):
    """`task accept`, `task completed` and the rest: the colour of labels.KIND_COLORS on one run's page and on the
    side-by-side page, whatever other kinds each page holds."""
    one = open_page(browser, write_view([runs["planner"]], tmp_path / "one.html").as_uri())
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
