"""An arena run directory as the viewer's data: a lane per seat over simulated time with its decisions and events,
and the messages, money and goods that passed between seats (the arena's own record of them).

Every text here comes from the run's files (a seat's message is a rival agent's text): the page shows it as text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bizsim.analysis.labels import ending_words, is_money, kind_words, words
from bizsim.runs.rundir import RunDir, read_record_noted
from bizsim.simcore.limits import MAX_INT
from bizsim.view._records import clip, read_records

__all__ = ["arena_data", "is_arena_dir"]

#: The arena's events that pass between seats (``from`` and ``to`` in their data), by the kind the page draws.
_LINKS = {"message": "message", "money": "money", "goods": "goods"}
#: Seat events too frequent to mark (every simulated day has one).
_UNMARKED = frozenset({"day_end"})
#: The longest message text carried into the page (the arena bounds them far lower; a file may have been edited).
_MAX_TEXT = 4000
#: The most marks drawn on one lane (a year's run has a few hundred; an edited file could hold millions).
_MAX_MARKS = 5000


def is_arena_dir(path: Path) -> bool:
    """Whether ``path`` holds an arena run (a run directory with seat records)."""
    return RunDir(path).is_arena()


def _marked_commands(world: str | None, seats: int) -> frozenset[str]:
    """The commands a seat's lane marks (the world's ``marked`` ones: orders, prices, transfers)."""
    if not world or seats < 1:
        return frozenset()
    try:
        from bizsim.simcore.registry import world_spec

        arena: Any = world_spec(world).make("default", 1, seats=seats)
        return frozenset(c.name for c in arena.seats[0].commands.visible() if c.marked)
    except Exception:  # noqa: BLE001 -- an arena this install cannot build still shows, unmarked
        return frozenset()


def _start_of(world: str | None, seats: int, path: Path) -> str | None:
    """The run's calendar start (ISO): built from its own ``config.toml`` (a preset may move the start date)."""
    if not world:
        return None
    try:
        from bizsim.simcore.registry import world_spec

        config = RunDir(path).config
        preset = str(config) if config.exists() else "default"
        return world_spec(world).make(preset, 1, seats=max(seats, 1)).calendar.start.isoformat()
    except Exception:  # noqa: BLE001
        return None


def _marks(rows: list[dict], marked: frozenset[str]) -> list[dict]:
    out: list[dict] = []
    for r in rows:
        kind, name, t = r.get("kind"), str(r.get("name", "")), r.get("t_us")
        if not isinstance(t, int) or len(out) >= _MAX_MARKS:
            continue
        raw = r.get("data")
        data: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if kind == "cmd" and name in marked:
            failed = "error" in data
            given = data.get("args")
            args: dict[str, Any] = given if isinstance(given, dict) else {}
            what = ", ".join(f"{k} {v}" for k, v in args.items() if isinstance(v, (str, int, float)))[:200]
            out.append({"t": t, "name": name + (" (failed)" if failed else ""),
                        "label": kind_words(name) + (f": {what}" if what else "") + (" (refused)" if failed else "")})
        elif kind == "event" and name not in _UNMARKED:
            out.append({"t": t, "name": name, "label": kind_words(name)})
    return out


def _amount_label(cents: Any) -> str | None:
    """A transfer's label, or ``None`` for an amount no run records (not a whole number of cents within the
    64-bit range: an edited file; 10**400 cents overflows a float)."""
    if type(cents) is not int or not 0 <= cents <= MAX_INT:
        return None
    return f"${cents / 100:,.2f} sent"


def _text(value: Any) -> str | None:
    """An ending's detail when it is text, as a run records it; anything else (an edited file) is left out."""
    return value if isinstance(value, str) else None


def _link(r: dict, bad_amounts: list[int]) -> dict | None:
    raw = r.get("data")
    data: dict[str, Any] = raw if isinstance(raw, dict) else {}
    kind = _LINKS.get(str(r.get("name")))
    sender, to, t = data.get("from"), data.get("to"), r.get("t_us")
    if r.get("kind") != "event" or kind is None or type(sender) is not int or type(to) is not int or type(t) is not int:
        return None
    link: dict[str, Any] = {"t": t, "from": sender, "to": to, "kind": kind, "text": None}
    if kind == "message":
        link["label"] = "message"
        link["text"] = clip(str(data.get("text", "")), _MAX_TEXT)
    elif kind == "money":
        label = _amount_label(data.get("amount_cents"))
        if label is None:
            bad_amounts[0] += 1
        link["label"] = label or "money sent"
    else:
        link["label"] = clip(f"{data.get('quantity')} x {data.get('product_name')}", 300)
    return link


def arena_data(path: Path) -> dict:
    """The viewer's data for one arena run directory; never fails on a partial or edited one."""
    problems: list[str] = []
    run = RunDir(path)
    record = read_record_noted(path, problems)
    result = record.to_dict() if record is not None else {}
    listed = [s for s in result.get("seats") or () if isinstance(s, dict)]
    folders = run.seat_dirs()
    world = result.get("world") if isinstance(result.get("world"), str) else None
    metric = str(result.get("metric") or next((s.get("metric") for s in listed if s.get("metric")), "") or "")
    marked = _marked_commands(world, len(folders))
    values = [s.get("metric_value") for s in listed]
    seats = []
    end_t = 0
    for k, folder in enumerate(folders):
        rows = read_records(folder.trajectory, problems)
        end_t = max([end_t, *(r["t_us"] for r in rows if isinstance(r.get("t_us"), int))])
        entry = listed[k] if k < len(listed) else {}
        value = entry.get("metric_value")
        rank = 1 + sum(1 for v in values if isinstance(v, (int, float)) and isinstance(value, (int, float)) and v > value)
        reason = entry.get("terminal_reason")
        seats.append({
            "seat": k, "agent": entry.get("agent"), "label": clip(str(entry.get("label") or entry.get("agent") or "?"), 200),
            "metric_value": value, "rank": rank if isinstance(value, (int, float)) else None,
            "turns": entry.get("turns"), "commands": entry.get("commands"),
            "ending": ending_words(reason, _text(entry.get("terminal_detail"))) if isinstance(reason, str) else None,
            "cost_usd": (entry.get("llm") or {}).get("cost_usd") if isinstance(entry.get("llm"), dict) else None,
            "marks": _marks(rows, marked),
        })
    bad_amounts = [0]
    links = [link for r in read_records(run.trajectory, problems) if (link := _link(r, bad_amounts)) is not None]
    if bad_amounts[0]:
        problems.append(f"{run.trajectory.name}: {bad_amounts[0]} transfer(s) have an amount that is not a whole "
                        f"number of cents from 0 to {MAX_INT:,}; drawn without it")
    meta = {
        "world": world, "preset": result.get("preset"), "seed": result.get("seed"),
        "benchmark_id": result.get("benchmark_id"), "status": result.get("terminal_reason") or "running",
        "metric": metric, "metric_label": words(metric) if metric else "", "metric_money": is_money(metric),
        "start": _start_of(world, len(folders), path), "end_t": end_t, "path": str(path), "finished": record is not None,
    }
    if isinstance(result.get("terminal_reason"), str):
        meta["ending"] = ending_words(result["terminal_reason"], _text(result.get("terminal_detail")))
    return {"kind": "arena", "meta": meta, "seats": seats, "links": links, "problems": problems}
