"""A run directory as the viewer's data: the metric over simulated time, the world's events, and the turns.

A turn of a baseline agent is what it did between two decision points (its commands, then the advance); a turn
of an LLM run is one model call: what the model was sent (read or rebuilt, see :mod:`.llm_requests`), what it answered,
the commands it ran and their results.
"""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import Any


from bizsim.analysis.labels import ending_words, is_money, kind_words, words
from bizsim.view._records import clip, read_json, read_records, share_repeats
from bizsim.runs.rundir import RunDir, read_record_noted

__all__ = ["as_reported", "assign_markers", "is_run_dir", "run_data"]

#: World events too frequent to mark (every simulated day has one).
_UNMARKED = frozenset({"day_end"})
#: Events by which a world marks its own end, which the generic ``episode_end`` then repeats.
_WORLD_ENDS = frozenset({"horizon_end"})
#: The marks of a run's end: they belong to the last turn that began at or before them.
_ENDS = _WORLD_ENDS | {"episode_end"}
_DAY_US = 86_400_000_000


def is_run_dir(path: Path) -> bool:
    """Whether ``path`` holds a run (finished or still being written)."""
    return RunDir(path).is_run()


def _world_facts(
    world: str | None, seed: Any, run_dir: Path,
) -> tuple[str | None, Any, dict | None, frozenset[str], Any, frozenset[str]]:
    """The world's calendar start (ISO), analysis hooks, summary before the first turn (from the run's config),
    the commands its timeline marks, the fresh world itself and its quiet events (the registry's
    ``quiet_events``); nothing for a world this install lacks."""
    if not world:
        return None, None, None, frozenset(), None, frozenset()
    try:
        from bizsim.simcore.registry import world_spec

        spec = world_spec(world)
        hooks = spec.hooks()
        made = spec.make(_config_of(run_dir), seed if isinstance(seed, int) else 1)
        marked = frozenset(c.name for c in made.commands.visible() if c.marked)
        return made.calendar.start.isoformat(), hooks, made.summary(), marked, made, frozenset(spec.quiet_events)
    except Exception:  # noqa: BLE001 -- a run from a world or version this install cannot build still shows
        return None, None, None, frozenset(), None, frozenset()


def _config_of(run_dir: Path) -> Any:
    """The run's world config: its ``config.toml``, or while an LLM run is written, its ``run.json``'s spec."""
    run = RunDir(run_dir)
    if run.config.exists():
        return str(run.config)
    recorded = read_json(run.run_spec, []) if run.is_llm() else None
    spec = (recorded or {}).get("spec")
    if isinstance(spec, dict):
        from bizsim.runs.runspec import RunSpec, world_config

        return world_config(RunSpec.from_dict(spec, recorded=True))
    return "default"


def _generic_timeline(result: dict, metric: str, start: str | None) -> tuple[str, list[list[float]]]:
    """The summary series that tracks the metric (``net_worth_cents`` -> ``daily_net_worth_cents``)."""
    from bizsim.analysis.series import tracking_series

    name = tracking_series([k for k, v in result.items() if isinstance(v, (list, dict)) and v], metric)
    if name is None:
        return metric, []
    return name, _points(result[name], start)


def _points(values: list | dict, start: str | None) -> list[list[float]]:
    """A summary series as the chart's points: a list's item ``i`` at the end of day ``i``, a month's value
    (``"2025-03"``) at the last instant of that month."""
    if isinstance(values, list):
        return [[(i + 1) * _DAY_US, float(v)] for i, v in enumerate(values) if isinstance(v, (int, float))]
    points = []
    if start is not None:
        from datetime import datetime

        t0 = datetime.fromisoformat(start)
        for key, v in values.items():
            try:
                y, m = (int(p) for p in str(key).split("-"))
                nxt = datetime(y + (m == 12), m % 12 + 1, 1)
            except ValueError:
                return []
            if isinstance(v, (int, float)):
                points.append([max(0, int((nxt - t0).total_seconds() * 1e6) - 1), float(v)])
    return sorted(points)


def as_reported(result: dict | None, start: str | None, end_t: int) -> dict | None:
    """The run's series that tracks its metric, point by point as the report counts it
    (:func:`bizsim.analysis.series.run_series`: a bankrupt run is 0 from its bankruptcy on, the month before keeps
    its figures, no stub month after the horizon), where the report's booked timeline shows balances as booked.

    Returns:
        ``name``, ``label``, ``money``, ``keys`` (months, or day numbers), ``values`` and ``points`` (the chart's
        ``[t_us, value]``); None for an unfinished run, one without such a series, or without pandas (the ``data``
        extra).
    """
    if not result or start is None:
        return None
    try:
        import pandas as pd
    except ImportError:
        return None
    from datetime import datetime, timedelta

    from bizsim.analysis.series import run_series, tracking_series
    from bizsim.runs._extract import summary_parts

    _, rows = summary_parts(result)  # the series rows a run's record gives every table (the report's too)
    name = tracking_series({r[0] for r in rows}, str(result.get("metric") or ""))
    if name is None:
        return None
    series = pd.DataFrame([("run", *r) for r in rows], columns=["run_id", "name", "step", "key", "value"])
    end = datetime.fromisoformat(start) + timedelta(microseconds=end_t)
    reason = str(result.get("terminal_reason") or "")
    runs = pd.DataFrame({"run_id": ["run"], "bankrupt": [bool(result.get("bankrupt"))],
                         "collapsed": [reason == "collapsed"], "end_time": [end.isoformat()]})
    s = run_series(series, runs, name, extend=False)
    keys, values = [str(k) for k in s["key"]], [float(v) for v in s["value"]]
    monthly = all(len(k) == 7 and k[4] == "-" for k in keys)
    shown: list | dict = dict(zip(keys, values)) if monthly else values
    return {"name": name, "label": words(name), "money": is_money(name), "keys": keys, "values": values,
            # a month the run ended in is drawn where it ended, on the same time axis as the booked chart
            "points": [[min(t, end_t) if end_t > 0 else t, v] for t, v in _points(shown, start)]}


def _action_facts(record: dict) -> dict:
    """What a marked command's label names: its task or product, and whether the world accepted the attempt."""
    args: dict = record["args"] if isinstance(record.get("args"), dict) else {}
    result: dict = record["result"] if isinstance(record.get("result"), dict) else {}
    facts = {k: v for k, v in args.items() if k in ("task_id", "product_name")}
    items = (result.get("order") or {}).get("items") if isinstance(result.get("order"), dict) else None
    if isinstance(items, list) and items and isinstance(items[0], dict):
        facts["product"] = items[0].get("name")
    if isinstance(result.get("is_success"), bool):
        facts["success"] = result["is_success"]
    return facts


def _marker(t_us: int, kind: str, name: str, data: Any, names: dict[str, str] | None = None) -> dict:
    label = kind_words(name)
    if isinstance(data, dict):
        for key in ("task_title", "task_id", "product", "product_name", "title"):
            if isinstance(data.get(key), str):
                label += f" {(names or {}).get(data[key], data[key])}"  # the name the agent knows it by
                break
        if isinstance(data.get("milestone_pct"), (int, float)):
            label += f" ({data['milestone_pct']}% done)"
        if name == "episode_end" and isinstance(data.get("status"), str):  # how it ended: bankrupt, max_turns...
            label += f" ({data['status']}" + (f": {data['detail']}" if isinstance(data.get("detail"), str) else "") + ")"
        if data.get("success") is False or data.get("ok") is False:
            label += " (failed)"
            name += " (failed)"  # its own kind, colour and legend entry: failures are what a reader looks for
        elif data.get("success") is True:
            label += " (succeeded)"
    return {"t": t_us, "kind": kind, "name": name, "label": label[:200], "turn": 0}


def _without_echoed_ends(markers: list[dict]) -> list[dict]:
    """A world that marks its own end (``horizon_end``) ends the episode at that instant too: one mark. Any other
    end (bankruptcy, a budget, the agent stopping) is the ``episode_end`` mark alone, and kept."""
    ends = {m["t"] for m in markers if m["name"] in _WORLD_ENDS}
    return [m for m in markers if m["name"] != "episode_end" or m["t"] not in ends]


def _baseline_turns(rows: list[dict], lines: list[str], marked: frozenset[str] = frozenset(),
                    names: dict[str, str] | None = None) -> tuple[list[dict], list[dict]]:
    turns: list[dict] = []
    markers: list[dict] = []
    current: dict | None = None
    n_cmd = 0
    for r in rows:
        kind, name, t = r.get("kind"), str(r.get("name", "")), int(r.get("t_us") or 0)
        data = r.get("data")
        if current is None:
            current = {"t": t, "commands": [], "stop": None}
        if kind == "cmd":
            d = data if isinstance(data, dict) else {}
            line = lines[n_cmd] if n_cmd < len(lines) else name
            n_cmd += 1
            cmd = {"line": line, "name": name, "t": t}
            if "error" in d:
                cmd["error"] = clip(d.get("error"))
                cmd["result"] = clip({k: v for k, v in d.items() if k not in ("args",)})
            else:
                cmd["result"] = clip(d.get("result"))
                if name in marked:  # an agent's decision, on the timeline with the world's events
                    markers.append(_marker(t, "action", name, _action_facts(d)))
            current["commands"].append(cmd)
        elif kind == "stop":
            current["stop"] = clip(data)
            current["t_end"] = t
            last = current["commands"][-1] if current["commands"] else None
            if last is not None and last["name"] == name and last.get("result") is None and "error" not in last:
                # The advance's answer (the day's report, the events it woke for) is its command's result: the
                # command is recorded when issued, its answer (the stop) only when time has moved.
                last["advance"] = True  # the page shows the turn's stop as its result (not written twice)
            turns.append(current)
            if isinstance(data, dict) and isinstance(data.get("events"), dict):
                for key, v in data["events"].items():
                    if isinstance(v, list) and v and key != "errors":
                        markers.append(_marker(t, "event", key, {}) | {"label": f"{key.replace('_', ' ')} ({len(v)})"})
            current = None
        elif kind == "event" and name not in _UNMARKED:
            markers.append(_marker(t, "event", name, data, names) | {"data": clip(data, 2000)})
    if current is not None and (current["commands"] or not turns):
        turns.append(current)
    return turns, _without_echoed_ends(markers)


def _llm_turns(calls: list[dict], agent_cmds: list[dict], requests: Any) -> list[dict]:
    by_turn: dict[tuple[int, int], list[dict]] = {}
    for c in agent_cmds:
        key = (int(c.get("episode") or 1), int(c.get("turn") or 0))
        by_turn.setdefault(key, []).append({
            "line": clip(str(c.get("line", ""))), "source": c.get("source"), "t": c.get("t_us"),
            "result": clip(c.get("result")), "error": _error_of(c.get("result")),
        })
    turns = []
    rebuilt = requests.calls if requests is not None else []
    chats = [r for r in calls if r.get("kind") == "chat" and not r.get("role")]
    last_t = 0
    last_notes: str | None = None
    for i, rec in enumerate(chats):
        key = (int(rec.get("episode") or 1), int(rec.get("turn") or 0))
        cmds = by_turn.get(key, [])
        req = rebuilt[i] if i < len(rebuilt) else None
        t = req.get("t_us") if req and req.get("t_us") is not None else (cmds[0]["t"] if cmds and cmds[0]["t"] is not None else last_t)
        last_t = int(t)
        resp = rec.get("response") or {}
        turn = {
            "t": last_t, "episode": key[0], "turn": key[1], "ok": bool(rec.get("ok", True)),
            "errors": clip(rec.get("errors") or []), "failed_attempts": rec.get("failed_attempts", 0),
            "commands": cmds,
            "response": clip({k: resp.get(k) for k in ("content", "tool_calls", "usage", "cost_usd", "latency_s",
                                                        "model", "finish_reason", "echo") if k in resp}),
        }
        if req is not None:
            turn["request"] = {"messages": req["messages"], "tools": req["tools"], "params": req["params"],
                               "verified": req["verified"]}
            if req.get("scratchpad") is not None:
                turn["scratchpad"] = req["scratchpad"]
            memory = req.get("memory")
            if memory is not None:
                # Notes of up to 20,000 characters repeated on every turn of a long run would make the page huge.
                if memory.get("notes") is not None and memory["notes"] == last_notes:
                    memory = {k: v for k, v in memory.items() if k != "notes"} | {"notes_unchanged": True}
                else:
                    last_notes = memory.get("notes")
                turn["memory"] = memory
        turns.append(turn)
    # Commands the harness ran outside any model call (an automatic advance) join the turn they follow.
    return turns


def _fork_point(fork: Any) -> dict | None:
    """Where a fork left its parent: the turn (the fork's first own turn is this index) and the simulated time."""
    if not isinstance(fork, dict) or not isinstance(fork.get("turn"), int):
        return None
    return {"turn": fork["turn"], "t": fork.get("t_us"), "mode": fork.get("mode"),
            "parent": clip(fork.get("parent"), 300)}


def _model_of(spec: dict) -> str | None:
    """The model an LLM run's ``run.json`` names (its spec's agent options; older files: its agent settings)."""
    options = spec.get("agent_options") if isinstance(spec.get("agent_options"), dict) else spec.get("agent")
    model = options.get("model") if isinstance(options, dict) else None
    return str(model) if model is not None else None


def _player_of(result: dict | None) -> str | None:
    """Who played a run a person played (``bizsim play``'s ``live.metadata.player``), cut to 80 characters."""
    live = (result or {}).get("live")
    player = ((live or {}).get("metadata") or {}).get("player") if isinstance(live, dict) else None
    return player[:80] if isinstance(player, str) and player else None


def _error_of(result: Any) -> str | None:
    if isinstance(result, dict) and "error" in result:
        return str(result.get("error"))[:500]
    return None


def assign_markers(markers: list[dict], turns: list[dict]) -> None:
    """Each marker's turn: for a world's event, the last turn that began strictly before it (the turn whose advance
    it happened in); for the agent's action, the first turn that began at its instant, else the one it fell in
    (the turn that issued it; of several model turns at one instant, the first); the run's end, the last turn that
    began at or before it (a run whose time never moved ends in its last turn, not its first)."""
    times = [int(t.get("t") or 0) for t in turns]
    for m in markers:
        if m.get("name") in _ENDS:  # the run ended in its last turn, even one that began at the same instant
            m["turn"] = max(0, bisect.bisect_right(times, m["t"]) - 1)
            continue
        at = bisect.bisect_left(times, m["t"])
        here = m.get("kind") == "action" and at < len(times) and times[at] == m["t"]
        m["turn"] = (at if here else max(0, at - 1)) if times else 0


#: Keys of a run's record that are not figures of the run (the page shows them elsewhere, or not at all).
_NOT_FIGURES = ("benchmark_id", "schema_version", "wall_s")


def run_data(path: Path, *, requests: bool = True) -> dict:
    """The viewer's data for one run directory (see the module docstring); never fails on a partial run."""
    problems: list[str] = []
    record = read_record_noted(path, problems)
    result = record.to_dict() if record is not None else None
    run = RunDir(path)
    run_spec = read_json(run.run_spec, problems) if run.is_llm() else None
    rows = read_records(run.trajectory, problems)
    llm = run_spec is not None and run_spec.get("kind") == "llm"
    spec = (run_spec or {}).get("spec") or {}
    meta: dict[str, Any] = {
        "world": (result or {}).get("world") or spec.get("world"),
        "preset": (result or {}).get("preset") or spec.get("preset"),
        "seed": (result or {}).get("seed", spec.get("seed")),
        "agent": (result or {}).get("agent") or ("llm" if llm else None),
        "model": _model_of(spec) if llm else None,
        "benchmark_id": (result or {}).get("benchmark_id") or (run_spec or {}).get("benchmark_id"),
        "status": (result or {}).get("terminal_reason") or "running",
        "detail": (result or {}).get("terminal_detail"),
        "finished": result is not None,
        "path": str(path),
        "fork": _fork_point((result or {}).get("fork")),
        "player": _player_of(result),
    }
    if result is not None:  # a cap's stop in words, never a bare "error"
        meta["ending"] = ending_words(str(meta["status"]), meta["detail"] if isinstance(meta["detail"], str) else None)
    metric = str((result or {}).get("metric") or "")
    start, hooks, at_start, marked, fresh, quiet = _world_facts(meta["world"], meta["seed"], path)
    timeline_name, timeline = metric, []
    hook = getattr(hooks, "timeline", None)
    if hook is not None and rows:
        try:
            timeline_name, timeline = hook(rows, result, at_start)
        except Exception:  # noqa: BLE001 -- a world's hook failing must not hide the run
            problems.append("the world's timeline hook failed; the summary series is shown instead")
    if not timeline and result:
        timeline_name, timeline = _generic_timeline(result, metric, start)
    cost = ((result or {}).get("llm") or {}).get("cost_usd")
    meta.update({
        "metric": metric, "metric_label": words(metric) if metric else "", "metric_money": is_money(metric),
        "metric_value": (result or {}).get("metric_value"), "start": start,
        "timeline_name": timeline_name, "timeline_label": words(timeline_name) if timeline_name else "",
        "timeline_money": is_money(timeline_name), "cost_usd": cost,
        "end_t": max((int(r.get("t_us") or 0) for r in rows), default=0),
    })
    figures: dict[str, Any] = {}
    if result:
        for k, v in result.items():
            if isinstance(v, (int, float, str, bool)) and k not in meta and k not in _NOT_FIGURES:
                figures[k] = v
    lines = [str(c.get("line", "")) for c in read_records(run.commands, problems)] if not llm else []
    names: dict[str, str] = {}
    if getattr(hooks, "names", None) is not None and fresh is not None:
        try:
            names = hooks.names(rows, fresh)
        except Exception:  # noqa: BLE001 -- a world's hook failing must not hide the run; its ids are shown
            problems.append("the world's names hook failed; events show the ids the world recorded")
    turns, markers = _baseline_turns(rows, lines, marked, names)
    for m in markers:
        if m["name"] in quiet:  # kept for checking: the page draws them apart, hidden until asked
            m["quiet"] = True
    meta["quiet"] = sorted({m["name"] for m in markers if m.get("quiet")})
    kind = "baseline"
    if llm:
        calls = read_records(run.llm_calls, problems)
        agent_cmds = read_records(run.agent_commands, problems)
        rebuilt = None
        if requests and calls and run_spec is not None:
            from bizsim.view.llm_requests import read_requests

            rebuilt = read_requests(path, calls)
            if rebuilt.problem:
                problems.append(rebuilt.problem)
        turns = _llm_turns(calls, agent_cmds, rebuilt)
        kind = "llm"
        meta["messages"] = rebuilt.messages if rebuilt is not None else {}
        meta["tools"] = rebuilt.tools if rebuilt is not None else []
        meta["tokens"] = sum(int(((t["response"].get("usage") or {}).get("total_tokens")) or 0) for t in turns)
        # A turn of an LLM run is an answered model call, as result.json counts it; a call that failed for good
        # is listed among them (marked), not counted.
        meta["turns"] = sum(1 for t in turns if t["ok"])
        if cost is None:
            meta["cost_usd"] = sum(float(t["response"].get("cost_usd") or 0) for t in turns) or None
    assign_markers(markers, turns)
    for i, t in enumerate(turns):
        t["i"] = i
        t["error"] = any(c.get("error") for c in t["commands"]) or not t.get("ok", True)
    return {"kind": "run", "agent_kind": kind, "meta": meta, "figures": figures, "timeline": timeline,
            "reported": as_reported(result, start, meta["end_t"]), "markers": markers, "turns": turns,
            "shared": share_repeats(turns), "problems": problems}
