"""``bizsim export yc-bench``: a bizsim LLM run of the startup world as a YC-Bench results JSON.

The run is replayed from its own ``llm_calls.jsonl`` (no model is called) in
a temporary directory, to see every message bizsim's harness sent: each
model call becomes a turn with the status message, the harness's summary of
the calls (or the model's text), every command with the first 500
characters of its result, and the call's tokens and cost, as the reference
records them (specs/startup.md §14).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.untrusted_json import loads_untrusted

from bizsim.analysis.ycbench.importer import REFERENCE_CONFIG, _last_turn_texts
from bizsim.analysis.ycbench.replay_client import _tool_texts
from bizsim.analysis.ycbench.rollout import RESULT_CHARS
from bizsim.runs.rundir import RunDir, read_record

__all__ = ["export_rollout", "rollout_file_name"]


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
    """Write the LLM run in ``run_dir`` as a YC-Bench results JSON; returns the file written.

    ``out`` is a file, or a directory for the reference's file name (default: the current directory).

    Raises:
        ConfigError: ``run_dir`` holds no finished LLM run of the startup world, or the file exists.
    """
    from bizsim.runs.llm_run import llm_settings, load_run_spec, run_llm

    root = Path(run_dir)
    spec, recorded = load_run_spec(root)
    model = llm_settings(spec)[0].model
    if spec.world != "startup":
        raise ConfigError(f"{str(root)!r} is a run of world {spec.world!r}; only startup runs have the YC-Bench format")
    if not RunDir(root).is_finished():
        raise ConfigError(f"{str(root)!r} holds an unfinished run (no result.json); resume it first")
    result = read_record(root).to_dict()
    rows = [r for r in RunDir(root).read_calls() if r.get("kind") == "chat" and r.get("ok", True)
            and r.get("role") in (None, "agent")]
    target = Path(out) if out is not None else Path.cwd()
    if target.is_dir():
        target = target / rollout_file_name(spec.preset, spec.seed, model)
    if target.exists():
        raise ConfigError(f"{str(target)!r} already exists; choose another path")
    client = _Recorded(rows, model)
    scratch = Path(tempfile.mkdtemp(prefix="bizsim-export-"))
    try:
        replayed = run_llm(spec, out=scratch / "run", client=client)
        if client.seen and client.seen[-1]["tool_texts"] is None:
            client.seen[-1]["tool_texts"] = _last_turn_texts(scratch / "run", int(client.seen[-1]["row"].get("episode") or 1),
                                                              preset=spec.preset, seed=spec.seed)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    data = _rollout(spec, model, recorded, result, client.seen)
    data["time_series"] = time_series(replayed.final_world)
    from bizsim.simcore.files import write_text_atomic

    write_text_atomic(target, json.dumps(data, indent=2) + "\n")
    return target


#: The settings the reference records with its results (``time_series.config``), by their names in both.
RECORDED_SETTINGS = (
    "num_employees", "num_clients", "initial_funds_cents", "salary_bump_pct", "trust_build_rate",
    "trust_gating_fraction", "trust_gated_reward_boost", "trust_work_reduction_max", "loyalty_rat_fraction",
    "loyalty_severity", "penalty_fail_funds_pct", "deadline_min_biz_days", "deadline_qty_per_day",
    "prestige_decay_per_day", "reward_prestige_scale", "skill_rate_max", "market_browse_default_limit",
)


def time_series(world: Any) -> dict[str, Any]:
    """The parts of the reference's ``time_series`` bizsim writes (last episode): funds after every money
    movement, the ledger, every accepted task's status and the recorded settings."""
    from bizsim.simcore.config import config_to_dict

    cal, funds = world.calendar, world.ledger.initial_cents
    series = [{"time": cal.iso(0), "funds_cents": funds, "event": "start"}]
    ledger = []
    for entry in world.ledger:
        funds += entry.amount_cents
        series.append({"time": cal.iso(entry.t_us), "funds_cents": funds, "event": entry.category})
        ledger.append({"time": cal.iso(entry.t_us), "category": entry.category, "amount_cents": entry.amount_cents})
    tasks = [{"title": t.title, "client_name": t.client.name, "status": t.status,
              "reward_funds_cents": t.reward_cents,
              "accepted_at": None if t.accepted_at is None else cal.iso(t.accepted_at),
              "completed_at": None if t.completed_at is None else cal.iso(t.completed_at)}
             for t in world.tasks if t.accepted_at is not None]
    settings = config_to_dict(world.config)
    return {"funds": series, "ledger": ledger, "tasks": tasks,
            "config": {k: settings[k] for k in RECORDED_SETTINGS if k in settings}}


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


def _rollout(spec: Any, model: str, recorded: dict, result: dict, seen: list[dict[str, Any]]) -> dict[str, Any]:
    from bizsim.models.startup import StartupWorld

    years = StartupWorld(spec.preset, spec.seed).config.horizon_years
    by_episode: dict[int, list[dict]] = {}
    for s in seen:
        ep = int(s["row"].get("episode") or 1)
        by_episode.setdefault(ep, []).append(_turn(len(by_episode.get(ep, [])) + 1, s))
    summaries = result.get("episodes") or [result]
    base: dict[str, Any] = {
        "session_id": f"run-{spec.seed}-{model}", "model": model, "seed": spec.seed,
        "horizon_years": years, "total_episodes": len(summaries), "terminal": True,
        "terminal_reason": result.get("terminal_reason"), "terminal_detail": result.get("terminal_detail"),
        "started_at": recorded.get("started_at"), "ended_at": None,
    }
    cost = sum(t["cost_usd"] for turns in by_episode.values() for t in turns)
    base["turns_completed"] = sum(len(t) for t in by_episode.values())
    base["total_cost_usd"] = round(cost, 6)
    if len(summaries) == 1:
        base.pop("total_episodes")
        base["transcript"] = by_episode.get(1, [])
        return base
    base["episodes"] = [
        {"episode": n, "turns_completed": len(by_episode.get(n, [])), "terminal_reason": s.get("terminal_reason"),
         "terminal_detail": s.get("terminal_detail"),
         "cost_usd": round(sum(t["cost_usd"] for t in by_episode.get(n, [])), 6), "started_at": None,
         "ended_at": None, "transcript": by_episode.get(n, [])}
        for n, s in enumerate(summaries, 1)
    ]
    return base
