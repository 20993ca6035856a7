"""Result tables: a sweep's ``results.jsonl`` compacted to Parquet, loaded as pandas DataFrames.

:mod:`bizsim.runs` writes the records (a sweep's ``results.jsonl``, run directories); this module reads them into
tables. It asks :class:`~bizsim.runs.rundir.SweepDir` and :class:`~bizsim.runs.rundir.RunDir` for every path.

A sweep directory holds, after :func:`compact` (which ``bizsim sweep`` and
:func:`load` call for you), four plain Parquet files that pandas, DuckDB and
polars read directly (``SELECT * FROM 'out/runs.parquet'``):

``runs.parquet`` — one row per run. Always these columns (``RUN_COLUMNS``),
then one column per agent option the runs were given (``history_rounds``,
``memory``, ``temperature``, ...: :func:`option_column` names it; a list
such as ``memory`` as its items joined by commas, ``none`` when empty), so
an ablation's arms are plain columns to group by, then the world's own figures (its ``summary()`` scalars such as
``final_funds_cents``, ``tasks_failed``, ``mean_dau``, ``net_worth_cents``,
``total_revenue_cents``, and extraction extras such as the startup world's
``income_cents``, ``leaderboard_funds_cents`` (final funds, a bankruptcy as 0),
``adversarial_clients``, ``adversarial_market_share``, ``final_scratchpad``
(the agent's notes as they ended)),
in name order, null where a run's world has no such figure.

``series.parquet`` — per-month or per-day figures (``SERIES_COLUMNS``): every
dict or list of numbers in a world's ``summary()`` (``month_end_funds_cents``
keyed ``2025-03``; ``daily_dau``, ``daily_net_worth_cents`` keyed by day), plus
extraction extras (startup: ``month_revenue_cents``, ``month_cost_cents``,
``final_trust`` keyed by client, ``final_prestige`` keyed by domain).

``events.parquet`` — what happened, compactly (``EVENT_COLUMNS``): every
command (``kind="cmd"``, ``ok`` false when refused, ``task`` its task id
argument), every world event (``kind="event"``: ``task_completed`` with
``task``, ``client``, ``ok`` = success, ``value`` = funds delta;
``monthly_payroll`` with ``value`` = funds after; ``day_end``; ``episode_end``;
...), and for the startup world one ``kind="task"`` row per task the agent
took (``name`` its final status, ``value`` its listed reward, ``data`` the
staffing facts described in :mod:`bizsim.analysis.worlds.startup.metrics`). Advance reports
are left out (their facts are the events).

``llm_calls.parquet`` — one row per model call of LLM runs whose run
directory (``runs/<run_id>/llm_calls.jsonl``) is in the sweep
(``LLM_CALL_COLUMNS``); empty, with these columns, otherwise.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
from bizsim.simcore.errors import BizSimError, ConfigError
from bizsim.simcore.files import write_text_atomic
from bizsim.simcore.jsonl import lines_of
from bizsim.simcore.limits import MAX_CONFIG_FILE_BYTES, MAX_RUN_LOG_BYTES, read_text_file, show
from bizsim.simcore.untrusted_json import MAX_RECORD_DEPTH, loads_untrusted, read_json_file

from bizsim.runs._results_file import iter_heads, read_at
from bizsim.runs.rundir import RunDir, SweepDir

__all__ = [
    "EVENT_COLUMNS",
    "LLM_CALL_COLUMNS",
    "PRIVATE_OPTIONS",
    "RUN_COLUMNS",
    "SERIES_COLUMNS",
    "TABLES",
    "Results",
    "compact",
    "load",
    "option_column",
    "option_columns",
    "option_value",
]

US_PER_DAY = 86_400_000_000
TABLES = ("runs", "series", "events", "llm_calls")

#: runs: column -> (Arrow type name, meaning)
RUN_COLUMNS: dict[str, tuple[str, str]] = {
    "run_id": ("string", "16 hex digits: hash of the run spec and the benchmark version"),
    "world": ("string", "world name, e.g. startup"),
    "benchmark_id": ("string", "versioned world id, e.g. startup-v1"),
    "preset": ("string", "preset name"),
    "preset_label": ("string", "the preset variant: the label, or the name plus overrides"),
    "overrides": ("string", "preset overrides as canonical JSON ('{}' for none)"),
    "agent": ("string", "agent name or package.module:function"),
    "agent_options": ("string", "agent options as canonical JSON (each option is also a column of its own)"),
    "model": ("string", "the model an LLM agent called (its option model); null for other agents"),
    "seed": ("int64", "world seed"),
    "status": ("string", "ok, or error when the run raised"),
    "error": ("string", "'Type: message' of a failed run"),
    "error_type": ("string", "exception type of a failed run"),
    "error_traceback": ("string", "traceback text of a failed run"),
    "terminal_reason": ("string", "horizon_end, bankruptcy, collapsed, error, agent_stopped, agent_stalled"),
    "terminal_detail": ("string", "the world's detail on the ending"),
    "bankrupt": ("bool", "the episode ended bankrupt"),
    "collapsed": ("bool", "the episode ended collapsed"),
    "turns": ("int64", "decision points the agent yielded at (LLM runs: model calls)"),
    "commands": ("int64", "commands issued, refused ones included"),
    "commands_refused": ("int64", "commands refused with an error"),
    "metric": ("string", "the world's headline metric name, e.g. final_funds_cents, mean_dau, net_worth_cents"),
    "metric_value": ("double", "its value"),
    "end_t_us": ("int64", "simulated microseconds from start to the end of the episode"),
    "end_time": ("string", "simulated end instant, ISO-8601"),
    "wall_s": ("double", "wall-clock seconds the run took, as its record holds them (result.json's wall_s)"),
    "llm_turns": ("int64", "model calls (LLM runs)"),
    "llm_prompt_tokens": ("int64", "prompt tokens (LLM runs)"),
    "llm_completion_tokens": ("int64", "completion tokens (LLM runs)"),
    "llm_cache_read_tokens": ("int64", "of the prompt tokens, those read from the provider's prompt cache (LLM runs)"),
    "llm_cache_write_tokens": ("int64", "of the prompt tokens, those written to the provider's prompt cache (LLM runs)"),
    "llm_reasoning_tokens": ("int64", "of the completion tokens, hidden reasoning (LLM runs)"),
    "llm_cost_usd": ("double", "dollars spent on the model; null when unknown or not an LLM run"),
    "llm_role_calls": ("int64", "model calls of the world's own roles (the freelance auditor), answered"),
    "llm_role_cost_usd": ("double", "their dollars, apart from llm_cost_usd; null when unknown or no role played"),
}
SERIES_COLUMNS: dict[str, tuple[str, str]] = {
    "run_id": ("string", "the run"),
    "name": ("string", "series name, e.g. month_end_funds_cents, daily_dau, final_trust"),
    "step": ("int64", "position in the series, 0-based (month index, day index, ...)"),
    "key": ("string", "the point's key: 2025-03 for months, the day number, a client name, ..."),
    "value": ("double", "the value"),
}
EVENT_COLUMNS: dict[str, tuple[str, str]] = {
    "run_id": ("string", "the run"),
    "t_us": ("int64", "simulated microseconds since the episode start"),
    "day": ("int64", "t_us // one day: the simulated day index"),
    "kind": ("string", "cmd, event or task"),
    "name": ("string", "command name, event type, or a task's final status"),
    "ok": ("bool", "cmd: accepted; task_completed and task rows: success; else null"),
    "task": ("string", "task id or title when the row concerns one"),
    "client": ("string", "client name when the row concerns one"),
    "value": ("double", "the row's number: funds delta, funds after payroll, a task's listed reward, ..."),
    "data": ("string", "compact JSON of a task row's staffing facts; null elsewhere"),
}
LLM_CALL_COLUMNS: dict[str, tuple[str, str]] = {
    "run_id": ("string", "the run"),
    "call": ("int64", "line number in llm_calls.jsonl, 0-based"),
    "kind": ("string", "chat, embed or preflight"),
    "ok": ("bool", "the call was answered"),
    "episode": ("int64", "episode number"),
    "turn": ("int64", "turn number within the episode (null for a world role's calls)"),
    "role": ("string", "who asked: null for the agent, else the world's own role (auditor)"),
    "model": ("string", "model that answered"),
    "prompt_tokens": ("int64", "prompt tokens"),
    "completion_tokens": ("int64", "completion tokens"),
    "total_tokens": ("int64", "prompt plus completion tokens"),
    "cache_read_tokens": ("int64", "of the prompt tokens, those read from the provider's prompt cache"),
    "cache_write_tokens": ("int64", "of the prompt tokens, those written to the provider's prompt cache"),
    "reasoning_tokens": ("int64", "of the completion tokens, hidden reasoning"),
    "cost_usd": ("double", "price of the call as billed (cache discounts included); null when unknown"),
    "latency_s": ("double", "seconds the call took"),
    "finish_reason": ("string", "the provider's finish reason"),
    "tool_calls": ("int64", "tool calls in the answer"),
    "tool_names": ("string", "their names, comma-separated"),
    "failed_attempts": ("int64", "failed attempts before the answer"),
    "wall_time": ("double", "Unix time the call was logged"),
}
_SCHEMAS = {"series": SERIES_COLUMNS, "events": EVENT_COLUMNS, "llm_calls": LLM_CALL_COLUMNS}


@attrs.frozen
class Results:
    """The result tables of a sweep (or of run directories) as pandas DataFrames.

    Index like a dict (``results["runs"]``) or use the attributes.
    """

    runs: Any
    series: Any
    events: Any
    llm_calls: Any
    path: Path | None = None

    def __getitem__(self, name: str) -> Any:
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; tables: {', '.join(TABLES)}")
        return getattr(self, name)

    def keys(self) -> tuple[str, ...]:
        """The table names."""
        return TABLES

    @property
    def tables(self) -> dict[str, Any]:
        """The four tables by name."""
        return {name: getattr(self, name) for name in TABLES}


# building tables -----------------------------------------------------------------
def _pa_type(name: str) -> Any:
    import pyarrow as pa

    return {"string": pa.string(), "int64": pa.int64(), "double": pa.float64(), "bool": pa.bool_()}[name]


def _schema(columns: dict[str, tuple[str, str]]) -> Any:
    import pyarrow as pa

    return pa.schema([(c, _pa_type(t)) for c, (t, _) in columns.items()])


def _infer_array(values: list) -> Any:
    """An Arrow array for a world-specific run column: bool, int, float or string (mixed kinds become JSON text)."""
    import pyarrow as pa

    present = [v for v in values if v is not None]
    kinds = {type(v) for v in present}
    if kinds <= {bool}:
        return pa.array(values, type=pa.bool_())
    if kinds <= {int}:
        return pa.array(values, type=pa.int64())
    if kinds <= {int, float}:
        return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    if kinds <= {str}:
        return pa.array(values, type=pa.string())
    text = [None if v is None else (v if isinstance(v, str) else json.dumps(v)) for v in values]
    return pa.array(text, type=pa.string())


def _sort_key(rec: dict) -> tuple:
    spec = rec.get("spec") or {}
    return (
        str(spec.get("world")), str(rec.get("preset_label") or spec.get("preset")), str(spec.get("agent")),
        json.dumps(spec.get("agent_options") or {}, sort_keys=True), int(spec.get("seed") or 0), rec["run_id"],
    )


#: Agent options that say where a model is and how to reach it: never a column or a group of their own (the
#: report's provenance leaves them out too); they stay in ``agent_options``.
PRIVATE_OPTIONS = ("api_base", "api_key_env")


def option_column(name: str) -> str:
    """The runs column of agent option ``name``: its own name, or ``option_<name>`` where that is a column every
    run has (``turns``, ``seed``, ...).

    >>> option_column("history_rounds"), option_column("turns"), option_column("model")
    ('history_rounds', 'option_turns', 'model')
    """
    return name if name == "model" or name not in RUN_COLUMNS else f"option_{name}"


def option_columns(runs: Any) -> list[str]:
    """The agent-option columns of a runs table, in name order (read from each run's ``agent_options``)."""
    names: set[str] = set()
    for text in runs["agent_options"].dropna().unique() if "agent_options" in runs.columns else ():
        try:
            options = json.loads(text)
        except (TypeError, ValueError):
            continue
        if isinstance(options, dict):
            names.update(option_column(str(k)) for k in options if k not in PRIVATE_OPTIONS)
    return sorted(c for c in names if c in runs.columns)


def option_value(v: Any) -> Any:
    """An option as one cell: scalars as they are, a list of scalars as its items joined, anything else JSON."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)) and all(isinstance(x, (bool, int, float, str)) for x in v):
        return ",".join(str(x) for x in v) if v else "none"
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def _run_row(rec: dict) -> dict:
    spec = rec.get("spec") or {}
    err = rec.get("error") or None
    row: dict[str, Any] = {
        "run_id": rec["run_id"], "world": spec.get("world"), "benchmark_id": rec.get("benchmark_id"),
        "preset": spec.get("preset"), "preset_label": rec.get("preset_label") or spec.get("preset"),
        "overrides": json.dumps(spec.get("overrides") or {}, sort_keys=True, separators=(",", ":")),
        "agent": spec.get("agent"),
        "agent_options": json.dumps(spec.get("agent_options") or {}, sort_keys=True, separators=(",", ":")),
        "seed": spec.get("seed"), "status": rec.get("status", "ok"),
        "error": f"{err.get('type')}: {err.get('message')}" if err else None,
        "error_type": err.get("type") if err else None, "error_traceback": err.get("traceback") if err else None,
        "wall_s": rec.get("wall_s"),
    }
    for k, v in (rec.get("run") or {}).items():
        if k in RUN_COLUMNS and v is not None and not _fits(v, RUN_COLUMNS[k][0]):
            raise ConfigError(f"results.jsonl run {rec['run_id']!r}: run.{k}(={show(v)}) must be "
                              f"{_KINDS[RUN_COLUMNS[k][0]]}; the file was edited or damaged")
        if k not in row or row[k] is None:
            row[k] = v
    for k, v in (spec.get("agent_options") or {}).items():
        if k in PRIVATE_OPTIONS:
            continue
        col = option_column(str(k))
        if row.get(col) is None:  # a world figure of the same name keeps its place
            row[col] = str(v) if col == "model" and v is not None else option_value(v)
    return row


_KINDS = {"string": "a string", "int64": "an integer", "double": "a number", "bool": "true or false"}


def _fits(value: Any, typ: str) -> bool:
    """Whether a figure read from a file fits its typed column (``true`` is no number, ``"x"`` no integer)."""
    if typ == "bool" or isinstance(value, bool):
        return typ == "bool" and isinstance(value, bool)
    if typ == "int64":
        return isinstance(value, int) and -2**63 <= value < 2**63
    if typ == "double":
        return isinstance(value, (int, float)) and (not isinstance(value, int) or abs(value) < 2**1023)
    return isinstance(value, str)


def _runs_table(rows: list[dict]) -> Any:
    import pyarrow as pa

    extra = sorted({k for r in rows for k in r} - set(RUN_COLUMNS))
    arrays, names = [], []
    for col, (typ, _) in RUN_COLUMNS.items():
        values = [r.get(col) for r in rows]
        if typ == "double":
            values = [None if v is None else float(v) for v in values]
        arrays.append(pa.array(values, type=_pa_type(typ)))
        names.append(col)
    for col in extra:
        arrays.append(_infer_array([r.get(col) for r in rows]))
        names.append(col)
    return pa.Table.from_arrays(arrays, names=names)


def _tabled(build: Any, records: Sequence[dict], what: str) -> Any:
    """``build(records)``, or a ConfigError naming the runs whose ``what`` (series, events) cannot be a table
    (an item of the wrong type, columns of different lengths: a hand-edited ``results.jsonl``)."""
    import pyarrow as pa

    try:
        return build(records)
    except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
        ids = ", ".join(repr(str(r.get("run_id"))) for r in records[:3]) + (", ..." if len(records) > 3 else "")
        raise ConfigError(f"results.jsonl: the {what} of run {ids} cannot be a table ({str(exc)[:200]}); the file "
                          "was edited or damaged") from None


def _series_batch(records: Iterable[dict]) -> Any:
    import pyarrow as pa

    cols: dict[str, list] = {c: [] for c in SERIES_COLUMNS}
    for rec in records:
        s = rec.get("series") or {}
        n = len(s.get("name") or ())
        cols["run_id"].extend([rec["run_id"]] * n)
        for c in ("name", "step", "key", "value"):
            cols[c].extend(s.get(c) or ())
    return pa.Table.from_pydict(cols, schema=_schema(SERIES_COLUMNS))


def _events_batch(records: Iterable[dict]) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    cols: dict[str, list] = {c: [] for c in EVENT_COLUMNS}
    for rec in records:
        e = rec.get("events") or {}
        t = e.get("t_us") or []
        cols["run_id"].extend([rec["run_id"]] * len(t))
        cols["t_us"].extend(t)
        for c in ("kind", "name", "ok", "task", "client", "value", "data"):
            cols[c].extend(e.get(c) or [None] * len(t))
    t_us = pa.array(cols["t_us"], type=pa.int64())
    cols["day"] = pc.divide(t_us, US_PER_DAY)  # integer division: instants are never negative
    cols["t_us"] = t_us
    return pa.Table.from_pydict(cols, schema=_schema(EVENT_COLUMNS))


def _llm_rows(run_id: str, path: Path) -> list[dict]:
    """One row per model call of a run's ``llm_calls.jsonl``, read bounded (a regular file within
    ``MAX_RUN_LOG_BYTES``, lines no deeper than ``MAX_RECORD_DEPTH``); a line that is not a record is passed over.

    Raises:
        ConfigError: the file cannot be read so, or a record's fields are not of their types.
    """
    rows: list[dict] = []
    if not path.exists() and not path.is_symlink():
        return rows
    for i, line in enumerate(lines_of(read_text_file(path, path.name, MAX_RUN_LOG_BYTES))):
        try:
            rec = loads_untrusted(line, MAX_RECORD_DEPTH)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        try:
            rows.append(_llm_row(run_id, i, rec))
        except (AttributeError, TypeError, ValueError, OverflowError) as exc:
            raise ConfigError(f"{str(path)!r} line {i + 1:,} is not a model call bizsim wrote ({str(exc)[:120]}); "
                              "the file was edited or damaged") from None
    return rows


def _llm_row(run_id: str, i: int, rec: dict) -> dict:
    resp = rec.get("response") or {}
    usage = resp.get("usage") or rec.get("usage") or {}
    calls = resp.get("tool_calls") or []
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    total = usage.get("total_tokens")
    if total is None and prompt is not None and completion is not None:
        total = prompt + completion
    cost = resp.get("cost_usd", rec.get("cost_usd"))
    latency = resp.get("latency_s", rec.get("latency_s"))
    return {
        "run_id": run_id, "call": i, "kind": rec.get("kind"), "ok": rec.get("ok"), "episode": rec.get("episode"),
        "turn": rec.get("turn"), "role": rec.get("role"), "model": resp.get("model"), "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": total, "cache_read_tokens": usage.get("cache_read_tokens"),
        "cache_write_tokens": usage.get("cache_write_tokens"), "reasoning_tokens": usage.get("reasoning_tokens"), "cost_usd": None if cost is None else float(cost),
        "latency_s": None if latency is None else float(latency), "finish_reason": resp.get("finish_reason"),
        "tool_calls": len(calls), "tool_names": ",".join(str(c.get("name")) for c in calls),
        "failed_attempts": rec.get("failed_attempts", len(rec.get("errors") or ())),
        "wall_time": None if rec.get("wall_time") is None else float(rec["wall_time"]),
    }


def _llm_table(rows: list[dict]) -> Any:
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=_schema(LLM_CALL_COLUMNS))


# compaction ------------------------------------------------------------------------
def _atomic_parquet(path: Path, tables: Iterable[Any], schema: Any) -> None:
    _atomic_parquets({path: schema}, ([t] for t in tables))


def _atomic_parquets(files: dict[Path, Any], rows: Iterable[list[Any]]) -> None:
    """Write several Parquet files in one pass: each item of ``rows`` holds one table per file, in order."""
    import pyarrow.parquet as pq

    paths = list(files)
    tmps = [p.with_name(p.name + ".tmp") for p in paths]
    with contextlib.ExitStack() as stack:
        writers = [stack.enter_context(pq.ParquetWriter(t, files[p])) for p, t in zip(paths, tmps)]
        wrote = False
        for tables in rows:
            for writer, table in zip(writers, tables):
                writer.write_table(table)
            wrote = True
        if not wrote:
            for writer, path in zip(writers, paths):
                writer.write_table(files[path].empty_table())
    for tmp, path in zip(tmps, paths):
        tmp.replace(path)


def _latest(results: Path) -> list[tuple[int, dict]]:
    """``(offset, record without series/events)`` of the last line of each run, in table order."""
    last: dict[str, tuple[int, dict]] = {}
    for offset, rec in iter_heads(results):
        last[rec["run_id"]] = (offset, rec)
    return sorted(last.values(), key=lambda item: _sort_key(item[1]))


def _stamp(results: Path) -> dict:
    st = results.stat()
    return {"results_bytes": st.st_size, "results_mtime_ns": st.st_mtime_ns}


def compact(path: str | Path, *, batch_runs: int = 500) -> dict[str, Path]:
    """Write ``runs``, ``series``, ``events`` and ``llm_calls`` Parquet files from ``path/results.jsonl``.

    Each run counts by its last line (a rerun replaces a failure). Files are
    written to temporary names and renamed, so readers never see half a table.

    Returns:
        table name -> Parquet file.
    """
    root = Path(path)
    sweep = SweepDir(root)
    results = sweep.results
    if not results.exists():
        raise ConfigError(f"{str(root)!r} holds no sweep results ({results.name} is missing)")
    stamp = _stamp(results)
    latest = _latest(results)
    out = {name: sweep.table(name) for name in TABLES}
    runs = _tabled(_runs_table, [_run_row(rec) for _, rec in latest], "figures")
    _atomic_parquet(out["runs"], [runs], runs.schema)

    def batches() -> Iterator[list[Any]]:
        with results.open("rb") as fh:
            for i in range(0, len(latest), batch_runs):
                records = [read_at(fh, off) for off, _ in latest[i:i + batch_runs]]  # each line decoded once
                yield [_tabled(_series_batch, records, "series"), _tabled(_events_batch, records, "events")]

    _atomic_parquets({out["series"]: _schema(SERIES_COLUMNS), out["events"]: _schema(EVENT_COLUMNS)}, batches())
    llm = [
        row for _, rec in latest for row in _llm_rows(rec["run_id"], sweep.run(rec["run_id"]).llm_calls)
    ]
    _atomic_parquet(out["llm_calls"], [_tabled(_llm_table, llm, "model calls")] if llm else [],
                    _schema(LLM_CALL_COLUMNS))
    stamp.update({"runs": len(latest), "compacted_at": datetime.now(UTC).isoformat(timespec="seconds")})
    write_text_atomic(sweep.tables_stamp, json.dumps(stamp, indent=2) + "\n")
    return out


def _stale(root: Path) -> bool:
    sweep = SweepDir(root)
    results = sweep.results
    if not results.exists():
        return False
    if any(not sweep.table(n).exists() for n in TABLES):
        return True
    try:  # anyone who can write the sweep directory can edit the stamp: read bounded, and a bad one means rebuild
        manifest = read_json_file(sweep.tables_stamp, sweep.tables_stamp.name, MAX_CONFIG_FILE_BYTES)
    except ConfigError:
        return True
    if not isinstance(manifest, dict):
        return True
    now = _stamp(results)
    return any(manifest.get(k) != v for k, v in now.items())


# loading ---------------------------------------------------------------------------
def _to_pandas(tables: dict[str, Any], path: Path | None) -> Results:
    # Nullable integer and boolean columns whether or not a value is missing: one failed run (whose figures are
    # null) must not turn int64 into float64 and bool into object, or a filter like runs[runs.bankrupt] break.
    import pandas as pd
    import pyarrow as pa

    nullable = {pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}
    return Results(**{n: tables[n].to_pandas(types_mapper=nullable.get) for n in TABLES}, path=path)


def _read_dir(root: Path) -> Results:
    import pyarrow.parquet as pq

    if not _stale(root):
        try:
            return _to_pandas({n: _read_parquet(pq, SweepDir(root).table(n), n) for n in TABLES}, root)
        except ConfigError:  # tables that are not ours behind a stamp that says they are: built anew from the records
            if not SweepDir(root).results.exists():
                raise
    try:
        compact(root)
    except OSError:  # a read-only copy: build the tables in memory instead
        results = SweepDir(root).results
        with results.open("rb") as fh:
            records = [read_at(fh, off) for off, _ in _latest(results)]
        return _from_records(records, root)
    return _to_pandas({n: _read_parquet(pq, SweepDir(root).table(n), n) for n in TABLES}, root)


def _read_parquet(pq: Any, path: Path, name: str) -> Any:
    """One table whole. ``ParquetFile`` reads it as ``read_table`` does without importing ``pyarrow.dataset``, which
    took 1.5 of a report's 4 seconds.

    Raises:
        ConfigError: the file is not a regular file, not Parquet, or lacks a column of the table's schema.
    """
    import pyarrow as pa

    try:
        if not path.is_file():
            raise OSError("not a regular file")
        with pq.ParquetFile(path) as file:
            table = file.read()
    except (OSError, pa.ArrowException) as exc:
        raise ConfigError(f"{name}.parquet(={str(path)!r}) cannot be read as the {name} table "
                          f"({str(exc)[:120]})") from None
    schema = _schema(RUN_COLUMNS if name == "runs" else _SCHEMAS[name])
    for field in schema:
        if table.schema.get_field_index(field.name) < 0 or table.schema.field(field.name).type != field.type:
            raise ConfigError(f"{name}.parquet(={str(path)!r}) has no {field.name} column of type {field.type}; "
                              "it was not written by bizsim")
    return table


def _from_records(records: Sequence[dict], path: Path | None, llm_rows: Sequence[dict] = ()) -> Results:
    records = sorted(records, key=_sort_key)
    llm = list(llm_rows)
    for rec in records:
        if rec.get("run_dir"):
            llm.extend(_llm_rows(rec["run_id"], RunDir(rec["run_dir"]).llm_calls))
        elif path is not None:
            llm.extend(_llm_rows(rec["run_id"], SweepDir(path).run(rec["run_id"]).llm_calls))
    return _to_pandas({
        "runs": _tabled(_runs_table, [_run_row(r) for r in records], "figures"),
        "series": _tabled(_series_batch, records, "series"), "events": _tabled(_events_batch, records, "events"),
        "llm_calls": _tabled(_llm_table, llm, "model calls"),
    }, path)


def _concat(parts: Sequence[Results]) -> Results:
    import pandas as pd

    return Results(**{n: pd.concat([p[n] for p in parts], ignore_index=True) for n in TABLES}, path=None)


def load(path: str | Path | Sequence[str | Path]) -> Results:
    """The result tables of a sweep directory, of a run directory, or of a folder of run directories.

    A sweep directory is compacted first when its ``results.jsonl`` changed
    since the last compaction. Run directories (``bizsim run --out DIR``, LLM
    runs) are read by replaying their command log; nothing is written to them.
    An Inspect log (``.eval``), or a folder of them, of a bizsim task is read
    through its samples' run directories, with the model usage Inspect
    recorded (:mod:`~bizsim.analysis.inspect_logs`).

    Returns:
        :class:`Results` with the DataFrames ``runs``, ``series``, ``events``
        and ``llm_calls`` (columns in ``RUN_COLUMNS``, ``SERIES_COLUMNS``,
        ``EVENT_COLUMNS``, ``LLM_CALL_COLUMNS``).

    Raises:
        ConfigError: the path holds no results.
    """
    from bizsim.runs._replay import record_from_run_dir

    if not isinstance(path, (str, os.PathLike)):
        return _concat([load(p) for p in path])
    root = Path(path)
    if SweepDir(root).results.exists() or SweepDir(root).table("runs").exists():
        return _read_dir(root)
    if RunDir(root).is_finished():
        return _from_records([record_from_run_dir(root)], None)
    from bizsim.analysis.inspect_logs import inspect_log_files, records_from_inspect_logs

    logs = inspect_log_files(root)
    if logs:
        records, calls = records_from_inspect_logs(logs)
        return _from_records(records, None, calls)
    children = sorted(p for p in root.iterdir() if RunDir(p).is_finished()) if root.is_dir() else []
    if children:
        records = []
        for child in children:
            try:
                records.append(record_from_run_dir(child))
            except BizSimError as exc:  # which of many run directories is at fault
                raise type(exc)(f"{str(child)!r}: {exc}") from None
        return _from_records(records, None)
    raise ConfigError(
        f"{str(root)!r} holds no results: expected a sweep directory (results.jsonl), run directories (result.json) "
        "or Inspect logs (.eval)"
    )
