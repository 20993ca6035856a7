"""startup-v2: startup-v1's world with a labour market (hiring and firing) composed onto it.

v1's code runs unchanged: the roster is v1's ``employees`` list, so payroll follows it, and v1's work model
reads each employee's rates, which the onboarding ramp scales at named instants.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from bizsim.simcore import Status

from ..state import Employee, q4
from ..world import PRIO_COMPLETION, PRIO_PAYROLL_STOP, StartupWorld
from .commands import V2_COMMANDS
from .config import StartupV2Config
from .hiring import Candidate, draw_candidate, new_employee, onboarding_schedule, severance_cents
from .presets import PRESETS

__all__ = ["PRIO_ROSTER", "PendingHire", "StartupV2World"]

#: Roster changes (a hire's first day, an onboarding step) come after the payroll of the same instant, which pays
#: the roster as it stood, and before completions, which then count the new rates.
PRIO_ROSTER = (PRIO_PAYROLL_STOP + PRIO_COMPLETION) // 2


class PendingHire:
    """A hire between ``employee hire`` and the first working day."""

    __slots__ = ("employee", "candidate", "start_us")

    def __init__(self, employee: Employee, candidate: str, start_us: int) -> None:
        self.employee = employee
        self.candidate = candidate
        self.start_us = start_us


class StartupV2World(StartupWorld):
    """startup-v1 plus a labour market: candidates, ``employee hire`` and ``employee fire``.

    Args:
        config: a startup-v2 preset name (``"default"``, ``"easy"`` ...) or a :class:`StartupV2Config`.
        seed: names the market and the candidates.
        scratchpad: notes carried over from an earlier episode.
    """

    name = "startup-v2"
    version = 2
    commands = V2_COMMANDS

    def __init__(self, config: StartupV2Config | str = "default", seed: int = 1, *, scratchpad: str = "") -> None:
        cfg = PRESETS.resolve(config)
        super().__init__(cfg, seed, scratchpad=scratchpad)
        self.preset = config if isinstance(config, str) else "custom"
        h = cfg.hiring
        self.candidates: list[Candidate] = [draw_candidate(self, n) for n in range(1, h.candidates + 1)]
        self._next_candidate = h.candidates + 1
        self._next_number = len(self.employees) + 1
        self.pending: list[PendingHire] = []
        #: Productivity of staff still onboarding (name -> fraction of full rates); absent when full.
        self.productivity: dict[str, Decimal] = {}
        #: Everyone who left, in order: (name, instant, why).
        self.departed: list[tuple[str, int, str]] = []
        self._ramp = onboarding_schedule(h.onboarding_start, h.onboarding_steps) if h.onboarding_days else []

    # the market ------------------------------------------------------------------------------
    def show_candidate(self, cand: Candidate) -> dict[str, Any]:
        """A candidate as ``employee candidates`` shows them."""
        return {"candidate_id": cand.name, "tier": cand.tier, "salary_ask_cents": cand.ask_cents,
                "skill_rates": {d: round(float(r), 2) for d, r in sorted(cand.rates.items())}}

    def describe_onboarding(self) -> dict[str, Any]:
        """The onboarding ramp as the agent is told it."""
        h = self.config.hiring
        if not h.onboarding_days:
            return {"business_days": 0, "first_day_productivity": 1.0, "steps": 0}
        return {"business_days": h.onboarding_days, "first_day_productivity": h.onboarding_start,
                "steps": h.onboarding_steps}

    def hire(self, cand: Candidate) -> PendingHire:
        """Take ``cand`` off the market (a fresh candidate replaces them) and schedule their first day."""
        cfg = self.config
        self.candidates.remove(cand)
        self.candidates.append(draw_candidate(self, self._next_candidate))
        self._next_candidate += 1
        emp = new_employee(self, cand, self._next_number, bool(self._ramp))
        self._next_number += 1
        day = cfg.workday_end_hour - cfg.workday_start_hour
        start = self.calendar.add_business_hours(self._now_us, Decimal(cfg.hiring.notice_days * day))
        pending = PendingHire(emp, cand.name, start)
        self.pending.append(pending)
        self.env.process(self._onboard(pending))
        return pending

    def _onboard(self, pending: PendingHire):
        yield self.env.fire_at(pending.start_us, PRIO_ROSTER)
        if self.done:
            return
        self._catch_up(pending.start_us)
        emp = pending.employee
        self.pending.remove(pending)
        self.employees.append(emp)
        self._emp_by_key[emp.name] = self._emp_by_key[emp.uid] = emp
        if self._ramp:
            self.productivity[emp.name] = Decimal(str(self.config.hiring.onboarding_start))
        self._note({"type": "employee_started", "employee": emp.name, "tier": emp.tier,
                    "salary_cents": emp.salary_cents,
                    "productivity": float(self.productivity.get(emp.name, 1))})
        self._schedule_stop()
        cfg = self.config
        step_hours = Decimal(cfg.hiring.onboarding_days * (cfg.workday_end_hour - cfg.workday_start_hour)) / len(
            self._ramp) if self._ramp else Decimal(0)
        for k, (factor, level) in enumerate(self._ramp, start=1):
            at = self.calendar.add_business_hours(pending.start_us, step_hours * k)
            yield self.env.fire_at(at, PRIO_ROSTER)
            if self.done or emp not in self.employees:
                return
            self._catch_up(at)
            cap = Decimal(str(cfg.skill_rate_max))
            for d, r in emp.rates.items():
                emp.rates[d] = q4(min(r * factor, cap))
            if level >= 1:
                del self.productivity[emp.name]
            else:
                self.productivity[emp.name] = level
            self.resolve_etas([t for t in self.active if emp in t.assignees])
            self.record_event("employee_ramp", {"employee": emp.name, "productivity": float(level)})

    def severance_for(self, emp: Employee) -> int:
        """What firing ``emp`` now would cost."""
        return severance_cents(emp.salary_cents, self.config.hiring.severance_months)

    def fire(self, emp: Employee, cost: int) -> list[str]:
        """Take ``emp`` off every task and the roster, and pay ``cost`` in severance; the tasks they left."""
        self.ledger.post(self._now_us, "severance", -cost, emp.uid)
        return self.remove_employee(emp, "fired")

    def remove_employee(self, emp: Employee, why: str) -> list[str]:
        """Take ``emp`` off every task (re-solving the active ones' completion) and off the roster."""
        left = []
        for task in self.tasks:
            if emp in task.assignees and task.status in ("planned", "active"):
                i = task.assignees.index(emp)
                del task.assignees[i]
                del task.assigned_at[i]
                left.append(task.title)
        impacted = [t for t in self.active if t.title in left]
        emp.active_tasks = 0
        self.employees.remove(emp)
        self.productivity.pop(emp.name, None)
        self.departed.append((emp.name, self._now_us, why))
        self.resolve_etas(impacted)
        return left

    # reports -----------------------------------------------------------------------------------
    def state(self) -> dict:
        """Complete state as JSON-able data: v1's, the labour market's and who left."""
        out = super().state()
        out["candidates"] = [self.show_candidate(c) for c in self.candidates]
        out["pending_hires"] = [(p.employee.name, p.candidate, p.start_us) for p in self.pending]
        out["productivity"] = {k: str(v) for k, v in self.productivity.items()}
        out["departed"] = list(self.departed)
        return out

    def invariants(self) -> list[str]:
        """v1's rules, plus the labour market's: nobody who left works, payroll pays the roster."""
        bad = super().invariants()
        gone = {name for name, _, _ in self.departed}
        for t in self.active:
            ghosts = gone.intersection(e.name for e in t.assignees)
            if ghosts:
                bad.append(f"{t.title} is worked on by {sorted(ghosts)}, who left")
        if len(self.employees) + len(self.pending) > self.config.hiring.max_employees:
            bad.append("the roster is above max_employees")
        if self.status is Status.RUNNING and not self.employees:
            bad.append("the roster is empty")
        return bad
