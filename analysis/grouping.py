"""Which spec fields are grouping columns: one rule for the report, ``metrics``, the tables and the viewer.

An LLM run records every option of its agent (model, ``history_rounds``, ``memory``, ``temperature``, ...); a
baseline records none. Were "takes more than one value among the runs" the rule, every LLM option would look varied
beside a greedy run (its value against the baseline's missing one), giving each a column and splitting nothing a
reader asked for. So the world, the preset variant and the agent are grouping columns where they take more than one
value among the runs, and the model and each agent option only where it takes more than one value among the runs
of the *same* agent: a value missing for another agent is not variation (within one agent, a missing value is the
agent's default, an arm of its own).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["SPEC_FIELDS", "STOPPED", "group_name", "grouping_columns", "label_columns", "varying_fields", "with_agent",
           "with_stops"]

#: The fields that vary "across the runs" (any run may hold any value); every other field varies within an agent.
SPEC_FIELDS = ("world", "preset_label", "agent")
#: The column :func:`with_stops` adds: what stopped a run before its world ended it (``stopped: turn cap``), empty
#: for a run the world ended. Where any run stopped it is a grouping column, so a table marks the stopped runs and
#: no mean over runs that went to the world's end takes in one cut short.
STOPPED = "stopped"
#: Fields whose values name themselves in a group's name (``hard``, ``greedy``); any other field (an agent option)
#: is named beside its value (``history rounds 20``).
_SELF_NAMED = frozenset({"world", "preset_label", "preset", "agent", "model", "stopped", "_all"})


def _cell(v: Any) -> str | None:
    """A value as the rule compares it: missing (``None``, NaN, pandas' NA) as ``None``, anything else as text (a
    whole float as an integer: a column with gaps holds ``5`` as ``5.0``)."""
    # pandas' NA is known by its type's name: the viewer uses this rule without importing pandas.
    if v is None or type(v).__name__ in ("NAType", "NaTType"):
        return None
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if v.is_integer():
            return str(int(v))
    return str(v)


def varying_fields(rows: Iterable[Mapping[str, Any]], fields: Sequence[str]) -> list[str]:
    """The ``fields`` that are grouping columns of ``rows`` (one mapping a run), in the order given.

    :data:`SPEC_FIELDS` count where they take more than one value among all rows; any other field (the model, an
    agent option) where it takes more than one value among the rows of one agent (a row's ``agent``).

    >>> runs = [{"agent": "greedy"}, {"agent": "llm", "model": "m", "history_rounds": 5, "temperature": 0.0},
    ...         {"agent": "llm", "model": "m", "history_rounds": 20, "temperature": 0.0}]
    >>> varying_fields(runs, ["world", "agent", "model", "history_rounds", "temperature"])
    ['agent', 'history_rounds']
    """
    seen: dict[str, set[str | None]] = {f: set() for f in fields if f in SPEC_FIELDS}
    per_agent: dict[tuple[str, str | None], set[str | None]] = {}
    for row in rows:
        agent = _cell(row.get("agent"))
        for f in fields:
            value = _cell(row.get(f))
            if f in SPEC_FIELDS:
                seen[f].add(value)
            else:
                per_agent.setdefault((f, agent), set()).add(value)
    varied = {f for f, values in seen.items() if len(values) > 1}
    varied |= {f for (f, _), values in per_agent.items() if len(values) > 1}
    return [f for f in dict.fromkeys(fields) if f in varied]


def grouping_columns(runs: Any) -> list[str]:
    """The grouping columns of a runs table (:func:`bizsim.analysis.load`'s ``runs``): the world, preset variant,
    agent, model and agent options, each where it varies by :func:`varying_fields`' rule."""
    from bizsim.analysis.tables import option_columns

    fields = [c for c in dict.fromkeys((*SPEC_FIELDS, "model", *option_columns(runs))) if c in runs.columns]
    if not len(runs) or not fields:
        return []
    stopped = [STOPPED] if STOPPED in runs.columns and bool(runs[STOPPED].fillna("").astype(str).ne("").any()) else []
    return varying_fields(runs[fields].to_dict("records"), fields) + stopped


def with_stops(runs: Any) -> Any:
    """``runs`` with a :data:`STOPPED` column: for each run that finished but was cut short (a cap, a guard, its
    model's API, an agent that stopped), what stopped it (:func:`bizsim.analysis.labels.stop_name`); ``""`` for a
    run its world ended and for one that failed to run (its own status says so)."""
    from bizsim.analysis.labels import stop_name

    out = runs.copy()
    reasons = runs["terminal_reason"] if "terminal_reason" in runs.columns else [None] * len(runs)
    details = runs["terminal_detail"] if "terminal_detail" in runs.columns else [None] * len(runs)
    status = runs["status"] if "status" in runs.columns else ["ok"] * len(runs)
    out[STOPPED] = [(stop_name(r, d) or "") if s == "ok" else "" for r, d, s in zip(reasons, details, status)]
    return out


def label_columns(runs: Any) -> list[str]:
    """The columns that name a group of ``runs`` in a table or a legend: its grouping columns, always with the agent
    (a group of one agent's seeds is still named by its agent)."""
    cols = grouping_columns(runs)
    return with_agent(cols) if "agent" in runs.columns else cols


def with_agent(columns: Sequence[str]) -> list[str]:
    """``columns`` with the agent in its place (after the world and preset variant) if it is not there.

    >>> with_agent(["preset_label", "history_rounds"])
    ['preset_label', 'agent', 'history_rounds']
    """
    cols = list(columns)
    if "agent" not in cols:
        cols.insert(sum(1 for c in cols if c in ("world", "preset_label")), "agent")
    return cols


def group_name(values: Mapping[str, Any], columns: Sequence[str]) -> str:
    """A group's name from its ``values`` of ``columns``: missing values left out, an agent option named beside its
    value. The report's headline table and the viewer's sweep page name groups with it.

    >>> group_name({"agent": "llm", "model": "m", "history_rounds": 20}, ["agent", "history_rounds"])
    'llm / history rounds 20'
    >>> group_name({"agent": "greedy", "history_rounds": None}, ["agent", "history_rounds"])
    'greedy'
    """
    parts = []
    for c in columns:
        v = _cell(values.get(c))
        if v is None or v == "":
            continue
        parts.append(v if c in _SELF_NAMED else f"{c.replace('_', ' ')} {v}")
    return " / ".join(parts)
