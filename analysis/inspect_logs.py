"""Inspect logs as bizsim results: each sample's run directory, with the model usage Inspect recorded.

A sample of a bizsim task names its run directory in its metadata
(``bizsim_run_dir``); that directory is read as any run directory is (its
command log replayed), so the ``runs``, ``series`` and ``events`` tables are
the ones a native run gives. What only Inspect saw is added: the sample's
tokens and cost (the ``llm_*`` columns) and, when bizsim's own harness did not
record the calls itself, one ``llm_calls`` row per model call of the transcript.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bizsim.simcore.errors import ConfigError
from bizsim.runs.rundir import RunDir

__all__ = ["INSPECT_LOG_SUFFIXES", "MAX_INSPECT_LOG_BYTES", "check_log_size", "inspect_log_files",
           "records_from_inspect_logs"]

#: File names Inspect writes its logs under.
INSPECT_LOG_SUFFIXES = (".eval", ".json")
#: The most bytes of JSON an Inspect log may hold, unpacked (an ``.eval`` file is a zip: 25 KB of it can unpack to
#: gigabytes). Inspect parses a log whole, at about three times its size in memory.
MAX_INSPECT_LOG_BYTES = 512 * 2**20
#: The sample metadata key holding the run directory.
RUN_DIR_KEY = "bizsim_run_dir"


def inspect_log_files(path: Path) -> list[Path]:
    """The Inspect logs ``path`` is or holds (``.eval`` files; ``.json`` ones only when named directly)."""
    if path.is_file():
        return [path] if path.suffix in INSPECT_LOG_SUFFIXES else []
    return sorted(path.glob("*.eval")) if path.is_dir() else []


def check_log_size(path: Path, limit: int = MAX_INSPECT_LOG_BYTES) -> None:
    """Refuse a log whose unpacked size (an ``.eval`` zip's entries as its directory declares them, which bounds
    what unzipping reads; a ``.json`` file's size) is past ``limit``, before Inspect reads it.

    Raises:
        ConfigError: past the limit, or an ``.eval`` that is not a zip.
    """
    import zipfile

    try:
        if path.suffix == ".eval":
            with zipfile.ZipFile(path) as z:
                size = sum(i.file_size for i in z.infolist())
        else:
            size = path.stat().st_size
    except (OSError, zipfile.BadZipFile) as exc:
        raise ConfigError(f"{str(path)!r} cannot be read as an Inspect log: {exc}") from None
    if size > limit:
        raise ConfigError(f"{str(path)!r} unpacks to {size:,} bytes, over the limit of {limit:,} for an Inspect log")


def records_from_inspect_logs(files: Sequence[Path]) -> tuple[list[dict], list[dict]]:
    """Sweep records (one per bizsim sample) and ``llm_calls`` rows from Inspect logs.

    Raises:
        ConfigError: a file is not an Inspect log, or no sample is a bizsim run whose directory is here (logs of
            other tasks in a folder are passed over).
    """
    from inspect_ai.log import read_eval_log

    from bizsim.runs._replay import record_from_run_dir

    records: list[dict] = []
    calls: list[dict] = []
    for file in files:
        check_log_size(file)
        try:
            log = read_eval_log(str(file))
        except Exception as exc:  # noqa: BLE001 - whatever Inspect raises for a file it cannot read
            raise ConfigError(f"{str(file)!r} cannot be read as an Inspect log: {type(exc).__name__}: {exc}") from None
        found = 0
        for sample in log.samples or ():
            run_dir = (sample.metadata or {}).get(RUN_DIR_KEY)
            if not isinstance(run_dir, str) or not RunDir(run_dir).is_finished():
                continue
            found += 1
            rec = record_from_run_dir(run_dir)
            rec["run_id"] = hashlib.sha256(f"{log.eval.eval_id}/{sample.id}/{sample.epoch}".encode()).hexdigest()[:16]
            rec["run"].update(_usage_columns(sample))
            rec["run"].update({"inspect_log": str(file), "inspect_sample": str(sample.id), "inspect_epoch": sample.epoch})
            records.append(rec)
            if not RunDir(run_dir).llm_calls.exists():
                calls.extend(_call_rows(rec["run_id"], sample))
        if not found and len(files) == 1:
            raise ConfigError(f"{str(file)!r} holds no bizsim sample with a run directory on this machine "
                              f"(metadata {RUN_DIR_KEY!r})")
    if not records:
        raise ConfigError(f"none of {len(files)} Inspect logs holds a bizsim sample with a run directory on this "
                          f"machine (metadata {RUN_DIR_KEY!r})")
    return records, calls


def _usage_columns(sample: Any) -> dict[str, Any]:
    from bizsim.surfaces.inspect_eval.usage import usage_totals

    prompt, completion, cost = usage_totals(list((sample.model_usage or {}).values()))
    turns = sum(1 for e in sample.events if getattr(e, "event", None) == "model")
    return {"llm_turns": turns, "llm_prompt_tokens": prompt, "llm_completion_tokens": completion,
            "llm_cost_usd": cost}


def _call_rows(run_id: str, sample: Any) -> list[dict]:
    rows: list[dict[str, Any]] = []
    for e in (e for e in sample.events if getattr(e, "event", None) == "model"):
        out = e.output
        usage = out.usage
        calls = out.message.tool_calls or [] if out.choices else []
        rows.append({
            "run_id": run_id, "call": len(rows), "kind": "chat", "ok": e.error is None, "episode": 1, "turn": len(rows) + 1,
            "role": None, "model": out.model or e.model, "prompt_tokens": usage.input_tokens if usage else None,
            "completion_tokens": usage.output_tokens if usage else None,
            "total_tokens": usage.total_tokens if usage else None,
            "cost_usd": None if usage is None or usage.total_cost is None else float(usage.total_cost),
            "latency_s": None if out.time is None else float(out.time), "finish_reason": out.stop_reason,
            "tool_calls": len(calls), "tool_names": ",".join(c.function for c in calls),
            "failed_attempts": e.retries or 0, "wall_time": e.timestamp.timestamp() if e.timestamp else None,
        })
    return rows
