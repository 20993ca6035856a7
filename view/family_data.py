"""A fork family as the viewer's data: a parent run and the runs forked from it (and from them), in one folder.

A family folder holds run directories side by side (``bizsim fork parent --out family/fork-1 ...``, the parent at
``family/parent``). Each fork's ``result.json`` names its parent and pins the parent's commands up to the fork
point by digest; the parent is the member whose command log has that digest, so a family still reads after it
was moved or renamed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bizsim.runs.rundir import RunDir, SweepDir

from bizsim.runs.rundir import read_record_noted
from bizsim.view._records import clip, read_records
from bizsim.view.run_data import is_run_dir, run_data

__all__ = ["MAX_FAMILY_MEMBERS", "family_data", "is_family_dir"]

#: The most run directories a family page shows (each is drawn as a curve).
MAX_FAMILY_MEMBERS = 40
#: The most members a folder may hold to be looked at as a family at all (each member's result.json is read).
_MAX_SCAN = 400


def _members(path: Path) -> list[Path]:
    if not path.is_dir() or is_run_dir(path) or SweepDir(path).results.exists():
        return []
    out = []
    for i, p in enumerate(sorted(path.iterdir())):
        if i >= _MAX_SCAN:
            return []
        if is_run_dir(p):
            out.append(p)
    return out


#: The longest fork-record text the page shows (a mode, an agent name).
_SHORT = 200


def _fork_of(run: Path) -> dict | None:
    record = read_record_noted(run, [])
    return record.fork if record is not None and isinstance(record.fork, dict) else None


def is_family_dir(path: Path) -> bool:
    """Whether ``path`` is a folder of run directories of which at least one is a fork of another."""
    members = _members(path)
    return len(members) >= 2 and any(_fork_of(m) is not None for m in members)


def _prefix_digest(run: Path, k: int) -> str | None:
    """The digest a fork pins of its parent's first ``k`` commands, computed on ``run``'s command log."""
    from bizsim.runs.fork import prefix_digest

    rows = read_records(RunDir(run).commands, [])[:k]
    log = [(r["t_us"], r["line"]) for r in rows if type(r.get("t_us")) is int and isinstance(r.get("line"), str)]
    return prefix_digest(log) if len(log) == k else None  # short, or a damaged line: not the pinned prefix


def _whole(value: Any) -> int | None:
    return value if type(value) is int else None


def _fork_entry(fork: dict) -> dict:
    """What the page shows of a fork record, each value checked: the record comes from a file."""
    return {"turn": _whole(fork.get("turn")), "t": _whole(fork.get("t_us")),
            "mode": clip(str(fork.get("mode") or ""), _SHORT), "parent_agent": clip(str(fork.get("parent_agent") or ""),
                                                                                   _SHORT),
            "at": clip(fork.get("at"), _SHORT)}


def _parent_of(name: str, fork: dict, runs: dict[str, Path], forks: dict[str, dict], problems: list[str]) -> str | None:
    """The member ``fork`` continues: the one named by its record, else one whose first commands have the pinned
    digest and are its own (a member forked later than that holds them too, inherited: it is a sibling or a
    descendant, never the parent)."""
    named = Path(str(fork.get("parent") or "")).name
    k, pinned = fork.get("commands"), fork.get("prefix_sha256")
    if not isinstance(k, int) or not isinstance(pinned, str):
        problems.append(f"{name}'s fork record has no command count or digest; its parent is not drawn")
        return None
    for member in sorted((m for m in runs if m != name), key=lambda m: m != named):
        own = member == named or not isinstance(forks.get(member, {}).get("commands"), int) \
            or forks[member]["commands"] < k
        if own and _prefix_digest(runs[member], k) == pinned:
            return member
    problems.append(f"{name} is a fork of {clip(repr(fork.get('parent')), _SHORT)}, which is not in this folder (no member has its "
                    f"first {k} commands)")
    return None


def family_data(path: Path) -> dict:
    """The viewer's data for a fork family: each member's curve, fork point, ending and metric."""
    problems: list[str] = []
    found = _members(path)
    if len(found) > MAX_FAMILY_MEMBERS:
        problems.append(f"the folder holds {len(found)} runs; the first {MAX_FAMILY_MEMBERS} by name are shown")
        found = found[:MAX_FAMILY_MEMBERS]
    runs = {p.name: p for p in found}
    members: list[dict[str, Any]] = []
    forks = {name: f for name, run in runs.items() if (f := _fork_of(run)) is not None}
    for name, run in runs.items():
        try:
            data = run_data(run, requests=False)
        except Exception as exc:  # noqa: BLE001 -- one damaged member must not take the family's page down
            problems.append(f"{name}: not shown ({type(exc).__name__}: {clip(str(exc), _SHORT)})")
            continue
        problems.extend(f"{name}: {p}" for p in data["problems"])
        fork = forks.get(name)
        parent = _parent_of(name, fork, runs, forks, problems) if fork is not None else None
        meta = data["meta"]
        members.append({
            "id": name, "parent": parent, "meta": meta, "timeline": data["timeline"], "turns": len(data["turns"]),
            "fork": None if fork is None else _fork_entry(fork),
        })
    shown = {m["id"] for m in members}
    for m in members:
        if m["parent"] is not None and m["parent"] not in shown:  # its parent's files could not be shown
            m["parent"] = None
    roots = [m["id"] for m in members if m["parent"] is None]
    _order(members, roots)
    first = members[0]["meta"] if members else {}
    kinds = {(str(m["meta"].get("world")), str(m["meta"].get("seed"))) for m in members}
    if len(kinds) > 1:
        problems.append("the runs are not all of one world and seed; their curves are drawn on one chart anyway")
    return {
        "kind": "family", "meta": {"path": str(path), "world": first.get("world"), "seed": first.get("seed"),
                                   "start": first.get("start"), "metric_label": first.get("metric_label"),
                                   "metric_money": first.get("metric_money"),
                                   "timeline_label": first.get("timeline_label"),
                                   "timeline_money": first.get("timeline_money")},
        "members": members, "problems": problems,
        "pages": _pages(members, problems),
    }


def _pages(members: list[dict], problems: list[str]) -> dict[str, list[str]]:
    """Each member's page, and each fork's beside its parent (``ID.vs-parent``, unless a member has that name)."""
    pages = {m["id"]: [m["id"]] for m in members}
    for m in members:
        pair = f"{m['id']}.vs-parent"
        if m["parent"] and pair in pages:
            problems.append(f"{m['id']} is not shown beside its parent: a run in the folder is named {pair}")
        elif m["parent"]:
            pages[pair] = [m["parent"], m["id"]]
    return pages


def _order(members: list[dict], roots: list[str]) -> None:
    """Parents before their forks (depth first), forks by fork point: the order of the table and the legend."""
    by_parent: dict[str | None, list[dict]] = {}
    for m in members:
        by_parent.setdefault(m["parent"], []).append(m)
    out: list[dict] = []

    def visit(parent: str | None, depth: int) -> None:
        for m in sorted(by_parent.get(parent, []), key=lambda m: ((m["fork"] or {}).get("t") or 0, m["id"])):
            m["depth"] = depth
            out.append(m)
            visit(m["id"], depth + 1)

    visit(None, 0)
    seen = {m["id"] for m in out}
    out.extend(m | {"depth": 0} for m in members if m["id"] not in seen)  # a cycle of broken records
    members[:] = out
