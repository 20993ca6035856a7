"""``bizsim export yc-bench``: a bizsim run of the startup world as a YC-Bench results JSON.

Any finished startup run directory is exported: a baseline or planner run, an LLM run, a live (MCP, shell,
Inspect) episode, an imported reference run. The world is rebuilt from the run's command logs, and its end
becomes the reference's ``time_series`` (:mod:`~bizsim.analysis.ycbench.timeseries`). An LLM run is also
replayed from its own ``llm_calls.jsonl`` (no model is called) in a temporary directory, to see every message
bizsim's harness sent: each model call becomes a turn with the status message, the harness's summary of the
calls (or the model's text), every command with the first 500 characters of its result, and the call's tokens
and cost, as the reference records them (specs/startup.md §14). A run without model calls has an empty
transcript, no tokens and no cost.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.untrusted_json import loads_untrusted

from bizsim.analysis.ycbench.importer import REFERENCE_CONFIG, _last_turn_texts
from bizsim.analysis.ycbench.replay_client import _tool_texts
from bizsim.analysis.ycbench.rollout import RESULT_CHARS
from bizsim.analysis.ycbench.timeseries import RECORDED_SETTINGS, time_series
from bizsim.runs.rundir import RunDir, read_record

__all__ = ["RECORDED_SETTINGS", "export_rollout", "rollout_file_name", "time_series"]

#: bizsim's reasons a run ended, as the reference's ``terminal_reason`` (every other ending is its ``error``).
_REASONS = {"bankruptcy": "bankruptcy", "horizon_end": "horizon_end"}


class _Recorded:
    """Serves a run's recorded answers in order, keeping the user text and the tool texts bizsim sent."""

    endpoint = "recorded-run"

    def __init__(self, rows: Sequence[dict], model: str) -> None:
        self.model = model
        self.rows = list(rows)
        self.seen: list[dict[str, Any]] = []
        self._cost: float | None = None

    def cost(self, model: str, usage: Any) -> float | None:
        return self._cost

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None, **params: Any) -> Any:
        from bizsim.agents.llm.errors import FatalModelError
        from bizsim.agents.llm.types import ModelResponse

        if self.seen:
            self.seen[-1]["tool_texts"] = _tool_texts(messages)
        if len(self.seen) >= len(self.rows):
            raise FatalModelError("the recorded run ends here")
        row = self.rows[len(self.seen)]
        users = [m for m in messages if m.get("role") == "user"]
        self.seen.append({"row": row, "user": str(users[-1].get("content") or "") if users else "", "tool_texts": None})
        response = ModelResponse.from_record(row["response"])
        self._cost = response.cost_usd
        return response


def rollout_file_name(preset: str, seed: int, model: str) -> str:
    """The reference's name for a results file: ``yc_bench_result_<config>_<seed>_<model>.json``."""
    config = REFERENCE_CONFIG if preset == "reference" else preset
    return f"yc_bench_result_{config}_{seed}_{model.replace('/', '_')}.json"


def export_rollout(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write the finished startup run in ``run_dir`` as a YC-Bench results JSON; returns the file written.

    ``out`` is a file, or a directory for the reference's file name (default: the current directory). The model
    named in the file is the LLM run's model, else the run's agent (``greedy``, ``planner``, ``mcp``...).

    Raises:
        ConfigError: ``run_dir`` holds no finished run of the startup world, or the file exists.
    """
    from bizsim.runs._replay import replay_run_dir

    root = Path(run_dir)
    if RunDir(root).is_llm():  # the harness's replay rebuilds the world too: one replay, not two
        seen, recorded, model, world = _replay_llm(root)
        result = read_record(root).to_dict()
    else:
        _, result, worlds = replay_run_dir(root)
        seen, recorded, model, world = [], {}, str(result.get("agent") or "unknown"), worlds[-1]
    if world.name != "startup":
        raise ConfigError(f"{str(root)!r} is a run of world {world.name!r}; only startup runs have the YC-Bench format")
    target = Path(out) if out is not None else Path.cwd()
    if target.is_dir():
        target = target / rollout_file_name(str(result.get("preset")), world.seed, model)
    if target.exists():
        raise ConfigError(f"{str(target)!r} already exists; choose another path")
    data = _rollout(world.seed, model, world.config.horizon_years, recorded, result, seen)
    data["time_series"] = time_series(world)
    from bizsim.simcore.files import write_text_atomic

    write_text_atomic(target, json.dumps(data, indent=2) + "\n")
    return target


def _replay_llm(root: Path) -> tuple[list[dict[str, Any]], dict, str, Any]:
    """Every model call of the LLM run in ``root`` with the messages bizsim's harness sent, ``run.json``, the model
    and the world at the end of the last episode."""
    from bizsim.runs.llm_run import llm_settings, load_run_spec, run_llm

    spec, recorded = load_run_spec(root)
    model = llm_settings(spec)[0].model
    rows = [r for r in RunDir(root).read_calls() if r.get("kind") == "chat" and r.get("ok", True)
            and r.get("role") in (None, "agent")]
    client = _Recorded(rows, model)
    scratch = Path(tempfile.mkdtemp(prefix="bizsim-export-"))
    try:
        world = run_llm(spec, out=scratch / "run", client=client).final_world
        if client.seen and client.seen[-1]["tool_texts"] is None:
            client.seen[-1]["tool_texts"] = _last_turn_texts(scratch / "run", int(client.seen[-1]["row"].get("episode") or 1),
                                                              preset=spec.preset, seed=spec.seed)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return client.seen, recorded, model, world


def _turn(n: int, seen: dict[str, Any]) -> dict[str, Any]:
    response = seen["row"]["response"]
    calls = response.get("tool_calls") or []
    texts = seen["tool_texts"] or []
    commands = []
    for i, call in enumerate(calls):
        try:
            command = loads_untrusted(call.get("arguments") or "{}").get("command", "")
        except (ValueError, AttributeError):
            command = ""
        if not isinstance(command, str) or not command:
            continue  # the reference records only calls with a command
        text = (texts[i] if i < len(texts) else "") or ""
        commands.append(f"{command} -> {text[:RESULT_CHARS]}" if text else command)
    shown = [c.split(" -> ", 1)[0] for c in commands]
    output = f"Executed {len(calls)} tool call(s): {', '.join(shown)}" if calls else (response.get("content") or "")
    usage = response.get("usage") or {}
    wall = seen["row"].get("wall_time")
    stamp = datetime.fromtimestamp(wall, UTC).isoformat() if isinstance(wall, (int, float)) else None
    return {"turn": n, "timestamp": stamp, "user_input": seen["user"], "agent_output": output,
            "commands_executed": commands, "prompt_tokens": int(usage.get("prompt_tokens") or 0),
            "completion_tokens": int(usage.get("completion_tokens") or 0),
            "cost_usd": float(response.get("cost_usd") or 0.0)}


def _ending(summary: dict, max_turns: Any) -> tuple[bool, str | None, str | None]:
    """``terminal``, ``terminal_reason`` and ``terminal_detail`` as the reference words an episode's end."""
    if isinstance(summary.get("live"), dict) and summary["live"].get("open"):
        return False, None, None  # a live episode still open: the reference's file of a run in progress
    reason = str(summary.get("terminal_reason"))
    if reason in _REASONS:
        return True, _REASONS[reason], reason
    detail = summary.get("terminal_detail")
    if detail == "max_turns" and isinstance(max_turns, int):
        detail = f"max_turns={max_turns} reached"
    return True, "error", str(detail if detail is not None else reason)


def _stamp(rows: list[dict], *, end: bool) -> str | None:
    """When the first of ``rows`` was asked or the last answered (UTC, ISO 8601): the reference's wall-clock times."""
    if not rows:
        return None
    row = rows[-1] if end else rows[0]
    wall = row.get("wall_time")
    if not isinstance(wall, (int, float)):
        return None
    latency = (row.get("response") or {}).get("latency_s")
    if not end and isinstance(latency, (int, float)):
        wall -= latency
    return datetime.fromtimestamp(wall, UTC).isoformat()


def _ended(recorded: dict, result: dict) -> str | None:
    """When a one-episode run ended: its start plus the runtime its record holds, so the export's span is the run's
    one runtime (``wall_s``, as Table 4 and ``result.json`` give it); ``None`` when either is missing or the run
    was resumed (its sessions' times are not one span: the last call's time stands)."""
    start, wall = recorded.get("started_at"), result.get("wall_s")
    if not isinstance(start, str) or not isinstance(wall, (int, float)) or isinstance(wall, bool) or recorded.get("resumes"):
        return None
    try:
        begun = datetime.fromisoformat(start)
    except ValueError:
        return None
    return (begun + timedelta(seconds=float(wall))).astimezone(UTC).isoformat()


def _rollout(seed: int, model: str, years: int, recorded: dict, result: dict,
             seen: list[dict[str, Any]]) -> dict[str, Any]:
    by_episode: dict[int, list[dict]] = {}
    rows: dict[int, list[dict]] = {}
    for s in seen:
        ep = int(s["row"].get("episode") or 1)
        by_episode.setdefault(ep, []).append(_turn(len(by_episode.get(ep, [])) + 1, s))
        rows.setdefault(ep, []).append(s["row"])
    summaries = result.get("episodes") or [result]
    max_turns = (result.get("agent_options") or {}).get("max_turns")
    terminal, reason, detail = _ending(result, max_turns)
    last = len(summaries)
    base: dict[str, Any] = {
        "session_id": f"run-{seed}-{model}", "model": model, "seed": seed,
        "horizon_years": years, "total_episodes": last, "terminal": terminal,
        "terminal_reason": reason, "terminal_detail": detail,
        # Over several episodes the reference keeps the last one's times at the top, as it does its ending.
        "started_at": recorded.get("started_at") if last == 1 else _stamp(rows.get(last, []), end=False),
        "ended_at": (_ended(recorded, result) if last == 1 else None) or _stamp(rows.get(last, []), end=True),
    }
    cost = sum(t["cost_usd"] for turns in by_episode.values() for t in turns)
    base["turns_completed"] = sum(len(t) for t in by_episode.values()) if seen else int(result.get("turns") or 0)
    base["total_cost_usd"] = round(cost, 6)
    if last == 1:
        base["transcript"] = by_episode.get(1, [])
        return base
    base["episodes"] = [
        {"episode": n, "turns_completed": len(by_episode.get(n, [])), "terminal_reason": ending[1],
         "terminal_detail": ending[2], "cost_usd": round(sum(t["cost_usd"] for t in by_episode.get(n, [])), 6),
         "started_at": _stamp(rows.get(n, []), end=False), "ended_at": _stamp(rows.get(n, []), end=True),
         "transcript": by_episode.get(n, [])}
        for n, s in enumerate(summaries, 1) for ending in [_ending(s, max_turns)]
    ]
    return base
