"""Startup: identical command scripts into YC-Bench's command line (in process) and bizsim's ``reference`` preset.

Each seed gets its own SQLite file for the reference. Scripts mix valid and invalid commands and keep two to four
tasks in flight, so that tasks often complete at the same instant. The reference breaks such ties by event ids
that hang on a random company id; with ``tie_order="bizsim"`` (the default) its event fetch is steered to take
tied completions in the order bizsim took them, so everything else can be compared. Python 3.12's ``sum`` (the
reference's interpreter) is given to the reference's modules on older interpreters.
"""

from __future__ import annotations

import json
import marshal
import os
import re
import shlex
import sys
import tempfile
from typing import Any

import numpy as np
from bizsim.models.startup import StartupWorld
from bizsim.simcore import CommandError
from bizsim.simcore.summation import compensated_sum

from ._common import Tally

#: Fields that hold ids the reference draws from an unseeded generator (or ids of ledger rows): never compared.
IDS = frozenset({"company_id", "simulation_id", "client_id", "id", "ref_id"})
DOMAINS = ("research", "inference", "data_environment", "training")
CATEGORIES = ("monthly_payroll", "task_reward", "task_fail_penalty", "task_cancel_penalty", "payment_dispute")


def _sum312(values: Any, start: Any = 0) -> Any:
    """``sum`` as Python 3.12 adds floats (the reference's interpreter), for the reference's modules."""
    values = list(values)
    if start == 0 and values and all(type(v) is float for v in values):
        return compensated_sum(values)
    return _builtin_sum(values, start)


_builtin_sum = sum


def _reference(path: str):
    src = os.path.join(path, "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    import yc_bench
    from typer.testing import CliRunner
    from yc_bench.cli import app
    from yc_bench.core import engine, events
    from yc_bench.db.models.event import EventType, SimEvent
    from yc_bench.db.models.task import Task

    if sys.version_info < (3, 12):
        for name, module in list(sys.modules.items()):
            if name.startswith("yc_bench") and module is not None:
                module.__dict__["sum"] = _sum312
    return {"runner": CliRunner(), "app": app, "engine": engine, "events": events, "EventType": EventType,
            "SimEvent": SimEvent, "Task": Task, "cli": yc_bench.cli}


def _steer(ref: dict, order: list[str], tally: Tally) -> None:
    """Make the reference's engine take tied task completions in ``order`` (titles, consumed as taken)."""
    real = ref["events"].fetch_next_event
    SimEvent, Task, done = ref["SimEvent"], ref["Task"], ref["EventType"].TASK_COMPLETED

    def fetch(db: Any, company_id: Any, up_to: Any) -> Any:
        ev = real(db, company_id, up_to)
        if ev is None or ev.event_type != done:
            return ev
        tied = db.query(SimEvent).filter(SimEvent.company_id == company_id, SimEvent.consumed == False,
                                         SimEvent.scheduled_at == ev.scheduled_at, SimEvent.event_type == done).all()
        if len(tied) < 2:
            return ev
        tally.compared["tied completions (reference steered to bizsim's order)"] += 1

        def rank(e: Any) -> int:
            task = db.query(Task).filter(Task.id == _uuid(e.payload["task_id"])).one_or_none()
            title = task.title if task is not None else None
            return order.index(title) if title in order else len(order)

        best = min(tied, key=rank)
        title = db.query(Task).filter(Task.id == _uuid(best.payload["task_id"])).one().title
        if title in order:
            order.remove(title)
        return best

    ref["engine"].fetch_next_event = fetch


def _uuid(text: str) -> Any:
    from uuid import UUID

    return UUID(str(text))


def _invoke(ref: dict, line: str) -> tuple[int, Any]:
    """Run a ``yc-bench ...`` line in the reference; ``(exit code, parsed stdout or None)``."""
    try:
        argv = shlex.split(line)[1:]
    except ValueError:
        return 2, None
    res = ref["runner"].invoke(ref["app"], argv)
    try:
        return res.exit_code, json.loads(res.stdout) if res.stdout.strip() else None
    except ValueError:
        return res.exit_code, None


#: Lists of employee names the reference reads from its database in no fixed order (its rows hang on random ids).
UNORDERED = ("total_assigned", "assigned_employees", "newly_assigned", "active_tasks")


def _unordered(result: Any) -> Any:
    """A result with the reference's unordered name lists sorted and its events' task uuids dropped."""
    if isinstance(result, list):
        return [_unordered(v) for v in result]
    if isinstance(result, dict):
        out = {k: sorted(v) if k in UNORDERED and isinstance(v, list) else _unordered(v) for k, v in result.items()}
        if isinstance(out.get("assignments"), list):
            out["assignments"] = sorted(out["assignments"], key=lambda a: json.dumps(a, sort_keys=True))
        if isinstance(out.get("wake_events"), list):  # tasks are named by title there too; uuids are ids
            out["wake_events"] = [{k: v for k, v in e.items() if k != "task_id"} if isinstance(e, dict) else e
                                  for e in out["wake_events"]]
        return out
    return result


def _ours(world: StartupWorld, line: str) -> tuple[int, Any]:
    """The same line in bizsim, with the exit code YC-Bench's harness would give its result."""
    try:
        world.commands.parse(line)
    except CommandError:
        return 2, world.execute(line)
    out = world.execute(line, driven=True)
    if not isinstance(out, dict):  # sim resume: run to the report
        world.env.run(until=out)
        out = out.value
    return (1 if "error" in out else 0), out


class _Script:
    """A seed's command script, drawn as it goes from what bizsim's outputs show (identical lines to both)."""

    def __init__(self, rng: np.random.Generator, world: StartupWorld) -> None:
        self.rng, self.world = rng, world
        self.in_flight = int(rng.integers(2, 4))
        self.queue: list[str] = []
        self.names = [e.name for e in world.employees]

    def next(self) -> str:
        if self.queue:
            return self.queue.pop(0)
        rng, w = self.rng, self.world
        active = len(w.active) + sum(1 for t in w.tasks if t.status == "planned")
        r = rng.integers(100)
        if active < self.in_flight and r < 45:
            browse = w.execute("market browse --limit 5")
            tasks = browse.get("tasks", []) if isinstance(browse, dict) else []
            if tasks:
                tid = tasks[rng.integers(min(2, len(tasks)))]["task_id"]
                team = list(rng.choice(self.names, size=int(rng.integers(5, 9)), replace=False))
                self.queue = [f"yc-bench task assign --task-id {tid} --employees {','.join(team)}",
                              f"yc-bench task dispatch --task-id {tid}"]
                return f"yc-bench task accept --task-id {tid}"
        if r < 62:
            return "yc-bench sim resume"
        if r < 86:
            return self._query()
        return self._invalid()

    def _some_task(self) -> str:
        w, rng = self.world, self.rng
        owned = [t.title for t in w.tasks if t.accepted_at is not None]
        if owned and rng.integers(3):
            return owned[rng.integers(len(owned))]
        return w.market[rng.integers(len(w.market))].title if rng.integers(4) else "Task-99999"

    def _query(self) -> str:
        rng = self.rng
        choices = [
            "yc-bench company status", "yc-bench employee list", "yc-bench client list", "yc-bench client history",
            f"yc-bench market browse --limit {rng.integers(1, 8)} --offset {rng.integers(0, 4)}",
            f"yc-bench market browse --domain {DOMAINS[rng.integers(4)]}",
            f"yc-bench market browse --reward-min-cents {rng.integers(0, 5_000_000)}",
            "yc-bench task list", "yc-bench task list --status active", "yc-bench task list --status completed_success",
            f"yc-bench task inspect --task-id {self._some_task()}",
            "yc-bench finance ledger", f"yc-bench finance ledger --category {CATEGORIES[rng.integers(5)]}",
            f"yc-bench finance ledger --from 0{rng.integers(1, 10)}/01/2025 --to 12/31/2025",
            "yc-bench report monthly", "yc-bench report monthly --from-month 2025-03 --to-month 2025-09",
            "yc-bench scratchpad read", f"yc-bench scratchpad write --content 'note {rng.integers(100)}'",
            f"yc-bench scratchpad append --content 'more {rng.integers(100)}'", "yc-bench scratchpad clear",
        ]
        return choices[rng.integers(len(choices))]

    def _invalid(self) -> str:
        rng, names = self.rng, self.names
        tid = self._some_task()
        choices = [
            "yc-bench market browse --limit 0", "yc-bench market browse --limit -2",
            "yc-bench market browse --offset -1", "yc-bench market browse --limit 3 --limit 1",
            "yc-bench market browse --domain nope", "yc-bench market browse --limit x",
            "yc-bench finance ledger --from 2025-01-01", "yc-bench finance ledger --to 13/40/2025",
            "yc-bench report monthly --from-month 2025/01", "yc-bench report monthly --from-month ''",
            "yc-bench finance ledger --category nope", "yc-bench task list --status nope",
            "yc-bench sim init --seed 1 --start-date 01/01/2025 --company-name X", "yc-bench sim init",
            "yc-bench help", "yc-bench nothing here", "yc-bench task accept", "yc-bench task accept --task-id",
            f"yc-bench task accept --task-id {tid}", f"yc-bench task dispatch --task-id {tid}",
            f"yc-bench task assign --task-id {tid} --employees {names[0]},{names[0]}",
            f"yc-bench task assign --task-id {tid} --employees Nobody",
            f"yc-bench task assign-all --task-id {tid}",
            f"yc-bench task inspect --task-id {tid} --task-id Task-99999",
            "yc-bench company status --verbose", "yc-bench scratchpad write",
            "yc-bench market browse --limit 99999999999999999999999",
            "yc-bench market browse --reward-min-cents 99999999999999999999999",
            "yc-bench market browse --offset 99999999999999999999999",
        ]
        return choices[rng.integers(len(choices))]


#: An integer option past 64 bits (20 digits or more): a listed deliberate difference, counted and not compared.
_PAST_64_BITS = re.compile(r"--[a-z-]+ -?\d{20,}")


def run(path: str, seeds: int, seed: int, commands: int = 400, tie_order: str = "bizsim") -> dict:
    """``seeds`` seeds from ``seed``, ``commands`` commands each; returns the tally as data."""
    ref = _reference(path)
    tally = Tally()
    real_fetch = ref["events"].fetch_next_event
    tmp = tempfile.mkdtemp(prefix="yc-bench-diff-")
    for s in range(seed, seed + seeds):
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/seed{s}.db"
        ref["cli"]._engine_cache.clear()
        world = StartupWorld("reference", s)
        code, _ = _invoke(ref, f"yc-bench sim init --seed {s} --start-date 01/01/2025 --company-name "
                               f"{world.company_name} --horizon-years {world.config.horizon_years}")
        assert code == 0, f"sim init failed for seed {s}"
        rng = np.random.default_rng([seed, s])
        script = _Script(rng, world)
        tally.runs += 1
        order: list[str] = []
        for n in range(commands):
            if world.done:
                break
            line = script.next()
            if _PAST_64_BITS.search(line):
                # Listed on the startup page: bizsim refuses integers past 64 bits as usage errors (exit 2); the
                # reference reads them (--limit: exit 0; --reward-min-cents: its database fails, exit 1).
                tally.skip("an integer option past 64 bits (exit 2 in bizsim)")
                continue
            tally.compared["commands"] += 1
            mark = len(world.trajectory)
            ours_code, ours = _ours(world, line)
            if line.startswith("yc-bench sim resume"):
                order[:] = [marshal.loads(blob)["task_title"] for _, kind, name, blob in world.trajectory._rows[mark:]
                            if kind == "event" and name == "task_completed"]
                if tie_order == "bizsim":
                    _steer(ref, order, tally)
            theirs_code, theirs = _invoke(ref, line)
            ref["engine"].fetch_next_event = real_fetch
            where = f"seed {s} command {n}: {line}"
            if line.startswith("yc-bench sim init") and theirs_code == 1 and isinstance(theirs, dict):
                tally.check("sim init refusal text", theirs.get("error"), ours.get("error"), where)
            diffs = tally.check("exit code", theirs_code, ours_code, where)
            if theirs_code == 0 and theirs is not None:
                diffs += tally.check("result", _unordered(theirs), _unordered(ours), where, skip=IDS)
            elif theirs_code == 1 and theirs is not None:
                tally.check("refusal", theirs, ours, where, skip=IDS)
            if diffs and (line.startswith("yc-bench sim resume") or theirs_code != ours_code):
                tally.diverge(where)
                break
        tally.compared["tasks completed"] += sum(t.status.startswith("completed") for t in world.tasks)
        tally.compared[f"seeds ended {world.status.value}"] += 1
    return tally.report()
