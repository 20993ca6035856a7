"""The startup world: a SimPy model of a year running an AI startup (YC-Bench)."""

from __future__ import annotations

import heapq
from bisect import insort
from operator import attrgetter
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal

from bizsim.simcore import Calendar, Ledger, Status, World
from bizsim.simcore.env import SimEnvironment
from bizsim.simcore.errors import CommandError

from .commands import COMMANDS, LEDGER_CATEGORIES, REFERENCE_COMMANDS
from .config import StartupConfig
from .generate import make_uid, generate_clients, generate_employees, generate_market, generate_replacement
from .presets import resolve_config
from .replacements import ReplacementCounters
from . import reports
from .outcomes import cancel_task, complete_task
from .state import DOMAINS, Client, Employee, Task, q3, q4
from .work import completion_time, effective_rates, milestone_time

__all__ = ["StartupWorld"]

# Same-instant order: payroll, the stop it causes, completions, milestones,
# the horizon, then the stop that reports what happened at that instant.
PRIO_PAYROLL = 10
PRIO_PAYROLL_STOP = 11
PRIO_COMPLETION = 20
PRIO_MILESTONE = 40
PRIO_HORIZON = 50
PRIO_STOP = 90

_ZERO = Decimal(0)


class StartupWorld(World):
    """Run an AI startup for a simulated year (YC-Bench's world and rules).

    Args:
        config: a preset name (``"default"``, ``"reference"``, ...) or a
            :class:`StartupConfig`.
        seed: names the market; employees and clients are the same for
            every seed, as in the reference.
        scratchpad: notes carried over from an earlier episode.
        env: the SimPy environment to live in, shared with rival companies (``startup-arena``'s seats).
    """

    name = "startup"
    version = 1
    commands = COMMANDS
    advance_command = "sim resume"
    has_scratchpad = True
    #: The ledger categories ``finance ledger --category`` takes (rival companies add their transfers).
    ledger_categories: tuple[str, ...] = LEDGER_CATEGORIES
    #: YC-Bench's names for amounts in cents (see :attr:`World.money_fields`).
    money_fields = {"balance_delta": "cents", "funds_delta": "cents", "listed_reward": "cents", "funds_after": "cents"}

    def __init__(self, config: StartupConfig | str = "default", seed: int = 1, *, scratchpad: str = "",
                 env: SimEnvironment | None = None) -> None:
        cfg = resolve_config(config)
        start = datetime.fromisoformat(cfg.start_date).replace(hour=cfg.workday_start_hour)
        super().__init__(cfg, seed, Calendar(start, cfg.workday_start_hour, cfg.workday_end_hour), env=env)
        self.preset = config if isinstance(config, str) else "custom"
        if cfg.reference_cli:
            self.commands = REFERENCE_COMMANDS  # the reference's parser, for this world only
        self.horizon_us = self.calendar.to_us(start.replace(year=start.year + cfg.horizon_years))
        self.company_name = cfg.company_name
        self.company_uid = make_uid(self.seed, "company", 0)
        self.employees: list[Employee] = generate_employees(cfg)
        self.clients: list[Client] = generate_clients(cfg)
        self.clients_by_name = sorted(self.clients, key=lambda c: c.name)
        self.tasks: list[Task] = generate_market(cfg, self.seed, self.clients)
        self.market: list[Task] = sorted(self.tasks, key=_market_key)
        # The market again, split by required prestige: browsing skips the levels the company has not reached.
        #: The market's tasks by required prestige, each list in browse order.
        self.market_levels: dict[int, list[Task]] = {}
        for t in self.market:
            self.market_levels.setdefault(t.required_prestige, []).append(t)
        self.active: list[Task] = []
        self.prestige = {d: Decimal(str(cfg.initial_prestige_level)) for d in DOMAINS}
        self.ledger = Ledger(cfg.initial_funds_cents)
        self.scratchpad = scratchpad
        if scratchpad:
            self.restore_options = {"scratchpad": scratchpad}
        self._by_uid = {t.uid: t for t in self.tasks}
        self._by_title: dict[str, list[Task]] = {}
        for t in self.tasks:
            self._by_title.setdefault(t.title, []).append(t)
        self._emp_by_key = {e.name: e for e in self.employees} | {e.uid: e for e in self.employees}
        self._replacements = ReplacementCounters(len(self.tasks) + 1)
        self._flushed_us = 0
        self._pending_events: list[dict] = []
        self._stop_scheduled_at: int | None = None
        self._request: dict | None = None
        self._eta: dict[str, tuple[int, int]] = {}
        self._counts = dict.fromkeys(("market", "planned", "active", "completed_success", "completed_fail", "cancelled"), 0)
        self._counts["market"] = len(self.tasks)
        # What changed since the last stop, to be rounded to the reference's column precision there.
        self.prestige_dirty: set[str] = set()
        self.salary_bumps = {t.name: int(t.midpoint_cents * cfg.salary_bump_pct) for t in cfg.tiers.values()}
        self.env.process(self._payroll_process())
        self.env.process(self._horizon_process())

    # ------------------------------------------------------------------
    # lookups
    def find_task(self, key: str, *, owned_first: bool = False) -> Task | None:
        """A task by uuid or title.

        Replacement titles can repeat an original's (``Task-1`` twice). The
        reference then prefers market, planned, active; with ``owned_first``
        (commands that act on the company's own tasks, outside the
        ``reference`` behaviour) planned and active come first.
        """
        task = self._by_uid.get(key)
        if task is not None:
            return task
        matches = self._by_title.get(key)
        if not matches:
            return None
        if len(matches) == 1:
            return matches[0]
        if owned_first and not self.config.reference_outputs:
            rank = {"planned": 0, "active": 1, "market": 2}
        else:
            rank = {"market": 0, "planned": 1, "active": 2}
        return min(matches, key=lambda t: rank.get(t.status, 9))

    def find_employee(self, key: str) -> Employee | None:
        """An employee by name or uuid."""
        return self._emp_by_key.get(key)

    @property
    def funds_cents(self) -> int:
        """Current funds."""
        return self.ledger.funds_cents

    @property
    def monthly_payroll_cents(self) -> int:
        """The sum of current salaries."""
        return sum(e.salary_cents for e in self.employees)

    def count(self, status: str) -> int:
        """How many tasks are in a status."""
        return self._counts[status]

    def set_task_status(self, task: Task, status: str) -> None:
        """Move ``task`` to ``status``, keeping the per-status counts in step."""
        self._counts[task.status] -= 1
        self._counts[status] += 1
        task.status = status

    # ------------------------------------------------------------------
    # work: progress and completion times
    def effective_rates(self, task: Task) -> dict[str, Decimal]:
        """Units per business hour per domain for an active task (best four split contributions)."""
        return effective_rates(task)

    def _catch_up(self, t_us: int) -> None:
        """Accrue work and decay trust and prestige up to ``t_us`` (an action time)."""
        if t_us > self._flushed_us:
            t0 = self._flushed_us
            if self.active:
                cal = self.calendar
                if self.config.progress_flush == "reference":
                    hours = cal.flush_hours_between(t0, t_us)
                else:
                    hours = cal.business_hours_between(t0, t_us)
                if hours > 0:
                    rates = {t.uid: effective_rates(t) for t in self.active}
                    for task in self.active:
                        r = rates[task.uid]
                        for d, req in task.required.items():
                            done = task.completed[d] + r[d] * hours
                            # Written back, then read again by whatever this instant runs next: rounded.
                            task.completed[d] = q4(min(done, Decimal(req)))
            days = ((t_us - t0) / 10**6) / 86400.0
            cfg = self.config
            if cfg.prestige_decay_per_day > 0 and days > 0:
                decay = Decimal(str(cfg.prestige_decay_per_day * days))
                floor = Decimal(str(cfg.prestige_min))
                for d in DOMAINS:
                    self.prestige[d] = q3(max(floor, self.prestige[d] - decay))
                self.prestige_dirty.update(DOMAINS)
            if cfg.trust_decay_per_day > 0 and days > 0:
                decay = Decimal(str(cfg.trust_decay_per_day * days))
                for c in self.clients:
                    if c.trust > 0:
                        c.trust = q3(max(_ZERO, c.trust - decay))
            self._flushed_us = t_us
        self._now_us = t_us

    def resolve_etas(self, impacted: list[Task] | None = None) -> None:
        """Re-solve completion (and milestone) instants after the staffing changed."""
        tasks = self.active if impacted is None else [t for t in impacted if t.status == "active"]
        for task in tasks:
            task.eta_token += 1
            self._eta.pop(task.uid, None)
        if not tasks:
            return
        for task in tasks:
            rates = effective_rates(task)
            when = completion_time(self.calendar, self._now_us, task, rates)
            if when is not None:
                self._schedule(task, when, PRIO_COMPLETION, self._on_completion)
            for m in sorted(self.config.task_progress_milestones):
                pct = int(m * 100)
                if pct <= task.milestone_pct:
                    continue
                at = milestone_time(self.calendar, self._now_us, task, rates, m)
                if at is not None:
                    self._schedule(task, at, PRIO_MILESTONE, self._on_milestone, pct)
                    break

    def _schedule(self, task: Task, t_us: int, prio: int, handler, extra: int = 0) -> None:
        if prio == PRIO_COMPLETION:
            self._eta[task.uid] = (t_us, prio)
        ev = self.env.fire_at(t_us, prio, (task, task.eta_token, extra, t_us))
        ev.callbacks.append(handler)

    def next_event_type(self) -> str:
        """The kind of the earliest pending event (completion, milestone or horizon)."""
        best = (self.horizon_us, PRIO_HORIZON)
        for t, prio in self._eta.values():
            best = min(best, (t, prio))
        return {PRIO_COMPLETION: "task_completed", PRIO_MILESTONE: "task_half_progress"}.get(best[1], "horizon_end")

    # ------------------------------------------------------------------
    # processes and event handlers
    def _payroll_process(self):
        for t_us in self.calendar.month_starts(0, self.horizon_us):
            yield self.env.fire_at(t_us, PRIO_PAYROLL)
            if self.done:
                return
            self._catch_up(t_us)
            for e in self.employees:
                self.ledger.post(t_us, "monthly_payroll", -e.salary_cents, e.uid)
            self._note({"type": "monthly_payroll", "funds_after": self.funds_cents}, payroll=True)
            if self.funds_cents < 0:
                self._end(Status.BANKRUPT, "funds_negative_after_payroll")
            self._stop(PRIO_PAYROLL_STOP)

    def _horizon_process(self):
        yield self.env.fire_at(self.horizon_us, PRIO_HORIZON)
        if self.done:
            return
        self._catch_up(self.horizon_us)
        self._note({"type": "horizon_end", "reached": True})
        self._end(Status.HORIZON, "horizon_end")
        self._stop(PRIO_STOP)

    def _live(self, ev) -> Task | None:
        task, token, _, t_us = ev.value
        if self.done or token != task.eta_token or task.status != "active":
            return None
        self._catch_up(t_us)
        return task

    def _on_milestone(self, ev) -> None:
        task = self._live(ev)
        if task is None:
            return
        pct = ev.value[2]
        task.milestone_pct = max(task.milestone_pct, pct)
        self.resolve_etas()
        self._note({"type": "task_half", "task_id": task.uid, "milestone_pct": pct, "handled": True})
        self._schedule_stop()

    def _on_completion(self, ev) -> None:
        task = self._live(ev)
        if task is None:
            return
        event = complete_task(self, task)
        self._after_completion(task, event)
        self._note(event)
        if event["bankrupt"]:
            self._end(Status.BANKRUPT, "funds_negative_after_task_failure")
            self._stop(PRIO_STOP)
        else:
            self._schedule_stop()

    def _after_completion(self, task: Task, event: dict) -> None:
        """Between a task's completion and its record: nothing here; a later version books its own mechanics
        (startup-v2 settles downturns and late payments)."""

    # ------------------------------------------------------------------
    # stops
    def _note(self, event: dict, payroll: bool = False) -> None:
        self._pending_events.append(event)
        self.record_event(event["type"], event)
        if self._request is not None:
            self._request["payrolls" if payroll else "events"] += 1

    def _schedule_stop(self) -> None:
        if self._stop_scheduled_at != self._now_us:
            self._stop_scheduled_at = self._now_us
            ev = self.env.fire_at(self._now_us, PRIO_STOP)
            ev.callbacks.append(self._stop_callback)

    def _stop_callback(self, _ev) -> None:
        self._stop_scheduled_at = None
        if self._pending_events:
            self._stop(PRIO_STOP)

    def _stop(self, priority: int) -> None:
        """Hand control back to the agent with a ``sim resume`` report."""
        req = self._request or {"t": self._now_us, "funds": self.funds_cents, "target": None, "payrolls": 0, "events": 0}
        events, self._pending_events, self._request = self._pending_events, [], None
        self._quantize()
        bankrupt = self.funds_cents < 0
        horizon = self._now_us >= self.horizon_us
        now = self.now_iso
        ref = self.config.reference_outputs
        report = {
            "ok": True,
            "old_sim_time": now if ref else self.calendar.iso(req["t"]),
            "new_sim_time": now,
            "checkpoint_event_type": req["target"] if ref else (events[-1]["type"] if events else None),
            "events_processed": req["events"],
            "payrolls_applied": req["payrolls"],
            "balance_delta": self.funds_cents - req["funds"],
            "wake_events": events,
            "bankrupt": bankrupt,
            "horizon_reached": horizon,
            "terminal_reason": "bankruptcy" if bankrupt else ("horizon_end" if horizon else None),
        }
        self._deliver_stop(report, priority)

    def _quantize(self) -> None:
        """Round stored values to the reference's column precision (3 or 4 decimals).

        Client trust needs nothing here: every write of it is already rounded (``q3``).
        """
        if self.prestige_dirty:
            # All four, as the reference reads the whole row back.
            for d in DOMAINS:
                self.prestige[d] = q3(self.prestige[d])
            self.prestige_dirty.clear()
        for t in self.active:
            for d in t.completed:
                t.completed[d] = q4(t.completed[d])

    def request_advance(self, *, require_active: bool) -> object:
        """Start an advance; the returned event fires at the next stop."""
        if require_active and not self.active:
            raise CommandError(
                "No active tasks. Accept and dispatch a task before calling sim resume. "
                "Use: market browse \u2192 task accept \u2192 task dispatch \u2192 sim resume",
                "Accept a task, assign employees, dispatch it, then resume.",
            )
        self._request = {
            "t": self._now_us, "funds": self.funds_cents, "target": self.next_event_type(), "payrolls": 0, "events": 0,
        }
        return self._await_stop()

    # ------------------------------------------------------------------
    # task lifecycle (commands validate; these only mutate)
    def accept(self, task: Task, *, bot: bool = False) -> Task:
        """Take a market task: trust discount, deadline, scope creep, market refill."""
        cfg, now = self.config, self._now_us
        adversarial = task.client.adversarial
        if not adversarial:
            cut = cfg.trust_work_reduction_max * (float(task.client.trust) / cfg.trust_max)
            for d, q in task.required.items():
                task.required[d] = max(200, int(float(q) * (1 - cut)))
        longest = max(float(q) for q in task.required.values())
        days = max(cfg.deadline_min_biz_days, int(longest / cfg.deadline_qty_per_day))
        hours = Decimal(str(days)) * Decimal(str(cfg.workday_end_hour - cfg.workday_start_hour))
        task.advertised_reward_cents = task.reward_cents
        if adversarial:
            inflation = max(3.0, cfg.scope_creep_max * abs(task.client.loyalty))
            for _ in range(2 if bot else 1):
                for d, q in task.required.items():
                    task.required[d] = int(min(25000, max(200, float(q) * (1 + inflation))))
        self.set_task_status(task, "planned")
        task.accepted_at = now
        task.deadline = self.calendar.add_business_hours(now, hours)
        return self._refill_market(task, bot)

    def _refill_market(self, task: Task, bot: bool) -> Task:
        """Take the accepted ``task`` off the market and put its replacement on it; the replacement.

        The market's part of an accept, apart from the company's: an arena of companies sharing one market
        (``startup-arena``) routes it through the market they share.
        """
        cfg = self.config
        self.market.remove(task)
        self.market_levels[task.required_prestige].remove(task)
        counter, slot, serial = self._replacements.draw(task, bot)
        fresh = generate_replacement(cfg, self.seed, counter, serial, task, slot)
        self._add_market_task(fresh)
        return fresh

    def _add_market_task(self, task: Task) -> None:
        self.tasks.append(task)
        self._counts["market"] += 1
        self._by_uid[task.uid] = task
        self._by_title.setdefault(task.title, []).append(task)
        insort(self.market, task, key=_market_key)
        insort(self.market_levels.setdefault(task.required_prestige, []), task, key=_market_key)

    def market_up_to(self, level: int) -> Iterable[Task]:
        """Market tasks that need at most ``level`` prestige, in market order (highest reward first)."""
        lists = [tasks for need, tasks in self.market_levels.items() if need <= level and tasks]
        if len(lists) == 1:
            return lists[0]
        return heapq.merge(*lists, key=_market_key)

    def assign(self, task: Task, employees: list[Employee]) -> list[Employee]:
        """Add employees to a task's team (already assigned ones are skipped)."""
        added = []
        for e in employees:
            if e in task.assignees or e in added:
                continue
            added.append(e)
        task.assignees.extend(added)
        task.assigned_at.extend([self._now_us] * len(added))
        if task.status == "active":
            for e in added:
                e.active_tasks += 1
            named = set(employees)
            self.resolve_etas([t for t in self.active if named.intersection(t.assignees)])
        return added

    def dispatch(self, task: Task) -> None:
        """Start work on a planned task."""
        self.set_task_status(task, "active")
        self.active.append(task)
        for e in task.assignees:
            e.active_tasks += 1
        team = set(task.assignees)
        self.resolve_etas([task] + [t for t in self.active if t is not task and team.intersection(t.assignees)])

    def cancel(self, task: Task) -> dict:
        """Drop a planned or active task (see :func:`cancel_task`)."""
        return cancel_task(self, task)

    def deactivate(self, task: Task) -> None:
        """Take ``task`` off the active list; its pending completion and milestone events become stale."""
        self.active.remove(task)
        task.eta_token += 1
        self._eta.pop(task.uid, None)
        for e in task.assignees:
            e.active_tasks -= 1

    # state for tests, replay and analysis ----------------------------------
    def state(self) -> dict:
        """Complete state as JSON-able data."""
        return reports.state(self)

    def invariants(self) -> list[str]:
        """Broken rules, described (empty when the state is sound)."""
        return reports.invariants(self)

    def month_end_funds(self) -> dict[str, int]:
        """Funds after every ledger entry of each month, from the first month to now."""
        return reports.month_end_funds(self)

    def monthly_figures(self) -> list[dict]:
        """Revenue, cost, return and ending funds for every month so far."""
        return reports.monthly_figures(self)

    def summary(self) -> dict:
        """The episode's headline figures."""
        return reports.summary(self)

    def observation(self) -> dict:
        """The status summary an agent sees each turn."""
        return reports.observation(self)

    def system_prompt(self) -> str:
        """The YC-Bench system prompt (it teaches the ``yc-bench`` command lines)."""
        from .prompt import system_prompt

        return system_prompt()


_market_key = attrgetter("market_key")
