"""A sweep directory as the viewer's data: one compact row a run, and the summary of each group of seeds."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from bizsim.runs._results_file import iter_heads
from bizsim.runs.rundir import SweepDir
from bizsim.simcore.errors import ConfigError

from bizsim.analysis.grouping import group_name, varying_fields, with_agent
from bizsim.analysis.labels import is_money, stop_name, words
from bizsim.analysis.intervals import bootstrap_ci
from bizsim.analysis.tables import PRIVATE_OPTIONS, option_column, option_value
from bizsim.view._records import MAX_VIEW_FILE_BYTES

__all__ = ["is_sweep_dir", "sweep_data"]

#: Row columns, in the table's order (then one column per agent option that varies).
COLUMNS = ("world", "preset", "agent", "model", "seed", "metric", "value", "status", "cost_usd", "turns", "run_id")
#: At most this many agent options become columns (a sweep's records are files from anywhere).
_MAX_OPTION_COLUMNS = 20


def is_sweep_dir(path: Path) -> bool:
    """Whether ``path`` is a sweep directory (it has ``results.jsonl``)."""
    return SweepDir(path).is_sweep()


def _options(rec: dict) -> dict[str, Any]:
    """A record's agent options as run-table cells, by column name (the runs table's names)."""
    spec: dict = rec["spec"] if isinstance(rec.get("spec"), dict) else {}
    options: dict = spec["agent_options"] if isinstance(spec.get("agent_options"), dict) else {}
    out: dict[str, Any] = {}
    for k, v in options.items():
        if k == "model" or k in PRIVATE_OPTIONS:  # a column of its own; where the model is, never shown
            continue
        cell = option_value(v)
        out[option_column(str(k)[:200])] = cell if cell is None or isinstance(cell, (bool, int, float)) else _short(cell)
    return out


def _order(v: Any) -> tuple:
    """A cell's place when sorting: numbers by value (5 before 20), text by text, missing last."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (False, 0, float(v), "")
    return (v is None, 1, 0.0, str(v))


def _row(rec: dict) -> list[Any]:
    spec: dict = rec["spec"] if isinstance(rec.get("spec"), dict) else {}
    run: dict = rec["run"] if isinstance(rec.get("run"), dict) else {}
    options: dict = spec["agent_options"] if isinstance(spec.get("agent_options"), dict) else {}
    status = rec.get("status", "ok")
    if status == "ok":
        # A run stopped by a cap, a guard or its API is "stopped: turn cap", never "error" (a run that failed to run)
        status = "bankrupt" if run.get("bankrupt") else ("collapsed" if run.get("collapsed") else
                                                         stop_name(run.get("terminal_reason"), run.get("terminal_detail"))
                                                         or str(run.get("terminal_reason") or "ok"))
    value = run.get("metric_value")
    return [
        _short(spec.get("world")), _short(rec.get("preset_label") or spec.get("preset")), _short(spec.get("agent")),
        _short(options.get("model")), spec.get("seed") if isinstance(spec.get("seed"), int) else None,
        _short(run.get("metric")), value if isinstance(value, (int, float)) and not isinstance(value, bool) else None,
        _short(status), run.get("llm_cost_usd") if isinstance(run.get("llm_cost_usd"), (int, float)) else None,
        run.get("turns") if isinstance(run.get("turns"), int) else None, _short(rec.get("run_id")),
    ]


def _short(v: Any, limit: int = 200) -> str | None:
    return None if v is None else str(v)[:limit]


def _groups(rows: list[list[Any]], varied: list[str]) -> list[dict]:
    """Per (world, preset, agent, model, each varied agent option, and what stopped the runs cut short): runs, mean
    metric and its 95 % percentile bootstrap interval (the report's), bankruptcies, cost. ``varied`` options sit at the end of each row (after
    :data:`COLUMNS`). Runs stopped by a cap, a guard or their API make groups of their own (``stopped``): their
    figures are where they stopped, and no mean over whole runs takes them in."""
    found: dict[tuple, list[list[Any]]] = {}
    base = len(COLUMNS)
    for r in rows:
        stopped = r[7] if isinstance(r[7], str) and r[7].startswith("stopped") else None
        found.setdefault((r[0], r[1], r[2], r[3], r[5], *r[base:], stopped), []).append(r)
    out = []
    for key, rs in sorted(found.items(), key=lambda kv: tuple(_order(k) for k in kv[0])):
        stopped, key = key[-1], key[:-1]
        values = [float(r[6]) for r in rs if r[6] is not None]
        mean, low, high, n = bootstrap_ci(values)  # a percentile interval: within the seeds' range, never below $0
        costs = [float(r[8]) for r in rs if r[8] is not None]
        metric = key[4] or ""
        out.append({
            "world": key[0], "preset": key[1], "agent": key[2], "model": key[3],
            "options": dict(zip(varied, key[5:])), "metric": metric,
            "metric_label": words(metric) if metric else "", "money": is_money(metric), "runs": len(rs), "n": n,
            "mean": None if n == 0 else mean, "ci_low": None if math.isnan(low) else low,
            "ci_high": None if math.isnan(high) else high,
            "bankrupt": sum(1 for r in rs if r[7] == "bankrupt"), "failed": sum(1 for r in rs if r[7] == "error"),
            "ended_early": sum(1 for r in rs if r[7] in ("bankrupt", "collapsed") or r[7] == stopped),
            "stopped": stopped,
            "cost_usd": sum(costs) if costs else None, "values": values[:: max(1, n // 400)][:400],
        })
    return out


def sweep_data(path: Path) -> dict:
    """The viewer's data for a sweep directory: the runs table (the last record of each run) and group summaries."""
    problems: list[str] = []
    file = SweepDir(path).results
    size = file.stat().st_size
    latest: dict[str, list[Any]] = {}
    options: dict[str, dict[str, Any]] = {}
    skipped: list[str] = []
    if size > MAX_VIEW_FILE_BYTES:
        problems.append(f"{file.name} is {size:,} bytes, over the viewer's limit; not shown")
    else:
        try:  # the one bounded reader of results.jsonl: a regular file, lines bounded in length and depth
            for _, rec in iter_heads(file, skipped=skipped):
                latest[rec["run_id"]] = _row(rec)
                options[rec["run_id"]] = _options(rec)
        except ConfigError as exc:
            problems.append(f"{exc}; the rest not shown")
    if skipped:
        problems.append(f"{file.name}: {len(skipped):,} line(s) skipped ({skipped[0]})")
    # An agent option is a column (and splits the groups) by the report's rule: where one agent's runs hold more
    # than one value of it (a baseline beside LLM runs has none of their options, which is no variation).
    names = sorted({k for o in options.values() for k in o})
    cells = [{"world": r[0], "preset_label": r[1], "agent": r[2], "model": r[3], **options[rid]}
             for rid, r in latest.items()]
    named = varying_fields(cells, ["world", "preset_label", "agent", "model", *names])
    varied = [k for k in named if k in names][:_MAX_OPTION_COLUMNS]
    for rid, row in latest.items():
        row.extend(options[rid].get(k) for k in varied)
    rows = sorted(latest.values(), key=lambda r: tuple(_order(v) for v in (r[0], r[1], r[2], r[3], *r[len(COLUMNS):], r[4])))
    runs_dir = SweepDir(path).runs
    with_dirs = sorted(p.name for p in runs_dir.iterdir() if p.is_dir()) if runs_dir.is_dir() else []
    money = sorted({r[5] for r in rows if r[5] and is_money(r[5])})
    columns = list(COLUMNS) + varied
    groups = _groups(rows, varied)
    # A group's name, as the report's headline table names it: the fields that vary, the agent always.
    label = with_agent([c for c in named if c not in names or c in varied])
    for g in groups:
        g["name"] = group_name({"world": g["world"], "preset_label": g["preset"], "agent": g["agent"],
                                "model": g["model"], **g["options"], "stopped": g["stopped"]}, [*label, "stopped"])
    return {"kind": "sweep", "meta": {"path": str(path), "runs": len(rows)}, "columns": columns, "rows": rows,
            "option_columns": varied, "groups": groups, "run_dirs": with_dirs, "money_metrics": money,
            "problems": problems}
