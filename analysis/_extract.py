"""From a finished world to the rows of the result tables: run columns, series and events.

Every world gets the generic extraction (summary scalars become run columns,
summary dicts and lists become series, the trajectory's events and commands
become events). A world may add an :class:`Extractor` in :data:`EXTRACTORS`
for facts only its live state holds; the startup world records, for every task
the agent took, how it was staffed (see ``analysis.startup_metrics`` for what the
failure causes make of it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Protocol

from bizsim.simcore import Status, World

__all__ = ["EVENT_COLUMNS", "EXTRACTORS", "SERIES_COLUMNS", "VALUE_FIELDS", "Extractor", "extract", "extractor_for"]

#: Columns of a run's events, in order (a run record stores them column-wise).
EVENT_COLUMNS = ("t_us", "kind", "name", "ok", "task", "client", "value", "data")
#: Columns of a run's series.
SERIES_COLUMNS = ("name", "step", "key", "value")
#: Event fields tried, in order, for an event row's ``value``.
VALUE_FIELDS = ("funds_delta", "funds_after", "amount_cents", "value")
#: Run columns the generic extraction owns; summary keys of the same name are not copied over them.
CORE_RUN_COLUMNS = (
    "terminal_reason", "terminal_detail", "bankrupt", "collapsed", "turns", "commands", "commands_refused",
    "metric", "metric_value", "end_t_us", "end_time",
)
_SKIP_KINDS = ("stop",)


class Extractor(Protocol):
    """World-specific extraction: watch the agent's turns, then add columns, series and events."""

    def probe(self, world: World) -> None:
        """Called each time the agent hands time back (right before the clock may move)."""

    def finish(self, world: World) -> tuple[dict, list[tuple], list[tuple]]:
        """Extra run columns, series rows ``(name, step, key, value)`` and event rows (``EVENT_COLUMNS``)."""


class _Generic:
    def probe(self, world: World) -> None:
        return None

    def finish(self, world: World) -> tuple[dict, list[tuple], list[tuple]]:
        return {}, [], []


def _startup_extractor() -> Extractor:
    from ._startup_extract import StartupExtractor

    return StartupExtractor()


#: world name -> factory of its extractor (worlds not listed get the generic one).
EXTRACTORS: dict[str, Callable[[], Extractor]] = {"startup": _startup_extractor}


def extractor_for(world_name: str) -> Extractor:
    """A fresh extractor for one run of ``world_name``."""
    factory = EXTRACTORS.get(world_name)
    return factory() if factory is not None else _Generic()


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float, Decimal)):
        return float(v)
    return None


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def summary_parts(summary: dict) -> tuple[dict, list[tuple]]:
    """Scalar summary values (run columns) and the series the summary's dicts and lists hold."""
    columns, series = {}, []
    for name, v in summary.items():
        if _scalar(v):
            columns[name] = v
        elif isinstance(v, dict) and v and all(_number(x) is not None for x in v.values()):
            series.extend((name, i, str(k), float(x)) for i, (k, x) in enumerate(v.items()))
        elif isinstance(v, (list, tuple)) and v and all(_number(x) is not None for x in v):
            series.extend((name, i, str(i), float(x)) for i, x in enumerate(v))
    return columns, series


def trajectory_events(world: World) -> tuple[list[tuple], int]:
    """The trajectory's commands and events as compact rows (``EVENT_COLUMNS``), and how many commands were refused.

    Stops (the advance reports) are left out: their facts are in the events.
    """
    rows, refused = [], 0
    for t_us, kind, name, data in world.trajectory:
        if kind in _SKIP_KINDS:
            continue
        if not isinstance(data, dict):
            data = {}
        if kind == "cmd":
            ok = "error" not in data
            refused += not ok
            task = (data.get("args") or {}).get("task_id")
            rows.append((t_us, "cmd", name, ok, None if task is None else str(task), None, None, None))
            continue
        value = next((_number(data[f]) for f in VALUE_FIELDS if _number(data.get(f)) is not None), None)
        task = data.get("task_title", data.get("task_id"))
        success = data.get("success")
        client = data.get("client_name")
        rows.append((
            t_us, kind, name, success if isinstance(success, bool) else None, None if task is None else str(task),
            None if client is None else str(client), value, None,
        ))
    return rows, refused


def extract(world: World, extractor: Extractor, *, turns: int, terminal_reason: str, events: bool = True) -> dict:
    """The record body of a finished run: ``run`` columns, ``series`` and ``events`` (column-wise)."""
    summary = world.summary()
    columns, series = summary_parts(summary)
    extra_cols, extra_series, extra_events = extractor.finish(world)
    rows, refused = trajectory_events(world)
    run = {k: v for k, v in columns.items() if k not in CORE_RUN_COLUMNS}
    run.update(extra_cols)
    metric_value = summary.get("metric_value")
    run.update({
        "terminal_reason": terminal_reason,
        "terminal_detail": world.terminal_detail,
        "bankrupt": world.status is Status.BANKRUPT,
        "collapsed": world.status is Status.COLLAPSED,
        "turns": int(turns),
        "commands": world.trajectory.count("cmd"),
        "commands_refused": refused,
        "metric": summary.get("metric"),
        "metric_value": None if metric_value is None else float(metric_value),
        "end_t_us": world.now_us,
        "end_time": world.now_iso,
    })
    series = series + list(extra_series)
    rows = (rows if events else []) + list(extra_events)
    rows.sort(key=lambda r: r[0])  # stable: same-instant rows keep their order
    return {
        "run": run,
        "series": {c: [r[i] for r in series] for i, c in enumerate(SERIES_COLUMNS)},
        "events": {c: [r[i] for r in rows] for i, c in enumerate(EVENT_COLUMNS)},
    }


def compact_json(data: dict) -> str:
    """Canonical short JSON for an event's ``data`` column."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)
