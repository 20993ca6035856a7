"""The startup world's (YC-Bench's) analyses: why tasks failed, adversarial clients, trust, tool use.

They read the ``task`` rows of the events table: one per task the agent
accepted, ``name`` = its final status, ``ok`` = success, ``value`` = listed
reward, and in ``data`` (JSON) the facts below, measured at the end of the
agent turn in which the task was dispatched (when its staffing for the coming
interval is final):

- ``adversarial``: the client is one of the hidden adversarial clients.
- ``hours_needed``: business hours the team as dispatched would need to finish
  the task's remaining work if every assignee worked on it alone (per domain,
  the sum of the best four assignees' rates; the slowest domain counts); null
  when no assignee can work in a required domain.
- ``hours_available``: business hours from dispatch to the deadline (negative
  when dispatched late).
- ``match_ratio``: the team's mean rate in the task's domains over the team's
  mean rate across all domains (< 1: the team is weaker here than on average).
- ``max_split``: the most active tasks any assignee held while the task was
  active (checked at every turn end).
- ``team_size``, ``dispatched_t_us``, ``accepted_t_us``, ``deadline_t_us``,
  ``end_t_us`` (completion or cancellation), ``observed`` (false when the task
  was never active at a turn end, e.g. accepted but never dispatched),
  ``domains``, ``required_qty`` (after scope creep or trust discount),
  ``required_trust`` (the trust with its client the task asked for at
  acceptance; 0 for a task open to every company: YC-Bench's trust-gated
  tasks have 2 to 4), ``required_prestige``.

**Failure causes** of a failed (late) task, not exclusive:

- ``adversarial``: the client is adversarial (its scope creep makes the work 4x).
- ``understaffed``: the team could not meet the deadline even undivided:
  ``hours_needed`` > ``hours_available`` (or ``hours_needed`` is null).
- ``over_parallelised``: some assignee was split across two or more active
  tasks (``max_split`` >= 2), so the team worked at a fraction of its rate.
- ``poor_domain_match``: ``match_ratio`` < 1.
- ``unexplained``: none of the above (e.g. a team that became slower later).

The *primary* cause is the first that holds in that order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from bizsim.analysis.intervals import bootstrap_ci
from bizsim.analysis.metrics import group_columns, ok_runs, with_groups

__all__ = [
    "CAUSES",
    "TASK_FIELDS",
    "adversarial_acceptance",
    "failure_cause_counts",
    "failure_causes",
    "final_trust",
    "task_table",
    "tool_use",
]

#: Failure causes, in the order that picks the primary one.
CAUSES = ("adversarial", "understaffed", "over_parallelised", "poor_domain_match", "unexplained")
#: Each cause in words, as the report and its figure name it.
CAUSE_WORDS = {"adversarial": "adversarial client", "understaffed": "too few hours before the deadline",
               "over_parallelised": "staff split across tasks", "poor_domain_match": "skills off the task's domains",
               "unexplained": "unexplained"}
#: Fields of a task row's ``data``.
TASK_FIELDS = (
    "adversarial", "accepted_t_us", "dispatched_t_us", "deadline_t_us", "end_t_us", "observed", "team_size",
    "hours_needed", "hours_available", "match_ratio", "max_split", "domains", "required_qty", "required_trust",
    "required_prestige",
)
_SCRATCHPAD_WRITES = ("scratchpad write", "scratchpad append")


def _key(cols: list[str], key: Any) -> dict:
    return dict(zip(cols, key if isinstance(key, tuple) else (key,)))


def task_table(events: Any) -> Any:
    """One row per task taken: ``run_id``, ``task``, ``client``, ``status``, ``success``,
    ``listed_reward_cents`` and the ``TASK_FIELDS`` (see the module docstring)."""
    import pandas as pd

    t = events[events["kind"] == "task"]
    base = pd.DataFrame({
        "run_id": t["run_id"].to_numpy(), "task": t["task"].to_numpy(), "client": t["client"].to_numpy(),
        "status": t["name"].to_numpy(), "success": t["ok"].to_numpy(), "listed_reward_cents": t["value"].to_numpy(),
    })
    data = [json.loads(d) if isinstance(d, str) else {} for d in t["data"]]
    fields = pd.DataFrame([{f: d.get(f) for f in TASK_FIELDS} for d in data], columns=list(TASK_FIELDS))
    out = pd.concat([base, fields], axis=1)
    for col in ("hours_needed", "hours_available", "match_ratio"):
        out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    out["adversarial"] = out["adversarial"].fillna(False).astype(bool)
    out["observed"] = out["observed"].fillna(False).astype(bool)
    out["max_split"] = pd.to_numeric(out["max_split"], errors="coerce").fillna(0).astype(int)
    return out


def failure_causes(events: Any) -> Any:
    """The failed tasks with a boolean column per cause in ``CAUSES`` and ``primary_cause``."""
    tasks = task_table(events)
    failed = tasks[tasks["status"] == "completed_fail"].copy()
    failed["adversarial"] = failed["adversarial"].astype(bool)
    failed["understaffed"] = failed["observed"] & (
        failed["hours_needed"].isna() | (failed["hours_needed"] > failed["hours_available"])
    )
    failed["over_parallelised"] = failed["max_split"] >= 2
    failed["poor_domain_match"] = failed["match_ratio"] < 1
    named = list(CAUSES[:-1])
    failed["unexplained"] = ~failed[named].any(axis=1)
    failed["primary_cause"] = failed[list(CAUSES)].idxmax(axis=1) if len(failed) else []
    return failed.reset_index(drop=True)


def failure_cause_counts(events: Any, runs: Any, by: str | Sequence[str] | None = None) -> Any:
    """How many failed tasks had each cause, per group.

    Returns:
        ``by...``, ``cause``, ``failed_tasks`` (of the group), ``count``, ``share``
        (count / failed_tasks; causes overlap, so shares may sum past 1),
        ``primary`` (tasks with it as primary cause), ``primary_share``.
    """
    import pandas as pd


    cols = group_columns(by, runs)
    out_cols = [*cols, "cause", "failed_tasks", "count", "share", "primary", "primary_share"]
    failed = failure_causes(events)
    failed = with_groups(failed, runs, cols)
    rows = []
    for key, g in failed.groupby(cols, sort=True, dropna=False):
        n = len(g)
        for cause in CAUSES:
            count = int(g[cause].sum())
            primary = int((g["primary_cause"] == cause).sum())
            rows.append({**_key(cols, key), "cause": cause, "failed_tasks": n, "count": count, "share": count / n,
                         "primary": primary, "primary_share": primary / n})
    return pd.DataFrame(rows, columns=out_cols)


def adversarial_acceptance(events: Any, runs: Any, by: str | Sequence[str] | None = None) -> Any:
    """The share of accepted tasks that came from adversarial clients, against their share of the market.

    ``market_share`` is the mean over runs of ``adversarial_market_share`` (the
    adversarial clients' share of the initial market, which the agent's choices
    do not move; about 33 % in ``default``, 25 % in ``hard``). A ratio above 1
    means the agent favours adversarial work (their rewards are among the highest).

    Returns:
        ``by...``, ``runs``, ``accepted``, ``adversarial_accepted``, ``acceptance_rate``
        (pooled over the group's runs), ``market_share``, ``ratio``.
    """
    import pandas as pd


    cols = group_columns(by, runs)
    out_cols = [*cols, "runs", "accepted", "adversarial_accepted", "acceptance_rate", "market_share", "ratio"]
    ok = ok_runs(runs)
    tasks = with_groups(task_table(events), ok, cols)
    rows = []
    for key, g in ok.groupby(cols, sort=True, dropna=False):
        mask = pd.Series(True, index=tasks.index)
        for c, v in _key(cols, key).items():
            mask &= tasks[c] == v
        t = tasks[mask]
        accepted, adv = len(t), int(t["adversarial"].sum())
        rate = adv / accepted if accepted else math.nan
        share = math.nan
        if "adversarial_market_share" in g:
            share = float(pd.to_numeric(g["adversarial_market_share"], errors="coerce").mean())
        rows.append({**_key(cols, key), "runs": len(g), "accepted": accepted, "adversarial_accepted": adv,
                     "acceptance_rate": rate, "market_share": share,
                     "ratio": rate / share if share and not math.isnan(share) and not math.isnan(rate) else math.nan})
    return pd.DataFrame(rows, columns=out_cols)


def final_trust(series: Any, runs: Any, by: str | Sequence[str] | None = None, confidence: float = 0.95) -> Any:
    """Each client's trust at the end of the run: the mean over the group's runs with its 95 % percentile bootstrap
    interval (within the runs' trust: never below zero trust; :mod:`bizsim.analysis.intervals`).

    Returns:
        ``by...``, ``client``, ``adversarial``, ``n``, ``mean``, ``ci_low``, ``ci_high``.
    """
    import pandas as pd


    cols = group_columns(by, runs)
    out_cols = [*cols, "client", "adversarial", "n", "mean", "ci_low", "ci_high"]
    ok = ok_runs(runs)
    s = with_groups(series[series["name"] == "final_trust"][["run_id", "key", "value"]], ok, cols)
    adversarial: set[str] = set()
    if "adversarial_clients" in ok:
        for names in ok["adversarial_clients"].dropna():
            adversarial.update(n for n in str(names).split(",") if n)
    rows = []
    for key, g in s.groupby([*cols, "key"], sort=True, dropna=False):
        mean, lo, hi, n = bootstrap_ci(g["value"].tolist(), confidence)
        k = _key([*cols, "client"], key)
        rows.append({**k, "adversarial": k["client"] in adversarial, "n": n, "mean": mean, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows, columns=out_cols)


def tool_use(
    events: Any, runs: Any, by: str | Sequence[str] | None = None, *, per_run: bool = False,
    accepted_only: bool = False,
) -> Any:
    """Tool-use statistics of the YC-Bench paper (its Table 3), per run or averaged per group.

    - ``scratchpad_writes_per_100_turns``: ``scratchpad write`` and
      ``scratchpad append`` calls per 100 turns (SP/100T).
    - ``inspects_per_accept``: ``task inspect`` calls over ``task accept`` calls
      (Inspect/Accept; NaN for a run that called no accept).

    The paper counts calls, so a refused call counts too; ``accepted_only=True`` counts only the calls the
    world accepted (the other reading: what the agent achieved rather than what it tried).
    - ``mean_concurrent_tasks`` (Avg Conc.): time-weighted mean number of active tasks over
      the episode (the sum of every task's active span, dispatch to completion
      or cancellation or the episode's end, over the episode's length).
    - ``commands_per_turn`` (Cmd/Turn): commands issued (refused ones included) per turn.

    Returns:
        per run: ``run_id``, ``by...``, ``turns``, ``commands``, ``scratchpad_writes``, ``inspects``,
        ``accepts`` and the four statistics; per group: ``by...``, ``runs`` and the four statistics' means.
    """
    import pandas as pd


    cols = group_columns(by, runs)
    ok = ok_runs(runs)
    cmds = events[events["kind"] == "cmd"]
    if accepted_only:
        cmds = cmds[cmds["ok"].fillna(False).astype(bool)]
    counts = cmds.groupby(["run_id", "name"]).size().unstack(fill_value=0) if len(cmds) else pd.DataFrame()

    def count(names: Sequence[str]) -> Any:
        present = [n for n in names if n in counts.columns]
        per = counts[present].sum(axis=1) if present else pd.Series(dtype=float)
        return ok["run_id"].map(per).fillna(0).astype(int).to_numpy()

    tasks = task_table(events)
    tasks = tasks[tasks["dispatched_t_us"].notna()]
    end = ok.set_index("run_id")["end_t_us"]
    span_end = tasks["end_t_us"].fillna(tasks["run_id"].map(end)).astype(float)
    span_end = span_end.clip(upper=tasks["run_id"].map(end).astype(float))
    spans = (span_end - tasks["dispatched_t_us"].astype(float)).clip(lower=0).groupby(tasks["run_id"]).sum()
    out = pd.DataFrame({"run_id": ok["run_id"].to_numpy()})
    for c in cols:
        out[c] = ok[c].to_numpy()
    out["turns"] = ok["turns"].to_numpy()
    out["commands"] = ok["commands"].to_numpy()
    out["scratchpad_writes"] = count(_SCRATCHPAD_WRITES)
    out["inspects"] = count(("task inspect",))
    out["accepts"] = count(("task accept",))
    turns = out["turns"].astype(float).where(out["turns"] > 0)
    out["scratchpad_writes_per_100_turns"] = out["scratchpad_writes"] / turns * 100
    out["inspects_per_accept"] = out["inspects"] / out["accepts"].astype(float).where(out["accepts"] > 0)
    length = ok["end_t_us"].astype(float).where(ok["end_t_us"] > 0).to_numpy()
    out["mean_concurrent_tasks"] = out["run_id"].map(spans).fillna(0).to_numpy() / length
    out["commands_per_turn"] = out["commands"] / turns
    if per_run:
        return out
    stats = ["scratchpad_writes_per_100_turns", "inspects_per_accept", "mean_concurrent_tasks", "commands_per_turn"]
    grouped = out.groupby(cols, sort=True, dropna=False)
    result = grouped[stats].mean().reset_index()
    result.insert(len(cols), "runs", grouped.size().to_numpy())
    return result
