"""The YC-Bench paper's analyses, from the result tables of any set of startup runs.

Each function names the table or figure of the paper it lays out; where the
paper leaves a definition open, the docstring says the reading chosen and how
to get the other one (``docs/paper-analyses.md`` gathers them):

- :func:`table3` — Table 3, tool use: SP/100T, Inspect/Accept, Avg Conc.,
  Cmd/Turn (calls, as the paper counts them).
- :func:`trust_gated_completions` — Figure 3(a), "Proportion of completed
  tasks requiring client trust": each run's share, mean over seeds and range.
- :func:`final_trust_levels` — Figure 3(b), "Final trust level per client
  averaged across seeds": a group by client table (the report draws it as the
  paper's heat map). bizsim's own :func:`required_trust_levels` counts the
  trust-gated completions by the trust they required.
- :func:`adversarial_acceptance_per_seed` — Figure 4(a), the share of
  accepted tasks from adversarial clients, per-seed mean and range, against
  the adversarial share of the market.
- :func:`scratchpad_policies` — Figure 4(b), the client policy each run's
  final scratchpad states (:func:`scratchpad_policy`, a rule-based classifier).
- :func:`failed_task_causes` — Figure 5(a), "Failure mode breakdown": every
  failed task in one of the paper's three causes (adversarial client, incapable
  employees, over-committed employees), or ``other``. bizsim's own
  :func:`bankruptcy_causes` puts each bankrupt run in one cause.
- :func:`revenue_per_api_dollar` — Figure 5(b), revenue per dollar of model
  API cost, per-seed mean and range.
- :func:`table4` — Table 4: bankruptcies, model cost and runtime (minutes),
  each mean and standard deviation over seeds, tokens.
- :func:`metric_against` — Figure 10, a metric against an agent option (the
  context length K, ``history_rounds``), per-seed mean and range.
- :func:`final_funds_per_seed` — Figure 7, each group's final funds seed by
  seed (a bankruptcy as $0, as the leaderboard counts it) and their mean;
  Figure 8, the monthly funds of every seed, is
  :func:`bizsim.analysis.plots.per_seed_trajectories`.

Groups are :func:`bizsim.analysis.metrics.group_columns`' (every spec field
that varies, by default); every function takes ``by=`` as the others do.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from bizsim.analysis.intervals import bootstrap_ci, standard_error
from bizsim.analysis.metrics import group_columns, ok_runs, run_cost_and_income, with_groups

from bizsim.analysis.worlds.startup.metrics import CAUSES, failure_causes, task_table, tool_use

__all__ = [
    "BANKRUPTCY_CAUSES",
    "FAILURE_MODES",
    "FAILURE_MODE_WORDS",
    "POLICIES",
    "scratchpad_policies",
    "scratchpad_policy",
    "adversarial_acceptance_per_seed",
    "bankruptcy_causes",
    "failed_task_causes",
    "final_funds_per_seed",
    "final_trust_levels",
    "metric_against",
    "required_trust_levels",
    "revenue_per_api_dollar",
    "run_runtime",
    "table3",
    "table4",
    "trust_gated_completions",
]

#: Figure 5(a)'s failure modes of a failed task, each the finer cause (the primary one of
#: :func:`bizsim.analysis.worlds.startup.failure_causes`) that makes it; ``other`` gathers the rest.
FAILURE_MODES: dict[str, tuple[str, ...]] = {
    "adversarial_client": ("adversarial",),
    "incapable_employees": ("understaffed",),
    "over_committed_employees": ("over_parallelised",),
    "other": ("poor_domain_match", "unexplained"),
}
#: Each failure mode as the paper's legend words it (``other`` is bizsim's: the paper has three).
FAILURE_MODE_WORDS = {
    "adversarial_client": "failed to identify adversarial clients",
    "incapable_employees": "assigned incapable employees",
    "over_committed_employees": "over-committed employees to tasks",
    "other": "other (none of the three)",
}

#: bizsim's causes of a bankruptcy (its own reading, not a figure of the paper), and the finer task-failure
#: causes each gathers.
BANKRUPTCY_CAUSES: dict[str, tuple[str, ...]] = {
    "adversarial_client": ("adversarial",),
    "over_parallelisation": ("over_parallelised",),
    "payroll_outran_income": ("understaffed", "poor_domain_match", "unexplained"),
}


def _key(cols: list[str], key: Any) -> dict:
    return dict(zip(cols, key if isinstance(key, tuple) else (key,)))


def _spread(values: Sequence[float]) -> dict:
    """Per-seed mean, its standard error and 95 % percentile bootstrap interval, and the range (the paper's error
    bars are the seeds' range)."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    mean, low, high, n = bootstrap_ci(xs)
    return {"seeds": n, "mean": mean, "se": standard_error(xs), "ci_low": low, "ci_high": high,
            "min": min(xs) if xs else math.nan,
            "max": max(xs) if xs else math.nan}


def _per_group(per_run: Any, cols: list[str], value: str, extra: dict[str, Any] | None = None) -> Any:
    """``per_run``'s ``value`` summarised per group by :func:`_spread`, with ``extra`` sums of other columns."""
    import pandas as pd

    rows = []
    for key, g in per_run.groupby(cols, sort=True, dropna=False):
        row = {**_key(cols, key), "runs": len(g)}
        for name, how in (extra or {}).items():
            row[name] = how(g)
        rows.append({**row, **_spread(pd.to_numeric(g[value], errors="coerce").astype(float).tolist())})
    columns = [*cols, "runs", *(extra or {}), "seeds", "mean", "se", "ci_low", "ci_high", "min", "max"]
    return pd.DataFrame(rows, columns=columns)


def table3(events: Any, runs: Any, by: str | Sequence[str] | None = None, *, accepted_only: bool = False) -> Any:
    """Table 3: SP/100T, Inspect/Accept, Avg Conc. and Cmd/Turn per group (means over seeds), each with the
    standard error of its mean (``<figure>_se``: sd over the seeds that have the figure, n - 1, over sqrt(n)).

    The paper counts calls, refused ones included; ``accepted_only=True`` counts the accepted calls only.
    (:func:`bizsim.analysis.worlds.startup.tool_use` with ``per_run=True`` gives each run's figures.)

    Returns:
        ``by...``, ``runs``, ``sp_per_100_turns``, ``sp_per_100_turns_se``, ``inspects_per_accept``,
        ``inspects_per_accept_se``, ``mean_concurrent_tasks``, ``mean_concurrent_tasks_se``, ``commands_per_turn``,
        ``commands_per_turn_se``.
    """
    names = {"scratchpad_writes_per_100_turns": "sp_per_100_turns"}
    out = tool_use(events, runs, by, accepted_only=accepted_only).rename(columns=names)
    cols = group_columns(by, runs)
    per_run = tool_use(events, runs, by, per_run=True, accepted_only=accepted_only).rename(columns=names)
    stats = ["sp_per_100_turns", "inspects_per_accept", "mean_concurrent_tasks", "commands_per_turn"]
    if not len(out) or not len(per_run):
        return out
    errors = per_run.groupby(cols, sort=True, dropna=False)[stats].agg(
        lambda s: standard_error(s.astype(float).tolist())).reset_index()
    out = out.merge(errors, on=cols, how="left", suffixes=("", "_se"))
    return out[[*cols, "runs", *(c for s in stats for c in (s, f"{s}_se"))]]


def _completed(events: Any, runs: Any, cols: list[str]) -> Any:
    tasks = task_table(events)
    tasks = tasks[tasks["status"] == "completed_success"].copy()
    tasks["required_trust"] = tasks["required_trust"].fillna(0).astype(int)
    return with_groups(tasks, ok_runs(runs), cols)


def trust_gated_completions(
    events: Any, runs: Any, by: str | Sequence[str] | None = None, *, per_run: bool = False
) -> Any:
    """Figure 3(a): the share of a run's completed tasks that required trust with their client.

    A task is trust-gated when it asked for trust above 0 (``required_trust`` of its task row). Completed means
    finished on time (``completed_success``): the paper's reading of a task the agent earned from. The group's
    figure is the mean over seeds of each run's share, with the seeds' range; ``gated`` and ``completed`` are
    summed over the group, so ``gated / completed`` is the pooled share for those who want it.

    Returns:
        per run: ``run_id``, ``by...``, ``completed``, ``gated``, ``share``; per group: ``by...``, ``runs``,
        ``completed``, ``gated``, ``seeds``, ``mean``, ``se``, ``ci_low``, ``ci_high``, ``min``, ``max``.
    """
    import pandas as pd

    cols = group_columns(by, runs)
    ok = ok_runs(runs)
    done = _completed(events, runs, cols)
    counts = done.groupby("run_id").agg(completed=("task", "size"), gated=("required_trust", lambda s: int((s > 0).sum())))
    out = ok[["run_id", *cols]].copy()
    out["completed"] = out["run_id"].map(counts["completed"]).fillna(0).astype(int)
    out["gated"] = out["run_id"].map(counts["gated"]).fillna(0).astype(int)
    out["share"] = (out["gated"] / out["completed"].where(out["completed"] > 0)).astype(float)
    if per_run:
        return out.reset_index(drop=True)
    extra = {"completed": lambda g: int(g["completed"].sum()), "gated": lambda g: int(g["gated"].sum())}
    return _per_group(out, cols, "share", extra) if len(out) else pd.DataFrame(columns=[*cols, "runs", *extra])


def required_trust_levels(events: Any, runs: Any, by: str | Sequence[str] | None = None) -> Any:
    """bizsim's reading (not a figure of the paper): the trust-gated tasks a group completed, by the trust they
    required (2, 3 or 4 in YC-Bench). The paper's Figure 3(b) is :func:`final_trust_levels`.

    Returns:
        ``by...``, ``required_trust``, ``completed`` (tasks over the group's runs), ``per_run``, ``share`` (of the
        group's completed trust-gated tasks).
    """
    cols = group_columns(by, runs)
    done = _completed(events, runs, cols)
    gated = done[done["required_trust"] > 0]
    n_runs = ok_runs(runs).groupby(cols, dropna=False).size().rename("group_runs").reset_index()
    out = gated.groupby([*cols, "required_trust"], dropna=False).size().rename("completed").reset_index()
    out = out.merge(n_runs, on=cols, how="left")
    out["per_run"] = out["completed"] / out["group_runs"]
    out["share"] = out["completed"] / out.groupby(cols, dropna=False)["completed"].transform("sum")
    return out[[*cols, "required_trust", "completed", "per_run", "share"]].reset_index(drop=True)


def final_trust_levels(series: Any, runs: Any, by: str | Sequence[str] | None = None) -> Any:
    """Figure 3(b), "Final trust level per client averaged across seeds": each client's trust at the end of each
    run (the ``final_trust`` series), the mean over the group's seeds, adversarial clients marked.

    Returns:
        ``by...``, ``client``, ``adversarial``, ``n`` (seeds), ``mean``, ``ci_low``, ``ci_high``; adversarial
        clients first (the paper's columns marked ADV), then by name.
    """
    from bizsim.analysis.worlds.startup.metrics import final_trust

    cols = group_columns(by, runs)
    out = final_trust(series, runs, cols)
    order = out.assign(_adv=~out["adversarial"].astype(bool)).sort_values([*cols, "_adv", "client"], kind="stable")
    return order.drop(columns="_adv").reset_index(drop=True)


def adversarial_acceptance_per_seed(
    events: Any, runs: Any, by: str | Sequence[str] | None = None, *, per_run: bool = False
) -> Any:
    """Figure 4(a): each run's share of accepted tasks from adversarial clients; per group the mean over seeds
    and the seeds' range, beside ``market_share`` (the adversarial clients' share of the initial market, the
    rate an agent that could not tell them apart would show). Runs that accepted nothing have no share.
    (:func:`bizsim.analysis.worlds.startup.adversarial_acceptance` pools the tasks instead.)

    Returns:
        per run: ``run_id``, ``by...``, ``accepted``, ``adversarial_accepted``, ``rate``, ``market_share``; per
        group: ``by...``, ``runs``, ``accepted``, ``adversarial_accepted``, ``market_share``, ``seeds``, ``mean``,
        ``se``, ``ci_low``, ``ci_high``, ``min``, ``max``.
    """
    import pandas as pd

    cols = group_columns(by, runs)
    ok = ok_runs(runs)
    tasks = task_table(events)
    per = tasks.groupby("run_id").agg(accepted=("task", "size"), adversarial=("adversarial", "sum"))
    out = ok[["run_id", *cols]].copy()
    out["accepted"] = out["run_id"].map(per["accepted"]).fillna(0).astype(int)
    out["adversarial_accepted"] = out["run_id"].map(per["adversarial"]).fillna(0).astype(int)
    out["rate"] = (out["adversarial_accepted"] / out["accepted"].where(out["accepted"] > 0)).astype(float)
    share = ok["adversarial_market_share"] if "adversarial_market_share" in ok.columns else pd.Series(math.nan, index=ok.index)
    out["market_share"] = pd.to_numeric(share, errors="coerce").to_numpy()
    if per_run:
        return out.reset_index(drop=True)
    extra = {"accepted": lambda g: int(g["accepted"].sum()),
             "adversarial_accepted": lambda g: int(g["adversarial_accepted"].sum()),
             "market_share": lambda g: float(g["market_share"].mean())}
    return _per_group(out, cols, "rate", extra)


def failed_task_causes(events: Any, runs: Any, by: str | Sequence[str] | None = None, *, per_run: bool = False) -> Any:
    """Figure 5(a), the paper's "failure mode breakdown" of all failed tasks: each failed task in one mode.

    A failed task is one finished after its deadline (``completed_fail``: YC-Bench judges a task when its work is
    done, so a late task is a failed one; a cancelled task is the agent's choice and not counted). Its mode is
    the first that holds, in this order (:data:`FAILURE_MODES`):

    - ``adversarial_client``: its client is one of the hidden adversarial clients (the agent failed to identify it);
    - ``incapable_employees``: the employees assigned could not meet the deadline even had each worked on this
      task alone (``hours_needed`` > ``hours_available`` at dispatch, or no assignee works in a required domain);
    - ``over_committed_employees``: they could have, but an assignee held two or more active tasks at once while
      this one was active (``max_split`` >= 2), so the team worked at a fraction of its rate;
    - ``other``: none of the three (the paper's bars have three modes; bizsim shows the rest rather than force it).

    Shares are of the group's failed tasks pooled over its runs (the paper's "% of failures").

    Returns:
        per run: ``run_id``, ``by...``, ``failed_tasks``, one count per mode; per group: ``by...``, ``runs``,
        ``failed_tasks``, ``mode``, ``count``, ``share`` (NaN for a group that failed no task).
    """
    import pandas as pd

    cols = group_columns(by, runs)
    ok = ok_runs(runs)
    failed = failure_causes(events)
    failed = failed[failed["run_id"].isin(ok["run_id"])]
    mode_of = {fine: mode for mode, fines in FAILURE_MODES.items() for fine in fines}
    modes = failed["primary_cause"].map(mode_of) if len(failed) else pd.Series(dtype=str)
    counts = pd.crosstab(failed["run_id"], modes) if len(failed) else pd.DataFrame()
    out = ok[["run_id", *cols]].copy()
    for m in FAILURE_MODES:
        out[m] = out["run_id"].map(counts[m]).fillna(0).astype(int) if m in counts.columns else 0
    out["failed_tasks"] = out[list(FAILURE_MODES)].sum(axis=1)
    if per_run:
        return out[["run_id", *cols, "failed_tasks", *FAILURE_MODES]].reset_index(drop=True)
    rows = []
    for key, g in out.groupby(cols, sort=True, dropna=False):
        n = int(g["failed_tasks"].sum())
        for m in FAILURE_MODES:
            count = int(g[m].sum())
            rows.append({**_key(cols, key), "runs": len(g), "failed_tasks": n, "mode": m, "count": count,
                         "share": count / n if n else math.nan})
    return pd.DataFrame(rows, columns=[*cols, "runs", "failed_tasks", "mode", "count", "share"])


def bankruptcy_causes(events: Any, runs: Any, by: str | Sequence[str] | None = None, *, per_run: bool = False) -> Any:
    """bizsim's reading (not a figure of the paper; its Figure 5(a) is :func:`failed_task_causes`): each bankrupt
    run's cause, one of three (:data:`BANKRUPTCY_CAUSES`).

    A bankrupt run's failed tasks each have a primary cause (bizsim's finer causes,
    :func:`bizsim.analysis.worlds.startup.failure_causes`); the run's cause is the one of the three that
    gathers most of them (ties go in the order adversarial client, over-parallelisation, payroll outran
    income), and ``payroll_outran_income`` when it failed no task: payroll ran out with no failure to blame.
    The finer counts stay beside it, so a reader can regroup them.

    Returns:
        per run (bankrupt runs): ``run_id``, ``by...``, ``failed_tasks``, one count per finer cause, ``cause``;
        per group: ``by...``, ``bankruptcies``, ``cause``, ``count``, ``share`` (of the group's bankruptcies).
    """
    import pandas as pd

    cols = group_columns(by, runs)
    ok = ok_runs(runs)
    broke = ok[ok["bankrupt"].fillna(False).astype(bool)] if "bankrupt" in ok.columns else ok.iloc[0:0]
    failed = failure_causes(events)
    failed = failed[failed["run_id"].isin(broke["run_id"])]
    fine = failed.groupby(["run_id", "primary_cause"]).size().unstack(fill_value=0) if len(failed) else pd.DataFrame()
    out = broke[["run_id", *cols]].copy()
    for c in CAUSES:
        out[c] = out["run_id"].map(fine[c]).fillna(0).astype(int) if c in fine.columns else 0
    out["failed_tasks"] = out[list(CAUSES)].sum(axis=1)
    causes = list(BANKRUPTCY_CAUSES)

    def cause(row: Any) -> str:
        if row["failed_tasks"] == 0:
            return "payroll_outran_income"
        weight = [sum(int(row[f]) for f in BANKRUPTCY_CAUSES[c]) for c in causes]
        return causes[weight.index(max(weight))]

    out["cause"] = out.apply(cause, axis=1) if len(out) else pd.Series(dtype=str)
    if per_run:
        return out[["run_id", *cols, "failed_tasks", *CAUSES, "cause"]].reset_index(drop=True)
    rows = []
    for key, g in out.groupby(cols, sort=True, dropna=False):
        for c in causes:
            count = int((g["cause"] == c).sum())
            rows.append({**_key(cols, key), "bankruptcies": len(g), "cause": c, "count": count, "share": count / len(g)})
    return pd.DataFrame(rows, columns=[*cols, "bankruptcies", "cause", "count", "share"])


def revenue_per_api_dollar(
    runs: Any, llm_calls: Any = None, by: str | Sequence[str] | None = None, *, per_run: bool = False
) -> Any:
    """Figure 5(b): dollars earned per dollar of model API cost; per group the mean over seeds of each run's
    ratio and the seeds' range. Earned is the run's income (task rewards; ``income_cents``), not its profit;
    runs with an unknown cost are left out, and a run that cost nothing has no ratio. ``earned_usd`` and
    ``cost_usd`` are the group's sums, so ``earned_usd / cost_usd`` is the pooled ratio; its inverse is
    :func:`bizsim.analysis.metrics.cost_per_dollar`.

    Returns:
        per run: ``run_id``, ``by...``, ``earned_usd``, ``cost_usd``, ``ratio``; per group: ``by...``, ``runs``,
        ``earned_usd``, ``cost_usd``, ``seeds``, ``mean``, ``se``, ``ci_low``, ``ci_high``, ``min``, ``max``.
    """
    cols = group_columns(by, runs)
    r = run_cost_and_income(runs, llm_calls)
    r = r.assign(ratio=(r["earned_usd"].fillna(0) / r["cost_usd"].where(r["cost_usd"] > 0)).astype(float))
    if per_run:
        return r[["run_id", *cols, "earned_usd", "cost_usd", "ratio"]].reset_index(drop=True)
    extra = {"earned_usd": lambda g: float(g["earned_usd"].fillna(0).sum()),
             "cost_usd": lambda g: float(g["cost_usd"].sum())}
    return _per_group(r[["run_id", *cols, "earned_usd", "cost_usd", "ratio"]], cols, "ratio", extra)


def run_runtime(runs: Any) -> Any:
    """Each run's wall-clock seconds: its record's ``wall_s`` (``result.json``'s, the same in ``results.jsonl``
    and in a loaded run directory), NaN for a run recorded without one. One runtime a run, everywhere."""
    import pandas as pd

    if "wall_s" not in runs.columns:
        return pd.Series(math.nan, index=runs.index, dtype=float)
    return pd.to_numeric(runs["wall_s"], errors="coerce").astype(float)


def table4(runs: Any, llm_calls: Any = None, by: str | Sequence[str] | None = None) -> Any:
    """Table 4: per group, bankruptcies of runs, model cost per run (mean and standard deviation over seeds),
    tokens per run (prompt plus completion, mean) and runtime per run in minutes (mean and standard deviation
    over seeds, from each run's recorded ``wall_s``: :func:`run_runtime`), as the paper gives it.

    Returns:
        ``by...``, ``runs``, ``bankruptcies``, ``mean_cost_usd``, ``sd_cost_usd``, ``mean_tokens``,
        ``mean_runtime_min``, ``sd_runtime_min`` (standard deviations n - 1; NaN below two runs).
    """
    import pandas as pd

    cols = group_columns(by, runs)
    ok = ok_runs(runs).copy()
    costs = run_cost_and_income(runs, llm_calls).set_index("run_id")["cost_usd"]
    ok["cost"] = ok["run_id"].map(costs)
    parts = [pd.to_numeric(ok[c], errors="coerce").astype(float) for c in ("llm_prompt_tokens", "llm_completion_tokens")
             if c in ok.columns]
    # A run without a model (a baseline beside LLM runs) has no tokens, not 0 of them.
    ok["tokens"] = pd.concat(parts, axis=1).sum(axis=1, min_count=1) if parts else math.nan
    ok["runtime"] = run_runtime(ok).to_numpy() / 60.0
    rows = []
    for key, g in ok.groupby(cols, sort=True, dropna=False):
        cost, minutes = g["cost"].dropna(), g["runtime"].dropna()
        rows.append({
            **_key(cols, key), "runs": len(g),
            "bankruptcies": int(g["bankrupt"].fillna(False).astype(bool).sum()) if "bankrupt" in g.columns else 0,
            "mean_cost_usd": float(cost.mean()) if len(cost) else math.nan,
            "sd_cost_usd": float(cost.std(ddof=1)) if len(cost) > 1 else math.nan,
            "mean_tokens": float(g["tokens"].mean()),
            "mean_runtime_min": float(minutes.mean()) if len(minutes) else math.nan,
            "sd_runtime_min": float(minutes.std(ddof=1)) if len(minutes) > 1 else math.nan,
        })
    return pd.DataFrame(rows, columns=[*cols, "runs", "bankruptcies", "mean_cost_usd", "sd_cost_usd", "mean_tokens",
                                       "mean_runtime_min", "sd_runtime_min"])


def metric_against(
    runs: Any, field: str = "history_rounds", value: str = "metric_value", by: str | Sequence[str] | None = None
) -> Any:
    """Figure 10: a per-run figure (``value``) against a spec field (``field``, e.g. the context length K,
    ``history_rounds``), per-seed mean with its interval and the seeds' range, one row per value of the field
    within each group. A run without the field (a baseline beside LLM runs: greedy has no context length) is no
    point of the figure; :func:`bizsim.analysis.worlds.startup.plots.metric_against` draws such groups as a line.

    Raises:
        ConfigError: the runs have no column ``field`` (agent options are columns: ``store.option_column``).
    """
    from bizsim.simcore.errors import ConfigError

    if field not in runs.columns:
        raise ConfigError(f"the runs have no column {field!r}; agent options that the runs were given are columns "
                          "(history_rounds, memory, temperature, ...): pass one of those as field=")
    cols = [c for c in group_columns(by, runs) if c != field]
    r = ok_runs(runs)
    return _per_group(r[r[field].notna()], [*cols, field], value)


#: Figure 4(b)'s classes of a client policy, in the order the report lists them.
POLICIES = ("whitelist", "avoid_only", "select_and_avoid", "no_policy")
#: Words that, in a sentence naming a client, say to keep away from it.
_AVOID = re.compile(
    r"\b(avoid\w*|blacklist\w*|never|don'?t|do not|skip\w*|stop\w*|bad|adversar\w*|scam\w*|rats?|drop\w*|ban\w*|"
    r"refus\w*|reject\w*|exclud\w*|untrust\w*|unreliable|scope creep|toxic|no more|steer clear)\b", re.IGNORECASE)
#: Words that, in a sentence naming a client, say to seek it out.
_SELECT = re.compile(
    r"\b(only|whitelist\w*|prefer\w*|focus\w*|stick\w*|trusted|good|reliable|target\w*|priorit\w*|favou?r\w*|"
    r"keep|safe|loyal|build trust|exclusive\w*)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?;\n]+")
#: Text past this many characters is not read (the scratchpad commands allow 100,000).
MAX_SCRATCHPAD_CHARS = 100_000


def scratchpad_policy(text: str | None, clients: Iterable[str]) -> str:
    """The client policy a scratchpad states: ``whitelist``, ``avoid_only``, ``select_and_avoid`` or ``no_policy``.

    The rule: the text is cut into sentences (at ``.``, ``!``, ``?``, ``;`` and line ends); a sentence that
    names one of ``clients`` (case-insensitive) is an *avoid* statement when it holds an avoid word (avoid,
    blacklist, never, don't, skip, adversarial, scam, RAT, drop, refuse, unreliable, scope creep, ...), else
    a *select* statement when it holds a select word (only, whitelist, prefer, focus, stick, trusted, good,
    reliable, target, prioritise, keep, ...). Select statements and no avoid statement: ``whitelist`` (the agent
    works for the clients it named); avoid statements only: ``avoid_only``; both: ``select_and_avoid``; neither
    (or no client named): ``no_policy``. Only the first :data:`MAX_SCRATCHPAD_CHARS` characters are read.

    >>> scratchpad_policy("Only take work from Cortex and Helix.", ["Cortex", "Helix", "Equinox"])
    'whitelist'
    >>> scratchpad_policy("Equinox: scope creep, avoid!", ["Cortex", "Equinox"])
    'avoid_only'
    >>> scratchpad_policy("Focus on Cortex. Never accept Equinox tasks.", ["Cortex", "Equinox"])
    'select_and_avoid'
    >>> scratchpad_policy("Payroll is due on the 1st.", ["Cortex"])
    'no_policy'
    """
    names = [c.strip().lower() for c in clients if isinstance(c, str) and c.strip()]
    avoid = select = False
    for sentence in _SENTENCE.findall((text or "")[:MAX_SCRATCHPAD_CHARS]):
        low = sentence.lower()
        if not any(n in low for n in names):
            continue
        if _AVOID.search(sentence):
            avoid = True
        elif _SELECT.search(sentence):
            select = True
    if avoid and select:
        return "select_and_avoid"
    return "avoid_only" if avoid else "whitelist" if select else "no_policy"


def scratchpad_policies(
    runs: Any, series: Any, by: str | Sequence[str] | None = None, *, per_run: bool = False
) -> Any:
    """Figure 4(b): the client policy of each run's final scratchpad (``final_scratchpad`` of the runs table),
    by :func:`scratchpad_policy` with the run's clients (the keys of its ``final_trust`` series); per group the
    count and share of runs in each class. A run without a recorded scratchpad (made before bizsim kept it)
    is left out. For another reading, classify ``runs.final_scratchpad`` yourself (an LLM judge through
    bizsim's own harness, say) and group the result the same way.

    Returns:
        per run: ``run_id``, ``by...``, ``policy``; per group: ``by...``, ``runs``, ``policy``, ``count``, ``share``.
    """
    import pandas as pd

    cols = group_columns(by, runs)
    ok = ok_runs(runs)
    if "final_scratchpad" not in ok.columns:
        ok = ok.iloc[0:0].assign(final_scratchpad=None)
    ok = ok[ok["final_scratchpad"].notna()]
    trust = series[series["name"] == "final_trust"]
    clients = trust.groupby("run_id")["key"].agg(list).to_dict() if len(trust) else {}
    out = ok[["run_id", *cols]].copy()
    out["policy"] = [scratchpad_policy(str(text), clients.get(rid, []))
                     for rid, text in zip(ok["run_id"], ok["final_scratchpad"])]
    if per_run:
        return out.reset_index(drop=True)
    rows = []
    for key, g in out.groupby(cols, sort=True, dropna=False):
        for policy in POLICIES:
            count = int((g["policy"] == policy).sum())
            rows.append({**_key(cols, key), "runs": len(g), "policy": policy, "count": count, "share": count / len(g)})
    return pd.DataFrame(rows, columns=[*cols, "runs", "policy", "count", "share"])


def final_funds_per_seed(runs: Any, by: str | Sequence[str] | None = None, value: str = "leaderboard_funds_cents") -> Any:
    """Figure 7: each group's final funds, seed by seed, and their mean. ``value`` is the leaderboard's reading by
    default (final funds, a bankrupt run as $0); ``value="final_funds_cents"`` keeps a bankrupt run's negative
    balance.

    Returns:
        ``by...``, ``seed``, ``run_id``, ``value`` (cents), ``group_mean`` (cents), ``bankrupt``.
    """
    import pandas as pd

    cols = group_columns(by, runs)
    ok = ok_runs(runs)
    if value not in ok.columns:
        return pd.DataFrame(columns=[*cols, "seed", "run_id", "value", "group_mean", "bankrupt"])
    out = ok[[*cols, "seed", "run_id"]].copy()
    out["value"] = pd.to_numeric(ok[value], errors="coerce").astype(float).to_numpy()
    out["group_mean"] = out.groupby(cols, dropna=False)["value"].transform("mean")
    out["bankrupt"] = ok["bankrupt"].fillna(False).astype(bool).to_numpy() if "bankrupt" in ok.columns else False
    return out.sort_values([*cols, "seed"]).reset_index(drop=True)
