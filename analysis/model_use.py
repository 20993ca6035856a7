"""What the model of LLM runs used per turn: tokens, the share read from a prompt cache, and time, whether or not
the model has a price (a local model has none, so its cost alone would say nothing)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["USE_COLUMNS", "model_use"]

#: The figures of :func:`model_use`, after its grouping columns.
USE_COLUMNS = ("runs", "turns", "prompt_tokens_per_turn", "completion_tokens_per_turn", "cached_share",
               "seconds_per_turn", "model_seconds_per_turn", "cost_usd")


def model_use(runs: Any, llm_calls: Any = None, by: str | Sequence[str] | None = None) -> Any:
    """Per group, the finished LLM runs' model use per turn (a turn is an answered model call, as ``turns`` of
    ``result.json`` counts it).

    Args:
        runs: :func:`bizsim.analysis.load`'s ``runs`` (runs without ``llm_turns`` are not LLM runs: left out).
        llm_calls: its ``llm_calls`` table, for the seconds spent waiting on the agent's model (optional).
        by: grouping columns (default: :func:`bizsim.analysis.metrics.group_columns`).

    Returns:
        ``by...``, ``runs``, ``turns``, ``prompt_tokens_per_turn``, ``completion_tokens_per_turn``,
        ``cached_share`` (prompt tokens read from the cache over all prompt tokens; NaN when the runs do not say),
        ``seconds_per_turn`` (the runs' wall seconds over their turns), ``model_seconds_per_turn`` (the agent's
        calls' latency, failed attempts included, over the turns; NaN without ``llm_calls``), ``cost_usd`` (the
        agent's model dollars; NaN when a run's model has no price).
    """
    import pandas as pd

    from bizsim.analysis.metrics import _cached_share, group_columns, ok_runs

    cols = group_columns(by, runs)
    r = ok_runs(runs)
    if "llm_turns" not in r.columns:
        return pd.DataFrame(columns=[*cols, *USE_COLUMNS])
    r = r[pd.to_numeric(r["llm_turns"], errors="coerce").fillna(0) > 0]
    latency = None
    if llm_calls is not None and len(llm_calls) and "latency_s" in llm_calls.columns:
        mine = llm_calls[llm_calls["role"].isna()] if "role" in llm_calls.columns else llm_calls
        latency = pd.to_numeric(mine["latency_s"], errors="coerce").groupby(mine["run_id"]).sum(min_count=1)
    rows = []
    for key, g in r.groupby(cols, sort=True, dropna=False):
        turns = float(pd.to_numeric(g["llm_turns"], errors="coerce").sum())

        def per_turn(values: Any) -> float:
            total = pd.to_numeric(values, errors="coerce").sum(min_count=1)
            return math.nan if pd.isna(total) else float(total) / turns

        wall = g["wall_s"] if "wall_s" in g.columns else pd.Series(math.nan, index=g.index)
        waited = g["run_id"].map(latency) if latency is not None else pd.Series(math.nan, index=g.index)
        cost = pd.to_numeric(g["llm_cost_usd"], errors="coerce") if "llm_cost_usd" in g.columns else None
        rows.append({
            **dict(zip(cols, key if isinstance(key, tuple) else (key,))), "runs": len(g), "turns": int(turns),
            "prompt_tokens_per_turn": per_turn(g.get("llm_prompt_tokens")),
            "completion_tokens_per_turn": per_turn(g.get("llm_completion_tokens")),
            "cached_share": _cached_share(g), "seconds_per_turn": per_turn(wall),
            "model_seconds_per_turn": per_turn(waited),
            # One run without a price makes the group's cost unknown, not smaller.
            "cost_usd": math.nan if cost is None or bool(cost.isna().any()) else float(cost.sum()),
        })
    return pd.DataFrame(rows, columns=[*cols, *USE_COLUMNS])
