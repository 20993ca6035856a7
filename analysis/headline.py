"""The report's headline number: one definition per page, and the words it goes by.

A world's metric is what its runs record (the startup world's is the final balance, below $0 for a bankrupt run).
Where the world's figures and its paper count a run another way (a bankruptcy as $0), the world's analysis hooks
name that reading as the headline (``headline``), say how it counts a run (``headline_rule``), and name each of
its figures so two readings never share a name (``figure_words``). The report's summary, per-run table, figures
and comparisons then all read the same number, and its caption says which.
"""

from __future__ import annotations

from typing import Any

from bizsim.analysis.labels import words

__all__ = ["figure_name", "headline_rules", "with_headline"]


def _hooks(world: str) -> Any:
    from bizsim.simcore.errors import ConfigError
    from bizsim.simcore.registry import world_spec

    try:
        return world_spec(world).hooks()
    except ConfigError:  # a world this install no longer has: its metric as recorded
        return None


def with_headline(runs: Any) -> Any:
    """``runs`` with ``metric`` and ``metric_value`` the headline reading of each run's world (its hooks'
    ``headline`` column where it names one, else the metric as recorded)."""
    if not len(runs) or "world" not in runs.columns:
        return runs
    import pandas as pd

    out = runs.copy()
    # floats: a headline column of integer cents with a missing cell is pandas' Int64, which a float column refuses
    values = pd.to_numeric(out["metric_value"], errors="coerce").astype(float) if "metric_value" in out.columns \
        else pd.Series(float("nan"), index=out.index)
    metric = out["metric"].astype(object) if "metric" in out.columns else pd.Series(None, index=out.index, dtype=object)
    for world in sorted(out["world"].dropna().astype(str).unique()):
        hooks = _hooks(world)
        column = getattr(hooks, "headline", None)
        if not column or column not in out.columns:
            continue
        # a run that failed to run has no metric: it gets no headline either
        mine = ((out["world"] == world) & metric.notna()).to_numpy()
        values[mine] = pd.to_numeric(out.loc[mine, column], errors="coerce").astype(float)
        metric[mine] = column
    out["metric_value"], out["metric"] = values, metric
    return out


def figure_name(worlds: Any) -> Any:
    """A function naming a figure in words for a page of these worlds: their hooks' ``figure_words`` first, then
    :func:`~bizsim.analysis.labels.words`."""
    named: dict[str, str] = {}
    for world in sorted({str(w) for w in worlds}):
        named.update(getattr(_hooks(world), "figure_words", None) or {})

    def name(figure: str) -> str:
        return named.get(figure) or words(figure)

    return name


def headline_rules(runs: Any) -> list[str]:
    """How the headline number counts a run, one sentence a world of ``runs``: the hooks' ``headline_rule``, else
    the metric as each run ended."""
    out = []
    for world, g in runs.groupby("world", sort=True) if len(runs) and "world" in runs.columns else []:
        rule = getattr(_hooks(str(world)), "headline_rule", "")
        if not rule:
            metrics = sorted(g["metric"].dropna().astype(str).unique()) if "metric" in g.columns else []
            rule = (f"{', '.join(words(m).lower() for m in metrics) or 'the metric'} as each run ended, a run that "
                    "ended early (bankrupt, collapsed) at its value then")
        out.append(f"{world}: {rule}")
    return out
