"""From a finished world to the rows of the result tables: run columns, series and events.

Every world gets the generic extraction (summary scalars become run columns,
summary dicts and lists become series, the trajectory's events and commands
become events). A world's analysis hooks may add an :class:`Extractor` for
facts only its live state holds; the startup world records, for every task the
agent took, how it was staffed (see :mod:`bizsim.analysis.worlds.startup`).
"""

from __future__ import annotations

import json
from decimal import Decimal
from operator import itemgetter
from typing import Any, Protocol

from bizsim.simcore import Status, World

__all__ = ["EVENT_COLUMNS", "SERIES_COLUMNS", "VALUE_FIELDS", "Extractor", "extract", "extractor_for"]

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


def extractor_for(world: Any) -> Extractor:
    """A fresh extractor for one run of ``world`` (a name, or its registry entry): its analysis hooks'
    ``extractor``, else the generic one."""
    from bizsim.simcore.registry import world_spec

    hooks = (world_spec(world) if isinstance(world, str) else world).hooks()
    factory = hooks.extractor if hooks is not None else None
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
    columns: dict = {}
    series: list[tuple[str, int, str, float]] = []
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
    rows, (_, refused) = _trajectory_rows(world)
    return rows, refused


def _trajectory_rows(world: World) -> tuple[list[tuple], tuple[int, int]]:
    """:func:`trajectory_events`'s rows, and ``(commands, refused commands)`` counted on the way."""
    rows: list[tuple] = []
    append = rows.append
    commands = refused = 0
    for t_us, kind, name, data in world.trajectory.excluding(_SKIP_KINDS):
        if not isinstance(data, dict):
            data = {}
        if kind == "cmd":
            commands += 1
            ok = "error" not in data
            refused += not ok
            task = (data.get("args") or {}).get("task_id")
            append((t_us, "cmd", name, ok, None if task is None else str(task), None, None, None))
            continue
        value = None
        for f in VALUE_FIELDS:
            value = _number(data.get(f))
            if value is not None:
                break
        task = data.get("task_title", data.get("task_id"))
        success = data.get("success")
        client = data.get("client_name")
        append((
            t_us, kind, name, success if isinstance(success, bool) else None, None if task is None else str(task),
            None if client is None else str(client), value, None,
        ))
    return rows, (commands, refused)


def extract(world: World, extractor: Extractor, *, turns: int, terminal_reason: str, events: bool = True) -> dict:
    """The record body of a finished run: ``run`` columns, ``series`` and ``events`` (column-wise)."""
    summary = world.summary()
    columns, series = summary_parts(summary)
    extra_cols, extra_series, extra_events = extractor.finish(world)
    if events:
        rows, (commands, refused) = _trajectory_rows(world)
    else:  # only the commands' outcomes are needed: leave the other records packed
        rows, commands, refused = [], 0, 0
        for _, _, data in world.trajectory.of_kind("cmd"):
            commands += 1
            refused += isinstance(data, dict) and "error" in data
    run = {k: v for k, v in columns.items() if k not in CORE_RUN_COLUMNS}
    run.update(extra_cols)
    metric_value = summary.get("metric_value")
    run.update({
        "terminal_reason": terminal_reason,
        "terminal_detail": world.terminal_detail,
        "bankrupt": world.status is Status.BANKRUPT,
        "collapsed": world.status is Status.COLLAPSED,
        "turns": int(turns),
        "commands": commands,
        "commands_refused": refused,
        "metric": summary.get("metric"),
        "metric_value": None if metric_value is None else float(metric_value),
        "end_t_us": world.now_us,
        "end_time": world.now_iso,
    })
    series = series + list(extra_series)
    rows += extra_events
    rows.sort(key=_T_US)  # stable: same-instant rows keep their order
    # Column-wise in one transposition each (``zip(*rows)``); empty tables still name every column.
    return {
        "run": run,
        "series": _columns(series, SERIES_COLUMNS),
        "events": _columns(rows, EVENT_COLUMNS),
    }


def _columns(rows: list[tuple], names: tuple[str, ...]) -> dict[str, list]:
    if not rows:
        return {c: [] for c in names}
    return dict(zip(names, map(list, zip(*rows))))


_T_US = itemgetter(0)
_COMPACT = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False)


def compact_json(data: dict) -> str:
    """Canonical short JSON for an event's ``data`` column."""
    return _COMPACT.encode(data)
