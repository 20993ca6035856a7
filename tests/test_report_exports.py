"""The report out to a paper: every table as CSV and booktabs LaTeX, every figure's data as CSV beside it, linked
from the page; one definition of the headline number on the page; the same runs give the same files."""

from __future__ import annotations

import doctest
import re

import pytest

pytestmark = pytest.mark.xdist_group("report-exports")

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

from bizsim.analysis import load, table_files
from bizsim.analysis.figure_data import figure_data
from bizsim.analysis.headline import with_headline
from bizsim.analysis.report import FIGURES, TABLES, write_report
from bizsim.analysis.table_files import latex_escape, to_latex
from bizsim.runs import grid, sweep

#: A preset label made of every LaTeX special character: the report's tables carry it into the .tex files.
HOSTILE = "50% & $#_{x}~^\\"
#: The date and command every report of the module is written with (the same runs give the same bytes).
EPOCH = "1767225600"
COMMAND = ["bizsim", "report", "sweep"]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A mixed sweep (greedy, planner and random over three seeds; greedy's second seed goes bankrupt, random's
    every seed) and a second preset named with LaTeX specials, and its report."""
    out = tmp_path_factory.mktemp("exports")
    specs = grid("startup", "default", ["greedy", "planner", "random"], "1-3")
    specs += grid("startup", {"name": "default", "label": HOSTILE, "overrides": {"initial_funds_cents": 6_000_000}},
                  "random", "1-2")
    sweep(specs, out, backend="serial", progress=False)
    # Written as test_the_same_runs_give_the_same_page writes its own (a fixed date, the same command): that test
    # compares its report with this one, so the suite draws the report twice, not three times.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        return out, write_report(out, out / "one", command=COMMAND)


def test_doctests():
    """The module's examples hold."""
    assert 0 == doctest.testmod(table_files).failed


def _unescaped(text: str, ch: str) -> int:
    """How many times ``ch`` appears not escaped by a backslash."""
    return len(re.findall(r"(?<!\\)" + re.escape(ch), text))


def _braces_balance(text: str) -> bool:
    depth = 0
    for m in re.finditer(r"(?<!\\)[{}]", text):
        depth += 1 if m.group() == "{" else -1
        if depth < 0:
            return False
    return depth == 0


def test_escaping_every_special():
    """Each of & % $ # _ { } ~ ^ \\ prints as itself; nothing else changes."""
    assert r"\& \% \$ \# \_ \{ \} \textasciitilde{} \textasciicircum{} \textbackslash{}" == \
        latex_escape("& % $ # _ { } ~ ^ \\")
    assert "plain words, 1,234.5" == latex_escape("plain words, 1,234.5")
    assert "two lines" == latex_escape("two\nlines")


def test_a_table_in_booktabs():
    """A frame as a booktabs tabular: rules in order, one & fewer than columns a row, numbers right-aligned."""
    df = pd.DataFrame({"agent": ["a_1", "b&c"], "mean": ["$1", "50%"]})
    df.attrs["numeric"] = [1]
    tex = to_latex(df, "cap {x}")
    lines = tex.splitlines()
    assert "\\begin{tabular}{lr}" in lines
    assert lines.index("\\toprule") < lines.index("\\midrule") < lines.index("\\bottomrule")
    assert "a\\_1 & \\$1 \\\\" in lines and "b\\&c & 50\\% \\\\" in lines
    assert _braces_balance(tex)


def test_every_table_is_csv_and_tex_and_linked(made):
    """Each table of the page is tables/<name>.csv and .tex, linked where it is shown; every .tex is
    compile-shaped: balanced braces, the three booktabs rules, and every special of a cell escaped (the preset
    named with all of them shows only escaped)."""
    _, page = made
    text = page.read_text(encoding="utf-8")
    folder = page.parent / TABLES
    csvs, texs = sorted(folder.glob("*.csv")), sorted(folder.glob("*.tex"))
    assert [p.stem for p in csvs] == [p.stem for p in texs]
    assert text.count("<table>") == len(csvs) >= 15
    for p in [*csvs, *texs]:
        assert f'href="{TABLES}/{p.name}"' in text, p.name
    escaped_label = latex_escape(HOSTILE)
    seen_label = False
    for tex in texs:
        body = tex.read_text(encoding="utf-8")
        assert _braces_balance(body), tex.name
        rows = [ln for ln in body.splitlines() if not ln.startswith("%")]
        assert rows.index("\\toprule") < rows.index("\\midrule") < rows.index("\\bottomrule"), tex.name
        columns = len(re.fullmatch(r"\\begin\{tabular\}\{([lr]+)\}", rows[0]).group(1))
        for row in rows[rows.index("\\toprule") + 1:rows.index("\\bottomrule")]:
            if row == "\\midrule":
                continue
            assert row.endswith(" \\\\") and columns - 1 == _unescaped(row, "&"), (tex.name, row)
            cells = row[:-3]
            for ch in "%$#_^~":
                assert 0 == _unescaped(cells, ch), (tex.name, ch, row)
        seen_label |= escaped_label in body
    assert seen_label


def test_every_figure_has_its_data_beside_it(made):
    """figures/<name>.csv beside each PNG and SVG, linked from its caption; the funds figure's data is the mean
    month-end funds the figure draws, in dollars."""
    _, page = made
    text = page.read_text(encoding="utf-8")
    folder = page.parent / FIGURES
    pngs = sorted(folder.glob("*.png"))
    assert pngs and sorted(p.stem for p in folder.glob("*.csv")) == [p.stem for p in pngs]
    for png in pngs:
        assert f'href="{FIGURES}/{png.stem}.csv"' in text
    funds = pd.read_csv(folder / "01-startup-month-end-funds-cents.csv")
    assert {"line", "band"} <= set(funds["mark"])
    planner = funds[(funds["mark"] == "line") & funds["series"].str.startswith("default / planner")]
    assert "2025-01" == planner["x_label"].iloc[0] and planner["y"].iloc[-1] > 1_000_000
    assert (funds.loc[funds["mark"] == "band", "y_low"] >= 0).all()  # funds are never below $0: nor is the band


def test_the_figure_data_reads_what_is_drawn():
    """Lines, bars, points, bands and error bars come back as drawn; a reference line does not."""
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    ax.plot([0, 1], [2.0, 3.0], label="mean")
    ax.fill_between([0, 1], [1.0, 2.0], [3.0, 4.0])
    ax.bar([5], [7.0], label="bars")
    ax.scatter([5], [6.5])
    ax.errorbar([8], [1.0], yerr=[[0.5], [2.0]])
    ax.axhline(0)
    ax.set_xticks([0, 1], ["Jan", "Feb"])
    got = figure_data(ax)
    line = got[got.series == "mean"]
    assert [(0.0, "Jan", 2.0), (1.0, "Feb", 3.0)] == list(zip(line.x, line.x_label, line.y))
    band = got[got.mark == "band"]
    assert [(0.0, 1.0, 3.0), (1.0, 2.0, 4.0)] == list(zip(band.x, band.y_low, band.y_high))
    assert [(5.0, 7.0)] == list(zip(got[got.mark == "bar"].x, got[got.mark == "bar"].y))
    assert [(5.0, 6.5)] == list(zip(got[got.mark == "point"].x, got[got.mark == "point"].y))
    assert [(8.0, 0.5, 3.0)] == list(zip(*(got[got.mark == "range"][c] for c in ("x", "y_low", "y_high"))))
    lines = got[got.mark == "line"]
    assert [(0.0, 2.0), (1.0, 3.0), (8.0, 1.0)] == list(zip(lines.x, lines.y))  # the error bar's mean; no axhline


def test_one_headline_number_on_the_page(made):
    """The summary, the comparisons and every run's row count a bankrupt run at $0, as the figures do, and say so;
    the final balance below $0 goes by another name; no interval of a mean goes below $0."""
    out, page = made
    text = page.read_text(encoding="utf-8")
    runs = load(out).runs
    greedy = runs[(runs.agent == "greedy") & (runs.preset_label == "default")]
    assert greedy["bankrupt"].any() and (greedy["final_funds_cents"] < 0).any()  # the case the definition is for
    head = pd.read_csv(next((page.parent / TABLES).glob("01-*.csv")))
    mean = float(head[(head.agent == "greedy") & (head.preset_label == "default")]["mean"].iloc[0])
    assert pytest.approx(greedy["leaderboard_funds_cents"].mean()) == mean
    assert mean != pytest.approx(greedy["final_funds_cents"].mean())
    assert (head["ci_low"] >= 0).all()
    assert "a bankrupt run counted as $0" in text
    shown = re.sub(r"<[^>]+>", " ", text)
    assert "Final balance, below $0 when bankrupt (dollars)" in shown
    assert not re.search(r"Final funds \(dollars\)", shown)  # no third name for either reading
    per_run = with_headline(runs)
    assert (per_run[per_run.world == "startup"]["metric"] == "leaderboard_funds_cents").all()


def test_the_comparisons_table(made):
    """Every pair of the three agents on the default preset, paired on their three seeds; planner beats random by
    what the per-run values say; the caption names the test and the number of comparisons."""
    out, page = made
    text = page.read_text(encoding="utf-8")
    table = pd.read_csv(next((page.parent / TABLES).glob("02-paired-comparisons*.csv")))
    default = table[table.preset_label == "default"]
    assert [("greedy", "planner"), ("greedy", "random"), ("planner", "random")] == list(zip(default.a, default.b))
    assert {3} == set(default.pairs) and {len(table)} == set(table.comparisons)
    runs = load(out).runs
    planner = runs[(runs.agent == "planner") & (runs.preset_label == "default")]["leaderboard_funds_cents"].mean()
    row = default[(default.a == "planner") & (default.b == "random")].iloc[0]
    assert pytest.approx(planner) == row.difference and row.ci_low > 0 and 0.25 == row.p_value
    assert f"{len(table)} comparisons" in text and "sign-flip permutation test" in text and "Holm" in text


def test_the_paper_tables_carry_standard_errors(made):
    """Table 3 and the per-seed paper tables give each mean its standard error (sd over sqrt(n) of the runs'
    figures), and the report shows it."""
    from bizsim.analysis.intervals import standard_error
    from bizsim.analysis.worlds.startup import paper, tool_use

    out, page = made
    res = load(out)
    table = paper.table3(res.events, res.runs, ["preset_label", "agent"]).set_index(["preset_label", "agent"])
    per_run = tool_use(res.events, res.runs, ["preset_label", "agent"], per_run=True)
    for key, g in per_run.groupby(["preset_label", "agent"]):
        assert pytest.approx(standard_error(g["commands_per_turn"].tolist())) == table.loc[key, "commands_per_turn_se"]
    assert table.loc[("default", "planner"), "commands_per_turn_se"] > 0
    gated = paper.trust_gated_completions(res.events, res.runs, ["preset_label", "agent"])
    assert "se" in gated.columns and (gated["se"].dropna() >= 0).all()
    text = page.read_text(encoding="utf-8")
    tool = text[text.index("Tool use, the paper"):]
    assert "commands per turn, standard error" in tool[:tool.index("</table>")]


@pytest.mark.slow
def test_the_same_runs_give_the_same_page(made, tmp_path, monkeypatch):
    """With SOURCE_DATE_EPOCH and the same command, two reports are the same bytes: report.html, every figure
    (PNG, SVG and data) and every table; a bad epoch is refused with the rule."""
    from bizsim.simcore.errors import ConfigError

    out, first = made  # the fixture wrote this one, in the same process, with the same date and command
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    pages = [first, write_report(out, tmp_path / "again", command=COMMAND)]
    assert "written 2026-01-01T00:00:00+00:00" in pages[0].read_text(encoding="utf-8")
    files = [{p.relative_to(page.parent): p.read_bytes() for p in page.parent.rglob("*") if p.is_file()}
             for page in pages]
    assert len(files[0]) > 40 and files[0] == files[1]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(ConfigError, match=r"SOURCE_DATE_EPOCH\(='yesterday'\) must be whole seconds"):
        write_report(out, tmp_path / "c")
