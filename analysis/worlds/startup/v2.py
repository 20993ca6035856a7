"""startup-v2's analyses: startup-v1's, and what the new mechanics did in each group of runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from bizsim.analysis.metrics import group_columns, with_groups
from bizsim.analysis.worlds.hooks import ReportContext
from bizsim.analysis.worlds.startup import HOOKS as V1_HOOKS
from bizsim.models.startup.v2.spec import WORLD
from bizsim.simcore.tallies import tally_names

__all__ = ["HOOKS", "MECHANIC_EVENTS", "mechanics_table"]

#: The labour market's decisions and events, then the disruptions, in the order the table shows them: the names
#: startup-v2's registry entry tallies (the run summary of `bizsim run` counts the same).
MECHANIC_EVENTS = tally_names(WORLD.tallies)


def mechanics_table(events: Any, runs: Any, by: str | Sequence[str] | None = None) -> Any:
    """Per group, the mean number per run of each hire, fire and disruption (a decision counts when it succeeded).

    Returns:
        ``by...``, ``runs``, then one column per name of :data:`MECHANIC_EVENTS`.
    """
    import pandas as pd

    cols = group_columns(by, runs)
    seen = events[events["name"].isin(MECHANIC_EVENTS) & (events["kind"].eq("event") | events["ok"].eq(True))]
    per_run = seen.groupby(["run_id", "name"]).size().unstack(fill_value=0).reindex(
        columns=list(MECHANIC_EVENTS), fill_value=0)
    table = with_groups(runs[["run_id"]].merge(per_run, left_on="run_id", right_index=True, how="left").fillna(0),
                        runs, cols)
    rows = []
    for key, g in table.groupby(cols, sort=True, dropna=False):
        values = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(cols, values)), "runs": len(g), **{n: float(g[n].mean()) for n in MECHANIC_EVENTS}})
    return pd.DataFrame(rows, columns=[*cols, "runs", *MECHANIC_EVENTS])


def _report(ctx: ReportContext) -> None:
    assert V1_HOOKS.report is not None  # v1's hooks have a report section
    V1_HOOKS.report(ctx)
    ctx.doc.table(mechanics_table(ctx.events, ctx.runs, ctx.by),
                  "startup-v2: hires, fires and disruptions per run (means)")


HOOKS = attrs.evolve(V1_HOOKS, report=_report)
