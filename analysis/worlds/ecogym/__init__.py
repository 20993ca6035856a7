"""The EcoGym worlds' (vending, freelance, operation) shared analyses: the paper's tables and figures.

:data:`HOOKS` is what each EcoGym world's registration names; the analyses are in :mod:`.paper`, the figures in
:mod:`.plots`. The report lays them out in one section across the three worlds (:func:`paper_section`).
"""

from __future__ import annotations

from typing import Any

from bizsim.analysis.worlds.hooks import AnalysisHooks, ReportContext

from bizsim.analysis.worlds.ecogym import paper

__all__ = ["HOOKS", "paper", "paper_section"]


def _varies(runs: Any, field: str) -> bool:
    return field in runs.columns and runs[field].dropna().astype(str).nunique() > 1


def paper_section(ctx: ReportContext) -> None:
    """The EcoGym paper's tables and figures, laid out as the paper does (definitions: :mod:`.paper`)."""
    from bizsim.analysis.report_tables import present

    from bizsim.analysis.worlds.ecogym import plots as eco_plots

    doc, ok = ctx.doc, ctx.runs
    # ctx.by holds an option only where it varies among one agent's runs (grouping.grouping_columns), a run left
    # at the agent's default (no value) being an arm of its own: counting only the values set would pool it in.
    by = [c for c in ctx.by if c != "world" and c in ok.columns]
    doc.p("As the paper defines them (bizsim.analysis.worlds.ecogym.paper; where the paper leaves a definition open, "
          "the docs' page 'The papers' analyses' says the reading chosen). ± is the standard deviation over a "
          "group's runs; the paper averages Vending over 5 runs.", "note")
    wide = present(paper.table2_wide(ok, by))
    wide.attrs["presented"] = True
    doc.table(wide, "Table 2: net worth (Vending), income (Freelance) and daily active users (Operation), mean ± "
                    "standard deviation over runs, and the standard error of the mean")
    long = paper.table2(ok, by)
    doc.details("Table 2's numbers (cents for money; ranges and intervals)", long)
    if _varies(ok, "history_messages"):
        for world in paper.WORLDS:
            if _varies(ok[ok["world"] == world], "history_messages"):
                doc.figure(eco_plots.context_length(ok, world, "history_messages", by),
                           f"{ctx.next_figure():02d}-ecogym-{world}-context-length",
                           f"{world}: the Table 2 figure against the messages the agent keeps (history_messages): the "
                           "mean over runs, bars the runs' range")
        doc.details("The context-length figures' numbers", paper.context_length(ok, "history_messages", by))
    if _varies(ok, "memory"):
        memory = paper.memory_modules(ok, "memory", by)
        doc.table(present(memory.drop(columns=["ci_low", "ci_high"])),
                  "Memory modules: the Table 2 figure with each module, and its change against no module")
    actions = paper.actions_over_time(ctx.events, ok, by)
    for c in by:  # a baseline beside LLM runs has no agent option: a blank, not a row the pivot drops
        actions[c] = actions[c].astype(object).where(actions[c].notna(), "")
    for world, a in actions.groupby("world", sort=False):
        table = a.pivot_table(index=[*by, "phase", "first_day"], columns="action", values="per_run_day",
                              aggfunc="first", fill_value=0.0).reset_index()
        table.columns = [str(c) for c in table.columns]
        doc.table(table, f"{world}: actions over time, calls of each action per run per day by 30-day phase "
                         "(refused calls included; the day's end is free)")


#: The EcoGym worlds' analysis hooks (each registration's ``analysis``).
HOOKS = AnalysisHooks(paper=paper_section, paper_title="The EcoGym paper's analyses", paper_name="ecogym")
