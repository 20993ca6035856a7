"""A self-contained HTML report of a sweep, fit to publish: tables in words and dollars, figures embedded (PNG) and
written beside it as PNG and SVG with their data as CSV, every table as CSV and LaTeX, and where it all came from.

This module owns the report folder's layout: ``report.html``, ``figures/<name>.png|.svg|.csv`` and
``tables/<name>.csv|.tex`` (:data:`FIGURES`, :data:`TABLES`)."""

from __future__ import annotations

import base64
import html
import io
import re
import sys
from pathlib import Path
from collections.abc import Sequence
from typing import Any, NamedTuple

from bizsim.simcore.files import write_text_atomic

from bizsim.analysis import metrics, plots
from bizsim.analysis.figure_data import figure_data
from bizsim.analysis.grouping import STOPPED, label_columns, with_stops
from bizsim.analysis.headline import figure_name, headline_rules, with_headline
from bizsim.analysis.intervals import interval_words, with_standard_error
from bizsim.analysis.report_comparisons import comparison_caption, comparison_table
from bizsim.analysis.table_files import write_table
from bizsim.analysis.labels import ending_words, human_number, is_money, words
from bizsim.analysis.model_use import model_use
from bizsim.analysis.provenance import provenance, written_at
from bizsim.analysis.report_arena import ARENA_ANCHOR, arena_section, has_arenas
from bizsim.analysis.report_tables import headline_table, per_seed, present, rates_table, to_html
from bizsim.runs.rundir import SweepDir, make_output_dir
from bizsim.analysis.tables import Results, load
from bizsim.analysis.worlds.hooks import AnalysisHooks, ReportContext

__all__ = ["FIGURES", "TABLES", "write_report"]

#: The report folder's sub-folders: figures (PNG, SVG and each one's data as CSV), tables (CSV and LaTeX).
FIGURES = "figures"
TABLES = "tables"

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}h3{margin-top:1.5em}
table{border-collapse:collapse;font-size:.85em;margin:0}.wide{overflow-x:auto;max-width:100%;margin:.5em 0 1em}
dl.prov{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;font-size:.9em}dl.prov dt{color:#555}
dl.prov dd{margin:0;word-break:break-word}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;white-space:nowrap}
th{background:#f4f4f4}th.n,td.n{text-align:right;font-variant-numeric:tabular-nums}figure{margin:1em 0}img{max-width:100%}
figcaption{font-size:.85em;color:#555}.note{color:#555;font-size:.9em}
pre{background:#f8f8f8;padding:.5em;overflow-x:auto;font-size:.8em}
nav.toc{font-size:.9em;margin:.5em 0 1em}p.files{font-size:.8em;color:#777;margin:-.6em 0 1em}details{margin:-.5em 0 1em}summary{cursor:pointer;color:#555;font-size:.9em}
"""
_FINAL = "leaderboard_funds_cents"  # final funds, a bankruptcy as 0
_CATEGORICAL_SERIES = ("final_trust", "final_prestige", "skills")  # by name, not over time


class _Doc:
    def __init__(self, figures: Path, tables: Path | None = None) -> None:
        self.parts: list[str] = []
        self.figures = figures
        self.tables = tables if tables is not None else figures.parent / TABLES
        self.written: list[Path] = []
        self.n_tables = 0
        self.last_figure = ""  # the figure just drawn: the table of its numbers that follows is named after it

    def _files(self, *paths: Path) -> None:
        """Links to files written beside the report (relative: the folder moves as a whole)."""
        links = " · ".join(f'<a href="{html.escape(p.parent.name)}/{html.escape(p.name)}">'
                           f"{html.escape(p.parent.name)}/{html.escape(p.name)}</a>" for p in paths)
        self.parts.append(f'<p class="files">{links}</p>')

    def h(self, level: int, text: str, anchor: str | None = None) -> None:
        at = f' id="{html.escape(anchor)}"' if anchor else ""
        self.parts.append(f"<h{level}{at}>{html.escape(text)}</h{level}>")

    def p(self, text: str, cls: str = "") -> None:
        self.parts.append(f'<p class="{cls}">{html.escape(text)}</p>' if cls else f"<p>{html.escape(text)}</p>")

    def table(self, df: Any, caption: str | None = None, name: str | None = None) -> None:
        """A table: raw frames (a world's hooks hand these) get columns in words and numbers for people; written
        beside the report as ``tables/<nn>-<caption>.csv`` and ``.tex`` (``name`` names an uncaptioned one)."""
        if caption:
            self.parts.append(f"<h3>{html.escape(caption)}</h3>")
        if df is None or len(df) == 0:
            self.p("(nothing to show)", "note")
            return
        presented = bool(getattr(df, "attrs", {}).get("presented"))
        shown = df if presented else present(df)
        self.parts.append(to_html(shown))
        # Out to a paper: the numbers as CSV (a presented table's own numbers where it keeps them), and the table as
        # shown as a booktabs tabular.
        data = df.attrs.get("data") if presented else df
        self.n_tables += 1
        make_output_dir(self.tables)
        stem = _slug(caption or name or "table")
        stem = stem if len(stem) <= 60 else stem[:60].rsplit("-", 1)[0]
        name = f"{self.n_tables:02d}-{stem}"
        self._files(*write_table(self.tables, name, data if data is not None else shown, shown,
                                 caption or name or ""))
        self.last_figure = ""

    def details(self, summary: str, df: Any) -> None:
        """A table folded under ``summary`` (a figure's numbers: there to check, not to read first)."""
        self.parts.append(f"<details><summary>{html.escape(summary)}</summary>")
        self.table(df, name=f"{self.last_figure} data" if self.last_figure else summary)
        self.parts.append("</details>")

    def figure(self, ax: Any, name: str, caption: str) -> None:
        fig = ax.figure
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        data = buf.getvalue()
        path = self.figures / f"{name}.png"
        path.write_bytes(data)
        vector = io.StringIO()
        import matplotlib

        # No date, and the clip paths' ids salted by a constant rather than at random: the same runs give the same
        # file (a context, so no setting outlives the call).
        with matplotlib.rc_context({"svg.hashsalt": "bizsim-report", "figure.autolayout": False,
                                    "figure.constrained_layout.use": False}):
            # The PNG's draw placed every axes; laying the figure out again for the SVG would cost a fifth of the
            # report's drawing time and move nothing a reader can see. No layout engine at all (not "none", which
            # keeps a placeholder engine): savefig then skips the dry-run draw it makes for an engine before the
            # real one, a third of the SVG's time, and the file is the same bytes (benchmarks/report_figures.py).
            fig.set_layout_engine(None)
            fig.savefig(vector, format="svg", metadata={"Date": None})
        (self.figures / f"{name}.svg").write_text(vector.getvalue(), encoding="utf-8")
        drawn = self.figures / f"{name}.csv"  # what the figure draws, in its units: to redraw it in a paper's style
        write_text_atomic(drawn, figure_data(ax).to_csv(index=False, lineterminator="\n"))
        self.written.append(path)
        self.last_figure = name
        if "matplotlib.pyplot" in sys.modules:
            import matplotlib.pyplot as plt

            plt.close(fig)
        b64 = base64.b64encode(data).decode("ascii")
        self.parts.append(
            f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{b64}">'
            f"<figcaption>{html.escape(caption)} (<code>{FIGURES}/{html.escape(path.name)}</code>, also as "
            f"<code>{FIGURES}/{html.escape(path.stem)}.svg</code>; its data: "
            f'<a href="{FIGURES}/{html.escape(drawn.name)}">{FIGURES}/{html.escape(drawn.name)}</a>)</figcaption></figure>'
        )


def _number(x: float) -> str:
    return human_number(x)


def _presented(df: Any) -> Any:
    df.attrs["presented"] = True
    return df


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "x"


def _money_cols(df: Any, key: str = "figure", name: Any = words) -> Any:
    """A summary table with the figure (or metric) in words (``name`` names it), and every number of a money row in
    dollars; ``attrs["data"]`` keeps the numbers."""
    out = df.copy().reset_index(drop=True)
    if key not in out.columns:
        shown = _presented(present(out))
        shown.attrs["data"] = df
        return shown
    money = out[key].map(is_money).tolist()
    out[key] = out[key].map(lambda v: name(v) if isinstance(v, str) else "")
    shown = _presented(present(out, money_rows=money))
    shown.attrs["data"] = df
    return shown


def _temporal(series: Any, world_runs: Any) -> list[str]:
    """The world's series over time, the one that tracks its headline metric first (month-end funds before
    monthly cost), then by name."""
    s = series[series["run_id"].isin(world_runs["run_id"])]
    names = []
    for name, g in s.groupby("name", sort=True):
        if name in _CATEGORICAL_SERIES or g["step"].max() < 1:
            continue
        names.append(str(name))
    from bizsim.analysis.series import metric_stem

    stems = {metric_stem(m) for m in (world_runs["metric"].dropna().astype(str).unique()
                                     if "metric" in world_runs.columns else ())}
    return sorted(names, key=lambda n: (not any(n.endswith(stem) for stem in stems), n))


def write_report(
    path: str | Path, out: str | Path | None = None, *, results: Results | None = None, title: str | None = None,
    command: list[str] | None = None, papers: Sequence[str] | None = None, published: bool = False,
    judge: Any = None,
) -> Path:
    """Write ``report.html`` and ``figures/*.png`` for the sweep (or run directories) at ``path``.

    Args:
        path: a sweep directory, a run directory, or a folder of run directories.
        out: where to write (default ``path/report``).
        results: tables already loaded (skips loading ``path``).
        title: the report's title.
        command: the command line that made it, for the provenance section (default: this process's).
        papers: only these papers' sections (``yc-bench``, ``ecogym``: the names the worlds' hooks give), after
            the summary and before the provenance; None: every section, each paper's after the worlds'.
        published: add a section drawing the startup runs beside the published YC-Bench results
            (:mod:`bizsim.analysis.published`).
        judge: an LLM judge for the analyses that offer one (a
            :class:`~bizsim.analysis.worlds.startup.judge.PolicyJudge`: Figure 4(b) read by a model too, its
            answers cached beside ``report.html``).

    Returns:
        the HTML file; every figure it embeds is also in ``figures/`` beside it, as PNG and as SVG.

    Raises:
        ConfigError: ``papers`` names a paper no world of the runs lays out.
    """
    res = results if results is not None else load(path)
    root = Path(out) if out is not None else SweepDir(path).report
    figures, tables = root / FIGURES, root / TABLES
    make_output_dir(figures)
    make_output_dir(tables)
    for old in [*figures.glob("*.png"), *figures.glob("*.svg"), *figures.glob("*.csv"), *tables.glob("*.csv"),
                *tables.glob("*.tex")]:
        old.unlink()
    doc = _Doc(figures, tables)
    # A run cut short (a cap, a guard, its API) is grouped apart everywhere: its figures are where it stopped.
    runs, series, events, llm = with_stops(res.runs), res.series, res.events, res.llm_calls
    name = title or f"bizsim report: {Path(path).resolve().name}"
    doc.h(1, name)
    stamp = written_at()
    doc.p(f"{len(runs):,} runs from {Path(path)}; written {stamp}. Money is in US dollars; intervals of a mean are "
          f"the {interval_words}, so they stay within what the seeds did; rates have Wilson intervals. Every table "
          f"is also in {TABLES}/ as CSV and LaTeX (booktabs), every figure's data in {FIGURES}/ as CSV, each linked "
          "where it is shown.", "note")

    # One rule names the groups everywhere (the viewer's sweep page too): a field is a column where it varies, an
    # agent option only where it varies among one agent's runs.
    varied = metrics.varied_columns(runs) if len(runs) else []
    groups = label_columns(runs) if len(runs) else ["world", "preset_label", "agent"]
    worlds = sorted(runs[runs["status"] == "ok"]["world"].dropna().unique()) if len(runs) else []  # sections drawn
    failed = runs[runs["status"] != "ok"] if len(runs) else runs
    has_cost = len(runs) > 0 and "llm_cost_usd" in runs.columns and bool(runs["llm_cost_usd"].notna().any())
    use = model_use(runs, llm, groups) if len(runs) else None  # a local model's tokens and time: it has no price
    has_use = use is not None and len(use) > 0
    laid_out = _papers(worlds)
    if papers is not None:
        known = [p.name for p in laid_out]
        unknown = [p for p in papers if p not in known]
        if unknown:
            from bizsim.simcore.errors import ConfigError

            raise ConfigError(f"--paper {', '.join(unknown)}: no world of these runs lays that paper out; "
                              f"name one of: {', '.join(known) or '(none: run yc-bench or EcoGym worlds)'}")
        laid_out = [p for p in laid_out if p.name in papers]
    whole = papers is None
    sections = [("summary", "Summary")]
    sections += [(f"world-{_slug(str(w))}", f"World: {w}") for w in worlds] if whole else []
    sections += [(f"paper-{_slug(p.title)}", p.title) for p in laid_out]
    beside = published and whole and "startup" in worlds
    sections += [("published", "Beside the published results")] if beside else []
    sections += [("cost", "Model cost")] if whole and (has_cost or len(llm) or has_use) else []
    arenas = whole and has_arenas(runs)
    sections += [(ARENA_ANCHOR, "Arenas")] if arenas else []
    sections += [("runs", "Runs in detail")] if whole else []
    sections += [("provenance", "Provenance")]
    doc.parts.append('<nav class="toc">' + " · ".join(
        f'<a href="#{a}">{html.escape(label)}</a>' for a, label in sections) + "</nav>")

    # First what a reader came for: each group's result with its interval and how its runs ended.
    doc.h(2, "Summary", "summary")
    # One definition of the headline number on the page: the world's hooks' reading (a bankruptcy as $0 for the
    # startup world, as its figures count it) in the summary, the comparisons and the per-run table alike.
    headline, name_of = with_headline(runs), figure_name(worlds)
    if len(runs):
        doc.table(_presented(headline_table(headline, groups, name_of)),
                  "Headline number: mean over seeds, its standard error and 95 % percentile bootstrap interval, and "
                  "how the runs ended")
        doc.p("The headline number (this table, the comparisons below and the table of every run): for "
              + "; for ".join(headline_rules(headline)) + ".", "note")
        compared = comparison_table(headline, groups)
        if len(compared):
            title, method = comparison_caption(compared.attrs["comparisons"])
            doc.table(compared, title)
            doc.p(method, "note")
        if STOPPED in groups:
            doc.p("Runs stopped by a cap, a guard or their model's API (column stopped) are counted as ended early "
                  "and grouped apart: their figures are where they stopped, so no mean over runs that went on to "
                  "the world's end takes them in.", "note")
        if len(failed):
            doc.p(f"{len(failed):,} run(s) failed to run: their errors are under Runs in detail.", "note")

    n_fig = 0
    for world, wr in (runs.groupby("world", sort=True) if len(runs) and whole else []):
        ok = wr[wr["status"] == "ok"]
        if ok.empty:
            continue
        doc.h(2, f"World: {world}", f"world-{_slug(str(world))}")
        multi = ok["preset_label"].nunique() > 1
        by = (["preset_label", "agent"] if multi else ["agent"]) + metrics.varied_columns(ok)
        for sname in _temporal(series, ok):
            n_fig += 1
            drawn = plots.plotted_series(series, ok, sname, by)
            doc.figure(plots.series_over_time(series, ok, sname, by, table=drawn),
                       f"{n_fig:02d}-{_slug(world)}-{_slug(sname)}",
                       f"{world}: {words(sname)}, mean over seeds (shaded: 95 % percentile bootstrap band of the "
                       "mean, with 3 or more seeds)")
            doc.details("The figure's numbers: mean over seeds", figure_numbers(series, ok, sname, by, table=drawn))
        hooks = _hooks(world)
        if hooks.report is not None:
            counter = [n_fig]

            def next_figure() -> int:
                counter[0] += 1
                return counter[0]

            hooks.report(ReportContext(doc, events, series, ok, by, next_figure))
            n_fig = counter[0]
        for agent, ar in ok.groupby("agent", sort=True):
            if hooks.max_action_figures is not None and len(ok["agent"].unique()) > hooks.max_action_figures:
                break
            n_fig += 1
            doc.figure(plots.action_frequency(events, ar, bin_days=hooks.action_bin_days),
                       f"{n_fig:02d}-{_slug(world)}-actions-{_slug(str(agent))}",
                       f"{world}: the share of each action over the run, agent {agent}")
    ok_all = runs[runs["status"] == "ok"] if len(runs) else runs
    for paper in laid_out:
        # A paper's analyses span its worlds (EcoGym's Table 2 has a column a world): one section, after them.
        doc.h(2, paper.title, f"paper-{_slug(paper.title)}")
        counter = [n_fig]

        def next_paper_figure() -> int:
            counter[0] += 1
            return counter[0]

        mine = ok_all[ok_all["world"].isin(paper.worlds)]
        paper.hook(ReportContext(doc, events[events["run_id"].isin(mine["run_id"])] if len(events) else events, series,
                           mine, ["preset_label", "agent", *metrics.varied_columns(mine)],
                           next_paper_figure, judge=judge, out=root))
        n_fig = counter[0]
    if beside:
        n_fig += 1
        _published_section(doc, res, runs[(runs["world"] == "startup") & (runs["status"] == "ok")], varied, n_fig)
    if whole and (has_cost or len(llm) or has_use):
        doc.h(2, "Model cost", "cost")
        if has_use:
            doc.table(_presented(present(use)), "Model use per turn (a turn is an answered model call): tokens, the "
                      "share of prompt tokens read from the prompt cache, and seconds (of the run, and waiting on "
                      "the model)")
        if has_cost:
            doc.table(metrics.cost_per_dollar(runs, llm, groups), "Cost per dollar earned")
            n_fig += 1
            doc.figure(plots.score_vs_cost(runs, llm, ["agent", *varied]), f"{n_fig:02d}-score-vs-cost",
                       "each agent's mean score against its mean model cost per run")
        else:
            doc.p("No run's model has a price (a local model has none in litellm's price map), so its cost is "
                  "unknown; the tokens and time above are what it used. Give a price with the agent option "
                  "prices={model: (input $/M tokens, output $/M tokens)}.", "note")
    if arenas:
        arena_section(doc, runs)
    if whole:
        doc.h(2, "Runs in detail", "runs")
    if whole and len(runs):
        # How each run ended, as the viewer's sweep page says it: a run that failed to run is "run failed".
        # A stop is said in words ("stopped by its turn cap"), never a bare "error" beside a count of failed runs.
        ending = runs["terminal_reason"].where(runs["status"] == "ok", "run failed") if "terminal_reason" in \
            runs.columns else runs["status"].where(runs["status"] != "ok", "finished")
        details = runs["terminal_detail"] if "terminal_detail" in runs.columns else [None] * len(runs)
        ending = [ending_words(e, d if isinstance(d, str) else None) if isinstance(e, str) else "finished"
                  for e, d in zip(ending, details)]
        counts = runs.assign(ending=ending).groupby([*groups, "ending"], dropna=False).size()
        doc.table(_presented(present(counts.rename("runs").reset_index())), "How the runs ended")
        doc.table(_presented(rates_table(metrics.rates(runs))), "Bankruptcy, collapse and error rates")
        shown = [f for f in metrics.figures_of(runs) if f != "metric_value"]
        outcomes = with_standard_error(metrics.outcomes(runs, figures=shown, interval="bootstrap"))
        money = bool(outcomes["figure"].map(is_money).any()) if len(outcomes) else False
        doc.table(_money_cols(outcomes, name=name_of), "Outcomes" + (" (money in dollars)" if money else "") +
                  ": mean over seeds, standard error, 95 % percentile bootstrap interval")
        table, total = per_seed(headline, extra=varied, name=name_of)
        caption = "Every run (per seed)" + (f": the first {len(table):,} of {total:,}" if total > len(table) else "")
        doc.table(_presented(table), caption)
    if whole and len(failed):
        doc.table(failed[["run_id", "world", "preset_label", "agent", "seed", "error"]], "Failed runs")
        first = failed.iloc[0]
        doc.parts.append(f"<pre>{html.escape(str(first['error_traceback'] or ''))}</pre>")
    doc.h(2, "Provenance", "provenance")
    items = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in provenance(runs, command))
    doc.parts.append(f'<dl class="prov">{items}</dl>')
    body = "\n".join(doc.parts)
    text = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(name)}</title>'
            f"<style>{_CSS}</style></head><body>\n{body}\n</body></html>\n")
    target = root / "report.html"
    write_text_atomic(target, text)
    return target


def _published_section(doc: _Doc, res: Results, startup: Any, varied: list[str], n_fig: int) -> None:
    """The startup runs' funds beside the YC-Bench project page's models, and the final funds side by side."""
    import pandas as pd

    from bizsim.analysis.published import (
        plot_beside_published, published_caveats, published_final_funds, published_paper, published_source,
    )

    source = published_source()
    doc.h(2, "Beside the published results", "published")
    doc.p(f"The published figures are the {source['title']}'s ({source['url']}; as kept in {source['repository']} at "
          f"{source['commit']}): each model's mean funds over its {source['seeds']} seeds at the page's month labels "
          "(the page does not say which instant of the month; for most of its models January is the starting "
          "$200,000). Yours are month-end funds.", "note")
    for caveat in published_caveats():
        doc.p(f"Caveat: {caveat['text']} (source: {caveat['source']})", "note")
    paper = published_paper()
    doc.p(f"The paper's numbers ({paper['title']}, {paper['url']}) are kept where they are known to differ from "
          f"the page's, {paper['obtained']}; an empty cell is not known to differ, which is not known to agree.",
          "note")
    by = ["preset_label", "agent", *(c for c in varied if c in startup.columns and startup[c].notna().any())]
    only = Results(runs=startup, series=res.series, events=res.events, llm_calls=res.llm_calls)
    doc.figure(plot_beside_published(only, by=by), f"{n_fig:02d}-startup-beside-published",
               "startup: your runs' month-end funds (mean over seeds, bold) beside the published models' (dashed)")
    theirs = published_final_funds()
    rows = [{"who": f"{r.name} (published)", "final funds (dollars)": r.final_funds_usd,
             "bankrupt seeds": f"{r.bankrupt_seeds} of {r.seeds}", "the paper's, where it differs": _paper_says(r)}
            for r in theirs.itertuples()]
    final = _FINAL if _FINAL in startup.columns else "final_funds_cents"  # a bankrupt seed counts 0, as theirs do
    for key, g in startup.groupby(by, sort=True, dropna=False):
        rows.append({"who": f"{plots.group_label(key, by)} (yours)", "final funds (dollars)": float(g[final].mean()) / 100,
                     "bankrupt seeds": f"{int(g['bankrupt'].astype(bool).sum())} of {len(g)}",
                     "the paper's, where it differs": ""})
    table = pd.DataFrame(rows).sort_values("final funds (dollars)", ascending=False, kind="stable")
    doc.table(_presented(present(table.reset_index(drop=True))), "Final funds: mean over seeds")


def _paper_says(row: Any) -> str:
    """The paper's own numbers for one published model, each with its place in the paper; "" where none is kept."""
    import pandas as pd

    said = []
    if pd.notna(row.paper_final_funds_shown):
        said.append(f"{row.paper_final_funds_shown} final funds (paper, {row.paper_final_funds_source})")
    if pd.notna(row.paper_bankrupt_seeds):
        said.append(f"{row.paper_bankrupt_seeds} of {row.seeds} bankrupt (paper, {row.paper_bankrupt_seeds_source})")
    return "; ".join(said)


def figure_numbers(series: Any, runs: Any, name: str, by: list[str], *, table: Any = None) -> Any:
    """What :func:`bizsim.analysis.plots.series_over_time` draws, one row a step and one column a line (money in
    dollars): the table a reader checks the figure against (``table``: :func:`~bizsim.analysis.plots.plotted_series`'s
    table, when the caller has it)."""
    table = plots.plotted_series(series, runs, name, by) if table is None else table
    if not len(table):
        return table
    label = [plots.group_label(tuple(k), by) for k in table[by].itertuples(index=False, name=None)]
    wide = table.assign(line=label).pivot_table(index=["step", "key"], columns="line", values="mean", aggfunc="first")
    wide = wide.reset_index().drop(columns="step").rename(columns={"key": "month" if _monthly(table) else "step"})
    wide.columns = [str(c) for c in wide.columns]
    money = tuple(c for c in wide.columns[1:]) if is_money(name) else ()
    return _presented(present(wide, money_columns=money))


def _monthly(table: Any) -> bool:
    return bool(table["key"].astype(str).str.fullmatch(r"\d{4}-\d{2}").all())


class _Paper(NamedTuple):
    name: str
    title: str
    hook: Any
    worlds: list[str]


def _papers(worlds: list[str]) -> list[_Paper]:
    """Each distinct paper section the worlds' hooks name, with the worlds that name it, in the worlds' order."""
    found: dict[Any, _Paper] = {}
    for world in worlds:
        hooks = _hooks(str(world))
        if hooks.paper is not None:
            found.setdefault(hooks.paper, _Paper(hooks.paper_name or str(world), hooks.paper_title or
                                                 "A paper's analyses", hooks.paper, [])).worlds.append(str(world))
    return list(found.values())


def _hooks(world: str) -> AnalysisHooks:
    """A world's analysis hooks (none for a world that declares none, or one this install no longer has)."""
    from bizsim.simcore.errors import ConfigError
    from bizsim.simcore.registry import world_spec

    try:
        found = world_spec(world).hooks()
    except ConfigError:
        return AnalysisHooks()
    return found if found is not None else AnalysisHooks()
