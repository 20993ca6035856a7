"""The startup world's (YC-Bench's) analyses: task staffing, failure causes, adversarial clients, trust, tool use.

:data:`HOOKS` is what the world's registration names; the analyses are in :mod:`.metrics`, the paper's tables and
figures as the paper defines them in :mod:`.paper`, the figures in :mod:`.plots`.
"""

from __future__ import annotations

from typing import Any

from bizsim.analysis.worlds.hooks import AnalysisHooks, ReportContext

from bizsim.analysis.worlds.startup import paper, plots
from bizsim.analysis.worlds.startup.metrics import (
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
    from bizsim.analysis.worlds.startup.extract import StartupExtractor

    return StartupExtractor()


def _report(ctx: ReportContext) -> None:
    from bizsim.analysis.worlds.startup import plots as startup_plots

    doc, ok, by = ctx.doc, ctx.runs, ctx.by
    # bizsim's own readings, under their own names (the paper's figures are in its section).
    doc.figure(startup_plots.failure_causes(ctx.events, ok, by), f"{ctx.next_figure():02d}-startup-failure-causes",
               "startup (bizsim's reading): causes of failed tasks, each failed task counted under every cause that "
               "holds (they overlap; the YC-Bench paper's one-mode-a-task breakdown is its Figure 5(a))")
    causes = failure_cause_counts(ctx.events, ok, by)
    doc.table(causes.assign(cause=causes["cause"].map(CAUSE_WORDS)), "Failure causes (bizsim's reading)")
    doc.table(adversarial_acceptance(ctx.events, ok, by), "Adversarial clients: acceptance rate against market share")
    doc.table(final_trust(ctx.series, ok, by), "Final trust per client")


def _percent(df: Any, columns: tuple[str, ...] = ("mean", "se", "min", "max")) -> Any:
    """A table whose value columns are shares: shown in percent (a table of the report, presented)."""
    from bizsim.analysis.report_tables import present

    out = present(_ranged(df), percent_columns=columns)
    out.attrs["presented"] = True
    return out


def _ranged(df: Any) -> Any:
    """A per-seed table as the paper shows it: the mean and the seeds' range (a t-interval over three seeds of a
    share or a ratio runs far past what the seeds did; it stays in the function's table for who wants it)."""
    return df.drop(columns=[c for c in ("ci_low", "ci_high") if c in df.columns])


def _mean_sd(mean: float, sd: float, fmt: str) -> str:
    """``mean ± sd`` as the paper's Table 4 gives it (the mean alone for one run, nothing for none)."""
    if mean != mean:
        return ""
    return fmt.format(mean) + ("" if sd != sd else " ± " + fmt.format(sd))


def _table4(ok: Any, by: list[str]) -> Any:
    """Table 4 laid out as the paper does: cost and runtime as ``mean ± sd`` over seeds, runtime in minutes."""
    from bizsim.analysis.report_tables import present

    t4 = paper.table4(ok, None, by)
    shown = t4[[*by, "runs", "bankruptcies"]].copy()
    shown["model cost per run (dollars, mean ± sd)"] = [
        _mean_sd(m, s, "${:,.2f}") for m, s in zip(t4["mean_cost_usd"], t4["sd_cost_usd"])]
    shown["mean_tokens"] = t4["mean_tokens"]
    shown["runtime per run (minutes, mean ± sd)"] = [
        _mean_sd(m, s, "{:,.1f}") for m, s in zip(t4["mean_runtime_min"], t4["sd_runtime_min"])]
    out = present(shown)
    out.attrs["presented"] = True
    return out


def _paper_section(ctx: ReportContext) -> None:
    """The YC-Bench paper's tables and figures, laid out as the paper does (definitions: :mod:`.paper`)."""
    from bizsim.analysis import plots
    from bizsim.analysis.worlds.startup import paper
    from bizsim.analysis.worlds.startup import plots as startup_plots

    doc, ok, events = ctx.doc, ctx.runs, ctx.events
    by = [c for c in ctx.by if c != "preset_label" or ok[c].nunique() > 1]

    def fig(ax: Any, slug: str, caption: str) -> None:
        doc.figure(ax, f"{ctx.next_figure():02d}-startup-{slug}", caption)

    doc.p("As the paper defines them (bizsim.analysis.worlds.startup.paper; where the paper leaves a definition "
          "open, the docs' page 'The papers' analyses' says the reading chosen). Bars are the mean over seeds, dots "
          "each seed, lines the seeds' range; groups are sorted by their mean.", "note")
    fig(startup_plots.final_funds(ok, by), "final-funds",
        "Figure 7 of the paper: each group's final funds, the mean over seeds (bars) and each seed (dots), a "
        "bankrupt run counted as $0 as the paper's leaderboard counts it")
    fig(plots.per_seed_trajectories(ctx.series, ok, "month_end_funds_cents", by), "funds-per-seed",
        "Figure 8 of the paper: the funds of every seed at each month's end, a line a run (a bankrupt run at $0 from "
        "its bankruptcy)")
    doc.table(paper.table3(events, ok, by), "Tool use, the paper's Table 3 (calls, mean over seeds and its standard error)")
    gated = paper.trust_gated_completions(events, ok, by)
    fig(startup_plots.trust_gated_share(events, ok, by), "trust-gated-share",
        "Figure 3(a) of the paper, \"proportion of completed tasks requiring client trust\": of each run's tasks "
        "completed on time, the share that required trust above 0 with their client")
    doc.details("Figure 3(a)'s numbers", _percent(gated))
    fig(startup_plots.final_trust_heatmap(ctx.series, ok, by), "final-trust",
        "Figure 3(b) of the paper, \"final trust level per client averaged across seeds\" (ADV = adversarial): "
        "each client's trust at the end of each run, the mean over the group's seeds")
    doc.details("Figure 3(b)'s numbers", _ranged(paper.final_trust_levels(ctx.series, ok, by)))
    fig(startup_plots.adversarial_share(events, ok, by), "adversarial-share",
        "Figure 4(a) of the paper, the ratio of adversarial tasks among all accepted tasks: each run's share of "
        "accepted tasks whose client is adversarial; dashed, the adversarial clients' share of the market")
    doc.details("Figure 4(a)'s numbers", _percent(paper.adversarial_acceptance_per_seed(events, ok, by),
                                                  ("mean", "se", "min", "max", "market_share")))
    policies = paper.scratchpad_policies(ok, ctx.series, by)
    doc.table(_percent(policies.assign(policy=policies["policy"].str.replace("_", " ")), ("share",)),
              "Figure 4(b): the client policy of the final scratchpad (rule-based)")
    if ctx.judge is not None:
        _judged_section(ctx, by)
    modes = paper.failed_task_causes(events, ok, by)
    fig(startup_plots.failure_modes(events, ok, by), "failure-modes",
        "Figure 5(a) of the paper, the failure mode breakdown of all failed tasks (finished after their deadline): "
        "each in the first mode that holds, adversarial client; incapable employees (the team could not have met "
        "the deadline even working on this task alone); over-committed employees (it could have, but an assignee "
        "held two or more active tasks at once); other (none of the three)")
    doc.details("Figure 5(a)'s numbers", _percent(modes.assign(mode=modes["mode"].map(paper.FAILURE_MODE_WORDS)),
                                                  ("share",)))
    has_cost = "llm_cost_usd" in ok.columns and bool(ok["llm_cost_usd"].notna().any())
    if has_cost:
        fig(startup_plots.revenue_per_dollar(ok, None, by), "revenue-per-api-dollar",
            "Figure 5(b) of the paper, cost efficiency: each run's in-game revenue (task income) per dollar of "
            "model API cost")
        doc.details("Figure 5(b)'s numbers", _ranged(paper.revenue_per_api_dollar(ok, None, by)))
        doc.table(_table4(ok, by), "Table 4 of the paper: bankruptcies, model cost, tokens and runtime per run "
                                   "(runtime: each run's recorded wall-clock time)")
    if "history_rounds" in ok.columns and ok["history_rounds"].dropna().nunique() > 1:
        fig(startup_plots.metric_against(ok, "history_rounds", "metric_value", by), "metric-against-k",
            "Figure 10 of the paper: the metric against the context length K (history_rounds), the mean over seeds, "
            "bars the seeds' range; a group without K (a baseline) is a dashed line at its mean")
    doc.h(3, "bizsim's own readings (not figures of the paper)")
    doc.table(_percent(paper.required_trust_levels(events, ok, by), ("share",)),
              "Completed trust-gated tasks by the trust they required")
    causes = paper.bankruptcy_causes(events, ok, by)
    doc.table(causes.assign(cause=causes["cause"].str.replace("_", " ")),
              "Causes of bankruptcy: each bankrupt run under the cause most of its failed tasks share")


def _judged_section(ctx: ReportContext, by: list[str]) -> None:
    """Figure 4(b) as the rule and the LLM judge read each run, side by side, with their agreement and its cost."""
    import math
    from pathlib import Path

    import attrs

    from bizsim.analysis.labels import human_number
    from bizsim.analysis.worlds.startup import judge as judging

    judge = ctx.judge
    if judge.cache is None and ctx.out is not None:
        judge = attrs.evolve(judge, cache=Path(ctx.out) / judging.JUDGE_CACHE_NAME)
    table = judging.judged_scratchpad_policies(ctx.runs, ctx.series, judge, by)
    shown = table.drop(columns=["cost_usd", "cached"]).rename(columns={"rule": "rule-based", "judged": "LLM judge"})
    for col in ("rule-based", "LLM judge"):
        shown[col] = shown[col].str.replace("_", " ")
    ctx.doc.table(shown, f"Figure 4(b): the rule-based class beside the LLM judge's ({judge.model}, prompt "
                         f"{judging.PROMPT_VERSION})")
    agree = judging.agreement(table)
    costs = table["cost_usd"]
    asked = int((~table["cached"]).sum())
    cost = ("the cost of the calls made now is unknown (no price for the model)" if costs.isna().any()
            else f"the calls made now cost ${human_number(float(costs.sum()))}")
    ctx.doc.p(f"The judge and the rule agree on {'' if math.isnan(agree) else f'{100 * agree:.0f} % of '}"
              f"{len(table)} run(s) (an unclassified answer counts as a disagreement). {asked} scratchpad(s) were "
              f"asked of the model now, {len(table) - asked} answered from the cache; {cost}.",
              "note")


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


def _names(rows: list[dict], world: Any) -> dict[str, str]:
    """Each task's title by its UUID: the initial market's from the fresh world, then one replacement a successful
    accept (its result names the replacement; the world numbers replacements in the order of the accepts)."""
    names = {t.uid: t.title for t in world.tasks}
    serial = len(world.tasks)
    prefix = next(iter(names), "")[:24]
    for r in rows:
        data = r.get("data")
        if r.get("kind") != "cmd" or not isinstance(data, dict) or not isinstance(data.get("result"), dict):
            continue
        fresh = data["result"].get("replacement_task_id")
        if isinstance(fresh, str):
            serial += 1
            names[prefix + f"{serial:012x}"] = fresh
    return names


#: The startup world's analysis hooks (its registration's ``analysis``).
HOOKS = AnalysisHooks(extractor=_extractor, report=_report, action_bin_days=30, max_action_figures=4,
                      timeline=_timeline, names=_names, paper=_paper_section,
                      paper_title="The YC-Bench paper's analyses", paper_name="yc-bench",
                      headline="leaderboard_funds_cents",
                      headline_rule="final funds with a bankrupt run counted as $0, as YC-Bench's leaderboard, the "
                                    "month-end funds figures, Figure 7 and the published results count it (the "
                                    "final balance, below $0 for a bankrupt run, is under Outcomes by that name)",
                      figure_words={"leaderboard_funds_cents": "Final funds, a bankruptcy as $0 (dollars)",
                                    "final_funds_cents": "Final balance, below $0 when bankrupt (dollars)"})
