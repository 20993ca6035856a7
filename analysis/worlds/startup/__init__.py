"""The startup world's (YC-Bench's) analyses: task staffing, failure causes, adversarial clients, trust, tool use.

:data:`HOOKS` is what the world's registration names; the analyses are in :mod:`.metrics`, the paper's tables and
figures as the paper defines them in :mod:`.paper`, the figures in :mod:`.plots`.
"""

from __future__ import annotations

from typing import Any

from bizsim.analysis.worlds.hooks import AnalysisHooks, ReportContext

from . import paper, plots
from .metrics import (
    CAUSE_WORDS,
    CAUSES,
    TASK_FIELDS,
    adversarial_acceptance,
    failure_cause_counts,
    failure_causes,
    final_trust,
    task_table,
    tool_use,
)

__all__ = [
    "CAUSES", "HOOKS", "TASK_FIELDS", "paper", "plots", "adversarial_acceptance", "failure_cause_counts", "failure_causes",
    "final_trust", "task_table", "tool_use",
]


def _extractor() -> Any:
    from .extract import StartupExtractor

    return StartupExtractor()


def _report(ctx: ReportContext) -> None:
    from bizsim.analysis import plots

    from . import plots as startup_plots

    doc, ok, by = ctx.doc, ctx.runs, ctx.by
    doc.figure(plots.per_seed_trajectories(ctx.series, ok, "month_end_funds_cents", by),
               f"{ctx.next_figure():02d}-startup-funds-per-seed", "startup: month-end funds of every seed")
    doc.figure(startup_plots.failure_causes(ctx.events, ok, by), f"{ctx.next_figure():02d}-startup-failure-causes",
               "startup: causes of failed tasks (they overlap)")
    causes = failure_cause_counts(ctx.events, ok, by)
    doc.table(causes.assign(cause=causes["cause"].map(CAUSE_WORDS)), "Failure causes")
    doc.table(adversarial_acceptance(ctx.events, ok, by), "Adversarial clients: acceptance rate against market share")
    doc.table(tool_use(ctx.events, ok, by), "Tool use")
    doc.table(final_trust(ctx.series, ok, by), "Final trust per client")


def _timeline(rows: list[dict], result: dict | None, start: dict | None) -> tuple[str, list[list[float]]]:
    """Funds after every advance: each ``sim resume`` reports its balance change, and funds end at the final funds.

    Without a result yet (a run still being written) the changes are summed from the world's initial funds.
    """
    stops = [(int(r.get("t_us") or 0), int((r.get("data") or {}).get("balance_delta") or 0))
             for r in rows if r.get("kind") == "stop" and isinstance(r.get("data"), dict)]
    final = (result or {}).get("final_funds_cents")
    initial = (start or {}).get("final_funds_cents")
    if isinstance(final, int) and not isinstance(final, bool):
        start_funds = final - sum(d for _, d in stops)
    elif isinstance(initial, int) and not isinstance(initial, bool):
        start_funds = initial
    else:
        from bizsim.models.startup.config import StartupConfig

        start_funds = StartupConfig().initial_funds_cents
    points, funds = [[0, float(start_funds)]], start_funds
    for t, delta in stops:
        funds += delta
        points.append([t, float(funds)])
    return "funds_cents", points


#: The startup world's analysis hooks (its registration's ``analysis``).
HOOKS = AnalysisHooks(extractor=_extractor, report=_report, action_bin_days=30, max_action_figures=4,
                      timeline=_timeline)
