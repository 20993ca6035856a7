"""The report's figures agree with its tables, on a sweep whose runs end every way a startup run can end."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

pytestmark = pytest.mark.xdist_group("report-figures")

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

from bizsim.analysis import load, metrics
from bizsim.runs import grid, sweep
from bizsim.analysis import report as report_module
from bizsim.analysis.series import run_series
from bizsim.analysis.worlds import startup as sm

#: run -> how it ends (measured once; the test checks each still ends so).
ENDINGS = {
    ("default", "greedy", 1): "2026-01-01T09:00:00",  # the horizon
    ("default", "greedy", 3): "2025-09-01T09:00:00",  # payroll on the 1st
    ("hard", "greedy", 1): "2025-04-01T09:00:00",
    ("hard", "greedy", 2): "2025-04-01T09:00:00",
    ("nightmare", "greedy", 1): "2025-03-03T09:00:00",  # payroll on the first business day (the 1st is a Saturday)
    ("mid-month", "random", 1): "2025-03-07T13:44",  # a failed task's penalty, mid-month
    ("mid-month", "random", 2): "2025-02-13T17:52",
    ("last-payroll", "greedy", 3): "2025-12-01T09:00:00",  # the last payroll before the horizon
}


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """The sweep, its tables, its report, and every figure the report drew (captured as drawn)."""
    out = tmp_path_factory.mktemp("figures")
    specs = grid("startup", "default", "greedy", [1, 3]) + grid("startup", "hard", "greedy", "1-2")
    specs += grid("startup", "nightmare", "greedy", 1)
    specs += grid("startup", {"name": "default", "label": "mid-month", "overrides": {
        "initial_funds_cents": 6_000_000, "penalty_fail_funds_pct": 1.0}}, "random", "1-2")
    specs += grid("startup", {"name": "default", "label": "last-payroll", "overrides": {
        "initial_funds_cents": 29_000_000}}, "greedy", 3)
    sweep(specs, out, backend="serial", progress=False)
    drawn: list[tuple[str, object]] = []
    original = report_module._Doc.figure

    def keep(self, ax, name, caption):
        drawn.append((name, ax))
        original(self, ax, name, caption)

    mp = pytest.MonkeyPatch()
    mp.setattr(report_module._Doc, "figure", keep)
    try:
        path = report_module.write_report(out)
    finally:
        mp.undo()
    return load(out), path.read_text(encoding="utf-8"), dict(drawn)


class _Tables(HTMLParser):
    """Every table of a page as (the heading or summary before it, rows of cell text)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]]]] = []
        self.title = ""
        self._text: list[str] | None = None
        self._rows: list[list[str]] | None = None

    def handle_starttag(self, tag, attrs):
        if tag in ("h2", "h3", "summary", "th", "td"):
            self._text = []
        if tag == "table":
            self._rows = []
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag in ("h2", "h3", "summary"):
            self.title = "".join(self._text or [])
        elif tag in ("th", "td") and self._rows is not None:
            self._rows[-1].append("".join(self._text or []))
        elif tag == "table" and self._rows is not None:
            self.tables.append((self.title, self._rows))
            self._rows = None
        if tag in ("h2", "h3", "summary", "th", "td"):
            self._text = None


def _tables(text: str) -> list[tuple[str, list[list[str]]]]:
    parser = _Tables()
    parser.feed(text)
    return parser.tables


def _usd(cell: str) -> float:
    """A table's dollar cell as a number: ``-$1,234.56`` -> ``-1234.56``."""
    return float(cell.replace("$", "").replace(",", ""))


def _agree(plotted: list[float], cells: list[str]) -> bool:
    """Plotted dollars and the table's dollars agree to the cent the table shows."""
    return len(plotted) == len(cells) and all(abs(p - _usd(c)) <= 0.005 + 1e-9 for p, c in zip(plotted, cells))


def _lines(ax) -> dict[str, tuple[list[float], list[float]]]:
    return {re.sub(r" \(n=\d+\)$", "", ln.get_label()): (list(ln.get_xdata()), list(ln.get_ydata()))
            for ln in ax.get_lines() if not ln.get_label().startswith("_")}


def test_the_sweep_ends_every_way(made):
    """The runs end on the 1st, on a first business day, mid-month, at the last payroll and at the horizon."""
    res, _, _ = made
    ended = {(r.preset_label, r.agent, r.seed): r.end_time for r in res.runs.itertuples()}
    assert set(ENDINGS) == set(ended)
    for run, end in ENDINGS.items():
        assert ended[run].startswith(end), run


def test_each_mean_line_is_its_table(made):
    """Every point of every mean-over-seeds figure is the cell of the table folded under it, to the cent."""
    res, text, drawn = made
    tables = [rows for title, rows in _tables(text) if title.startswith("The figure's numbers")]
    series_figures = [name for name in drawn if re.fullmatch(r"\d+-startup-month-[a-z-]+-cents", name)]
    assert {"month-end-funds-cents", "month-revenue-cents", "month-cost-cents"} == {
        n.split("startup-", 1)[1] for n in series_figures}
    assert len(series_figures) == len(tables)
    for name, rows in zip(sorted(series_figures), tables):
        head, body = rows[0], rows[1:]
        months = [r[0] for r in body]
        assert "2026-01" not in months, name  # no December repeated as January
        for line, (xs, ys) in _lines(drawn[name]).items():
            column = head.index(line)
            cells = [r[column] for r in body]
            shown = [c for c in cells if c]
            assert len(xs) == len(shown), (name, line)
            assert _agree(ys, shown), (name, line, ys, shown)


def test_a_bankruptcy_counts_zero_from_its_month_and_the_month_before_keeps_its_figures(made):
    """Funds, revenue and cost of every run, as the figures draw them, against the run's own month-end record."""
    res, _, drawn = made
    raw = res.series
    ok = res.runs
    for name in ("month_end_funds_cents", "month_revenue_cents", "month_cost_cents"):
        counted = run_series(raw, ok, name, extend=False)
        for run in ok.itertuples():
            mine = counted[counted.run_id == run.run_id].set_index("key")["value"]
            real = raw[(raw.run_id == run.run_id) & (raw.name == name)].set_index("key")["value"]
            end_month = run.end_time[:7]
            before = [k for k in real.index if k < end_month]
            assert real[before].tolist() == mine[before].tolist(), (name, run.preset_label, run.seed)
            if run.bankrupt:
                assert end_month == mine.index[-1]
                assert (0.0 if name == "month_end_funds_cents" else real[end_month]) == mine[end_month]
            else:  # the horizon: the months of the year, no stub January
                assert "2025-12" == mine.index[-1] and real["2025-12"] == mine["2025-12"]
    per_seed = next(ax for n, ax in drawn.items() if n.endswith("startup-funds-per-seed"))
    ys = sorted(round(float(y[-1])) for ln in per_seed.get_lines() for y in [ln.get_ydata()])
    finals = sorted(round(v / 100) for v in res.runs.leaderboard_funds_cents)
    assert finals == ys  # each seed's line ends at its leaderboard funds


def test_the_last_point_of_each_funds_line_is_the_outcomes_table(made):
    """A group's mean funds at its last month is its mean leaderboard funds (final funds, a bankruptcy as $0)."""
    res, text, drawn = made
    funds = next(ax for n, ax in drawn.items() if n.endswith("startup-month-end-funds-cents"))
    rows = next(rows for title, rows in _tables(text) if title.startswith("Outcomes"))
    head = rows[0]
    table = {(r[head.index("preset")], r[head.index("agent")]): r[head.index("mean")] for r in rows[1:]
             if r[head.index("figure")].startswith("Final funds, a bankruptcy as $0")}
    lines = _lines(funds)
    assert set(table) == {tuple(k.split(" / ")) for k in lines}
    for key, (_, ys) in lines.items():
        assert _agree([ys[-1]], [table[tuple(key.split(" / "))]]), key
    march = dict(zip(*lines["hard / greedy"]))[2]  # the month before the payroll that broke both seeds
    assert march > 0


def test_the_failure_bars_are_the_failure_table(made):
    """Each bar of the failure-cause figure is that group's share in the failure-cause table."""
    res, _, drawn = made
    bars = next(ax for n, ax in drawn.items() if n.endswith("startup-failure-causes"))
    causes = sm.failure_cause_counts(res.events, res.runs, ["preset_label", "agent"])
    for container in bars.containers:
        key = tuple(re.sub(r" \(\d+ failed\)$", "", container.get_label()).split(" / "))
        want = causes[(causes.preset_label == key[0]) & (causes.agent == key[1])].set_index("cause")["share"]
        got = [p.get_height() for p in container.patches]
        assert [float(want.get(c, 0.0)) if want.get(c) == want.get(c) else 0.0 for c in sm.CAUSES] == got


def test_the_action_shares_are_the_action_table(made):
    """Each action figure's stacked layers are the shares of metrics.action_frequencies for that agent."""
    res, _, drawn = made
    for name, ax in drawn.items():
        found = re.fullmatch(r"\d+-startup-actions-(.+)", name)
        if not found:
            continue
        agent = found.group(1)
        table = metrics.action_frequencies(res.events, res.runs[res.runs.agent == agent].assign(_all="all"), "_all",
                                           bin_days=30)
        wide = table.pivot_table(index="day", columns="action", values="share", aggfunc="sum", fill_value=0.0)
        tops = [max(p.vertices[:, 1]) for p in (c.get_paths()[0] for c in ax.collections)]
        assert pytest.approx(wide.cumsum(axis=1).max().tolist()) == tops


def test_the_final_funds_bars_are_the_outcomes_table(made):
    """Figure 7's bars are each group's mean leaderboard funds in the Outcomes table; its dots are the seeds'."""
    res, text, drawn = made
    bars = next(ax for n, ax in drawn.items() if n.endswith("startup-final-funds"))
    rows = next(rows for title, rows in _tables(text) if title.startswith("Outcomes"))
    head = rows[0]
    table = {(r[head.index("preset")], r[head.index("agent")]): r[head.index("mean")] for r in rows[1:]
             if r[head.index("figure")].startswith("Final funds, a bankruptcy as $0")}
    labels = [tuple(t.get_text().split(" / ")) for t in bars.get_yticklabels()][::-1]  # top first, as drawn
    assert set(table) == set(labels)
    for label, patch in zip(labels, bars.patches):
        assert _agree([patch.get_width()], [table[label]]), label
    widths = [p.get_width() for p in bars.patches]
    assert sorted(widths, reverse=True) == widths  # highest on top
    dots = sorted(round(float(x) * 100) for c in bars.collections for x in c.get_offsets()[:, 0])
    assert sorted(int(v) for v in res.runs.leaderboard_funds_cents) == dots
