"""startup-v2: startup-v1's world with a labour market (hiring and firing) composed onto it.

v1's code runs unchanged: the roster is v1's ``employees`` list, so payroll follows it, and v1's work model
reads each employee's rates, which the onboarding ramp scales at named instants.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from decimal import Decimal
from typing import Any

from bizsim.simcore import Status
from bizsim.simcore.errors import CommandError

from ..state import Employee, Task, q4
from ..world import PRIO_COMPLETION, PRIO_PAYROLL_STOP, StartupWorld
from .disruptions import cut_cents, late_payment, pick, schedule
from .commands import V2_COMMANDS
from .config import StartupV2Config
from .hiring import Candidate, draw_candidate, new_employee, onboarding_schedule, severance_cents
from .presets import PRESETS

__all__ = ["PRIO_DISRUPTION", "PRIO_ROSTER", "PendingHire", "StartupV2World"]

#: Roster changes (a hire's first day, an onboarding step) come after the payroll of the same instant, which pays
#: the roster as it stood, and before completions, which then count the new rates.
PRIO_ROSTER = (PRIO_PAYROLL_STOP + PRIO_COMPLETION) // 2
#: Disruptions and late payments: after the roster changes of their instant, before completions.
PRIO_DISRUPTION = PRIO_ROSTER + 1


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
        #: Clients gone under (names): their tasks are off the market.
        self.defunct: set[str] = set()
        #: Rewards paid before this instant are cut by the downturn.
        self.downturn_until_us = 0
        self._start = self.calendar.to_datetime(0)
        days = (self.calendar.to_datetime(self.horizon_us) - self._start).days
        #: Every disruption the seed holds for this episode: (calendar day, kind); drawn before any play.
        self.disruption_schedule = schedule(self.seed, cfg.disruptions, days)
        for n, (day, kind) in enumerate(self.disruption_schedule):
            self.env.process(self._disrupt(n, day, kind))

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

    # disruptions -------------------------------------------------------------------------------
    def _day_us(self, day: int) -> int:
        return self.calendar.to_us(self._start + timedelta(days=day))

    def _wake(self, event: dict[str, Any]) -> None:
        self._note(event)
        self._schedule_stop()

    def _target(self, kind: str, n: int) -> str | None:
        """The client a collapse strikes (by name), or ``None`` when one is left: the market never empties."""
        alive = sorted(c.name for c in self.clients if c.name not in self.defunct)
        return alive[pick(self.seed, kind, n, len(alive))] if len(alive) > 1 else None

    def _disrupt(self, n: int, day: int, kind: str):
        d = self.config.disruptions
        at = self._day_us(day)
        target = None
        if d.warning_days and kind != "resignation" and self._day_us(day - d.warning_days) > 0:
            warn = self._day_us(day - d.warning_days)
            yield self.env.fire_at(warn, PRIO_DISRUPTION)
            if self.done:
                return
            self._catch_up(warn)
            target = self._target(kind, n) if kind == "client_collapse" else None
            self._wake({"type": "disruption_warning", "kind": kind, "starts_at": self.calendar.iso(at),
                        **({"client_name": target} if target else {})})
        yield self.env.fire_at(at, PRIO_DISRUPTION)
        if self.done:
            return
        self._catch_up(at)
        if kind == "downturn":
            self.downturn_until_us = max(self.downturn_until_us, self._day_us(day + d.downturn_days))
            self._wake({"type": "market_downturn", "until": self.calendar.iso(self.downturn_until_us),
                        "reward_cut": d.downturn_reward_cut})
        elif kind == "client_collapse":
            if target is None or target in self.defunct:
                target = self._target(kind, n)
            if target is not None:
                self._wake({"type": "client_collapsed", "client_name": target, "tasks_cancelled": self.collapse(target)})
        elif len(self.employees) > 1:
            staff = sorted(self.employees, key=lambda e: e.name)
            emp = staff[pick(self.seed, kind, n, len(staff))]
            self._wake({"type": "employee_resigned", "employee": emp.name,
                        "left_tasks": self.remove_employee(emp, "resigned")})

    def collapse(self, client: str) -> list[str]:
        """``client`` goes under: its planned and active tasks are cancelled, unpaid; its market tasks withdrawn."""
        self.defunct.add(client)
        gone = [t for t in self.tasks if t.client.name == client and t.status in ("planned", "active")]
        for t in gone:
            was_active = t.status == "active"
            self.set_task_status(t, "cancelled")
            t.cancel_reason = "the client went under"
            if was_active:
                self.deactivate(t)
                team = set(t.assignees)
                self.resolve_etas([o for o in self.active if team.intersection(o.assignees)])
        return [t.title for t in gone]

    def market_up_to(self, level: int) -> Iterable[Task]:
        """v1's market, without the tasks of clients that went under."""
        tasks = super().market_up_to(level)
        return (t for t in tasks if t.client.name not in self.defunct) if self.defunct else tasks

    def accept(self, task: Task, *, bot: bool = False) -> Task:
        """v1's accept; a task of a client that went under is refused first, changing nothing."""
        if task.client.name in self.defunct:
            raise CommandError(f"{task.client.name} has gone under; its tasks are off the market.",
                               "Browse the market again.")
        return super().accept(task, bot=bot)

    def _after_completion(self, task: Task, event: dict[str, Any]) -> None:
        """A paid task is settled (a downturn's cut, a late payment's delay); bankruptcy is judged after it."""
        if event["success"]:
            self._settle(task, event)
        event["bankrupt"] = self.funds_cents < 0

    def _settle(self, task: Task, event: dict[str, Any]) -> None:
        """A downturn's cut of the reward, and a late payment's delay of the rest (both booked)."""
        d, now = self.config.disruptions, self._now_us
        due = task.reward_cents
        if now < self.downturn_until_us:
            cut = cut_cents(due, d.downturn_reward_cut)
            self.ledger.post(now, "downturn_cut", -cut, task.uid)
            event["downturn_cut_cents"] = cut
            event["funds_delta"] -= cut
            due -= cut
        if late_payment(self.seed, d, task.uid):
            self.ledger.post(now, "payment_delayed", -due, task.uid)
            at = self._day_us((self.calendar.to_datetime(now).date() - self._start.date()).days + d.late_payment_days)
            event["payment_due"] = self.calendar.iso(at)
            event["funds_delta"] -= due
            self.env.process(self._pay_late(task, due, at))

    def _pay_late(self, task: Task, amount: int, at: int):
        yield self.env.fire_at(at, PRIO_DISRUPTION)
        if self.done:
            return
        self._catch_up(at)
        self.ledger.post(at, "late_payment", amount, task.uid)
        self._wake({"type": "late_payment", "task_title": task.title, "amount_cents": amount})

    def system_prompt(self) -> str:
        """v1's YC-Bench system prompt and what this preset's mechanics add to it."""
        return super().system_prompt() + self.prompt_extra()

    def prompt_extra(self) -> str:
        """What the LLM protocol's system prompt adds for this preset's mechanics."""
        cfg = self.config
        out = []
        if cfg.hiring.enabled:
            h = cfg.hiring
            out.append(
                "\nThe labour market (startup-v2):\n"
                "- `yc-bench employee candidates`: people you may hire, their salary ask and skill rates\n"
                "- `yc-bench employee hire --candidate <ID>`: they start after "
                f"{h.notice_days} business days at {h.onboarding_start:.0%} productivity, full after "
                f"{h.onboarding_days} business days; payroll pays whoever is on the roster\n"
                "- `yc-bench employee fire --employee <NAME>`: they leave every task at once; severance is "
                f"{h.severance_months:g} months of salary, paid now\n")
        if cfg.disruptions.enabled:
            out.append("\nThe world is not calm: market downturns cut rewards for a while, clients can go under "
                       "(their tasks are cancelled unpaid), employees can resign, and some clients pay late.\n")
        if cfg.signals.words:
            out.append("\nWork, skill and deadlines are shown in words: work in business days of one strong engineer "
                       "(5.5 units an hour), skill as slow, steady, strong or exceptional, a deadline as the business "
                       "days left before it (within a day, in a few days, in about one week ...) or already passed.\n")
        return "".join(out)

    # reports -----------------------------------------------------------------------------------
    def state(self) -> dict:
        """Complete state as JSON-able data: v1's, the labour market's and who left."""
        out = super().state()
        out["candidates"] = [self.show_candidate(c) for c in self.candidates]
        out["pending_hires"] = [(p.employee.name, p.candidate, p.start_us) for p in self.pending]
        out["productivity"] = {k: str(v) for k, v in self.productivity.items()}
        out["departed"] = list(self.departed)
        out["defunct"] = sorted(self.defunct)
        out["downturn_until_us"] = self.downturn_until_us
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
