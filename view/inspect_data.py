"""An Inspect log as the viewer's data: its samples (one bizsim episode each), and each sample's transcript.

A bizsim task's sample names its run directory in its metadata (``bizsim_run_dir``); the run directory gives the
world's curve and events, as for any run. What the model was sent and answered is in the log itself: each of
Inspect's model events is a turn (its input messages, tools and output), and the tool events after it are the
commands it ran. A sample played through bizsim's own harness (preset ``reference``) has a complete LLM run
directory, shown exactly as ``bizsim view`` shows that directory.

Reading a log needs Inspect (``pip install -e ".[inspect]"`` in the bizsim checkout).
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from bizsim.runs.rundir import RunDir
from bizsim.simcore.errors import ConfigError

from bizsim.analysis.inspect_logs import RUN_DIR_KEY, check_log_size
from bizsim.analysis.labels import is_money, words
from bizsim.view._records import clip, read_records
from bizsim.view.run_data import assign_markers, is_run_dir, run_data

__all__ = ["MAX_FOLDER_LOGS", "inspect_folder_data", "inspect_log_data", "inspect_sample_data", "is_inspect_folder",
           "is_inspect_log"]

#: At most this many logs of a folder are listed on its page (the newest by name, as Inspect names them by time).
MAX_FOLDER_LOGS = 200



def is_inspect_log(path: Path) -> bool:
    """Whether ``path`` looks like an Inspect log: an ``.eval`` file, or a ``.json`` one that starts as a log does."""
    if not path.is_file():
        return False
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json":
        return False
    with path.open("rb") as fh:
        head = fh.read(4096)
    return b'"eval"' in head and b'"version"' in head


def _folder_logs(path: Path) -> list[Path]:
    """The Inspect logs directly in the folder ``path``, by name (Inspect's names start with their time)."""
    if not path.is_dir():
        return []
    return sorted(p for p in path.iterdir() if p.suffix in (".eval", ".json") and is_inspect_log(p))


def is_inspect_folder(path: Path) -> bool:
    """Whether ``path`` is a folder holding Inspect logs (as ``inspect eval --log-dir`` leaves one)."""
    return path.is_dir() and any(p.suffix == ".eval" for p in path.iterdir()) and bool(_folder_logs(path))


def inspect_folder_data(path: Path) -> dict:
    """The viewer's data for a folder of Inspect logs: every log's samples in one table, each a page of its own
    (as ``bizsim report`` and ``load()`` read the whole folder)."""
    logs = _folder_logs(path)
    problems: list[str] = []
    if len(logs) > MAX_FOLDER_LOGS:
        problems.append(f"the folder holds {len(logs):,} logs; the newest {MAX_FOLDER_LOGS} are listed (name one "
                        "log to see another)")
        logs = logs[-MAX_FOLDER_LOGS:]
    rows: list[dict[str, Any]] = []
    pages: dict[str, Any] = {}
    metas = []
    for k, log in enumerate(logs):
        try:
            one = inspect_log_data(log)
        except ConfigError as exc:  # one unreadable log does not hide the others
            problems.append(f"{log.name}: {exc}"[:500])
            continue
        metas.append(one["meta"])
        problems.extend(f"{log.name}: {p}" for p in one["problems"])
        for row in one["rows"]:
            page = f"log{k}-{row['page']}"
            rows.append(row | {"page": page, "log": clip(log.name, 300)})
            pages[page] = {"inspect_log": log.name, "inspect_sample": one["pages"][row["page"]]["inspect_sample"]}
    if not logs:
        problems.append("the folder holds no Inspect log")

    def joined(key: str) -> str:
        return clip(", ".join(dict.fromkeys(str(m[key]) for m in metas)), 300)

    return {
        "kind": "inspect", "problems": problems, "rows": rows, "pages": pages,
        "meta": {"path": str(path), "task": joined("task"), "model": joined("model"),
                 "status": joined("status"), "created": max((str(m["created"]) for m in metas), default=""),
                 "logs": len(metas)},
    }


def _read(path: Path) -> Any:
    st = path.stat()
    return _read_once(str(path), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=2)
def _read_once(name: str, size: int, mtime_ns: int) -> Any:
    """The log, read once for its page and all its samples' pages (a changed file is read again)."""
    path = Path(name)
    check_log_size(path)
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        from bizsim.simcore.extras import install_hint

        raise ConfigError(f"{str(path)!r} is an Inspect log; reading it needs Inspect: {install_hint('inspect')}"
                          ) from None
    try:
        return read_eval_log(str(path), resolve_attachments=True)
    except Exception as exc:  # noqa: BLE001 -- whatever Inspect raises for a file it cannot read
        why = f"{type(exc).__name__}: {exc}"[:500]
        raise ConfigError(f"{str(path)!r} cannot be read as an Inspect log: {why}") from None


def _run_dir(sample: Any) -> Path | None:
    value = (sample.metadata or {}).get(RUN_DIR_KEY)
    return Path(value) if isinstance(value, str) and len(value) < 4096 else None


def _status(sample: Any) -> str:
    if sample.error is not None:
        return "error: " + str(getattr(sample.error, "message", sample.error))[:200]
    if sample.limit is not None:
        return f"{sample.limit.type} limit"
    score = (sample.scores or {}).get("world_metric")
    reason = (score.metadata or {}).get("terminal_reason") if score is not None else None
    return str(reason or "scored" if score is not None else "not scored")


def _usage(sample: Any) -> tuple[int, float | None]:
    usages = list((sample.model_usage or {}).values())
    costs = [u.total_cost for u in usages]
    cost = None if not costs or None in costs else float(sum(c for c in costs if c is not None))
    return sum(int(u.total_tokens or 0) for u in usages), cost


def inspect_log_data(path: Path) -> dict:
    """The viewer's data for an Inspect log: the eval's facts and one row a sample (each a page of its own)."""
    log = _read(path)
    rows: list[dict[str, Any]] = []
    pages: dict[str, Any] = {}
    for i, sample in enumerate(log.samples or ()):
        score = (sample.scores or {}).get("world_metric")
        facts = dict(score.metadata or {}) if score is not None else {}
        metadata = sample.metadata or {}
        tokens, cost = _usage(sample)
        run_dir = _run_dir(sample)
        metric = str(facts.get("metric") or "")
        rows.append({
            "page": f"sample-{i}", "id": clip(str(sample.id), 200), "epoch": sample.epoch,
            "world": clip(str(metadata.get("world") or facts.get("world") or ""), 200),
            "preset": clip(str(metadata.get("preset") or facts.get("preset") or ""), 200),
            "seed": metadata.get("seed") if isinstance(metadata.get("seed"), int) else None,
            "metric": metric, "metric_label": words(metric) if metric else "", "money": is_money(metric),
            "value": score.value if score is not None and isinstance(score.value, (int, float)) else None,
            "status": _status(sample), "tokens": tokens, "cost_usd": cost,
            "run_dir": None if run_dir is None else str(run_dir),
            "run_dir_found": run_dir is not None and is_run_dir(run_dir),
        })
        pages[f"sample-{i}"] = {"inspect_sample": i}
    problems = [] if rows else ["the log holds no samples"]
    if log.status != "success":
        why = f": {str(log.error.message)[:300]}" if log.error else ""
        problems.append(f"the eval's status is {log.status}{why}")
    return {
        "kind": "inspect", "problems": problems, "rows": rows, "pages": pages,
        "meta": {"path": str(path), "task": clip(str(log.eval.task), 300), "model": clip(str(log.eval.model), 300),
                 "status": log.status, "created": str(log.eval.created), "eval_id": str(log.eval.eval_id)},
    }


def _digest(message: dict) -> str:
    return hashlib.sha256(json.dumps(message, sort_keys=True, default=str).encode()).hexdigest()[:24]


def _message(m: Any) -> tuple[dict, dict]:
    """An Inspect chat message as the page shows one (role, text, tool calls), and its reasoning if any."""
    out: dict[str, Any] = {"role": m.role, "content": clip(m.text)}
    reasoning = {}
    if isinstance(m.content, list):
        thoughts = [getattr(c, "reasoning", "") for c in m.content if getattr(c, "type", "") == "reasoning"]
        if any(thoughts):
            reasoning["reasoning"] = clip("\n".join(t for t in thoughts if t))
    calls = getattr(m, "tool_calls", None)
    if calls:
        out["tool_calls"] = [{"id": c.id, "function": {"name": c.function, "arguments": clip(json.dumps(c.arguments))}}
                             for c in calls]
    if m.role == "tool":
        out["tool_call_id"] = getattr(m, "tool_call_id", None)
    return out, reasoning


def _result(text: Any) -> Any:
    if not isinstance(text, str):
        return clip(str(text))
    try:
        return clip(json.loads(text))
    except ValueError:
        return clip(text)


def _transcript(
    sample: Any, cmd_times: list[int], end_t: int,
) -> tuple[list[dict], dict[str, Any], list[Any], list[str]]:
    """Turns (one a model event, with the tool events after it), the messages by digest, the tool lists."""
    turns: list[dict] = []
    messages: dict[str, Any] = {}
    tools: list[Any] = []
    tool_index: dict[str, int] = {}
    problems: list[str] = []
    n_cmd, last_t = 0, 0
    for event in sample.events:
        kind = getattr(event, "event", None)
        if kind == "model":
            ids = []
            for m in event.input:
                msg, _ = _message(m)
                d = _digest(msg)
                messages.setdefault(d, msg)
                ids.append(d)
            offered = [clip({"name": t.name, "description": t.description,
                             "parameters": t.parameters.model_dump(exclude_none=True)}) for t in event.tools]
            key = _digest({"tools": offered})
            if key not in tool_index:
                tool_index[key] = len(tools)
                tools.append(offered)
            out = event.output
            answer, reasoning = _message(out.message) if out.choices else ({}, {})
            usage = out.usage
            turns.append({
                "t": last_t, "episode": 1, "turn": len(turns) + 1, "ok": event.error is None,
                "errors": [clip(str(event.error))] if event.error else [], "failed_attempts": event.retries or 0,
                "commands": [],
                "request": {"messages": ids, "tools": tool_index[key], "params": {}, "verified": None},
                "response": {
                    "content": answer.get("content"), "tool_calls": answer.get("tool_calls"), "echo": reasoning,
                    "usage": None if usage is None else {"prompt_tokens": usage.input_tokens,
                                                         "completion_tokens": usage.output_tokens,
                                                         "total_tokens": usage.total_tokens},
                    "cost_usd": None if usage is None or usage.total_cost is None else float(usage.total_cost),
                    "latency_s": out.time, "model": out.model or event.model, "finish_reason": out.stop_reason,
                },
            })
        elif kind == "tool" and turns:
            t = cmd_times[n_cmd] if n_cmd < len(cmd_times) else last_t
            n_cmd += 1
            last_t = t
            if len(turns[-1]["commands"]) == 0:
                turns[-1]["t"] = t
            error = None if event.error is None else clip(str(event.error.message), 500)
            result = _result(event.result)
            if error is None and isinstance(result, dict) and "error" in result:
                error = clip(str(result["error"]), 500)
            turns[-1]["commands"].append({
                "line": clip(f"{event.function} {json.dumps(event.arguments, ensure_ascii=False)}"), "t": t,
                "result": result, "error": error, "source": "model",
            })
    # A turn that ran nothing happened before the next command, or at the end of the run if none followed.
    following = end_t
    for turn in reversed(turns):
        if turn["commands"]:
            following = turn["t"]
        else:
            turn["t"] = following
    if cmd_times and n_cmd != len(cmd_times):
        problems.append(f"the transcript has {n_cmd} tool calls and the run directory {len(cmd_times)} commands; "
                        "turns are placed in simulated time approximately")
    return turns, messages, tools, problems


def inspect_sample_data(path: Path, index: int, **options: Any) -> dict:
    """The run page of sample ``index`` of the Inspect log at ``path``: the world's curve and events from its run
    directory, and the turns from Inspect's transcript."""
    log = _read(path)
    samples = log.samples or []
    if not 0 <= index < len(samples):
        raise ConfigError(f"the log has {len(samples)} samples; there is no sample {index}")
    sample = samples[index]
    run_dir = _run_dir(sample)
    found = run_dir is not None and is_run_dir(run_dir)
    if found and run_dir is not None and RunDir(run_dir).is_llm():  # played through bizsim's harness
        data = run_data(run_dir, requests=options.get("requests", True))
        data["meta"]["inspect"] = {"log": str(path), "sample": str(sample.id), "epoch": sample.epoch}
        return data
    data = run_data(run_dir, requests=False) if found and run_dir is not None else {
        "kind": "run", "meta": {"path": str(path), "status": _status(sample), "finished": True, "end_t": 0},
        "figures": {}, "timeline": [], "markers": [], "turns": [],
        "problems": [f"the sample's run directory {str(run_dir)!r} is not on this machine: the transcript only"],
    }
    rows = read_records(RunDir(run_dir).trajectory, []) if found and run_dir is not None else []
    cmd_times = [int(r.get("t_us") or 0) for r in rows if r.get("kind") == "cmd"]
    turns, messages, tools, problems = _transcript(sample, cmd_times, int(data["meta"].get("end_t") or 0))
    for i, t in enumerate(turns):
        t["i"] = i
        t["error"] = any(c.get("error") for c in t["commands"]) or not t["ok"]
    tokens, cost = _usage(sample)
    data["problems"].extend(problems)
    data["turns"], data["agent_kind"], data["shared"] = turns, "llm", []  # the run directory's turns are replaced
    data["meta"].update({"messages": messages, "tools": tools, "tokens": tokens, "cost_usd": cost,
                         "model": str(log.eval.model), "inspect": {"log": str(path), "sample": str(sample.id),
                                                                   "epoch": sample.epoch}})
    assign_markers(data["markers"], turns)
    return data
