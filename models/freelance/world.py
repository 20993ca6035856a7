"""The freelance world: a year of gig work, balancing money, energy, stress and skill (EcoGym "Freelance")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from bizsim.simcore import CommandError, Ledger, Status
from bizsim.simcore.dayworld import DayWorld
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.summation import exact_mean

from .._ecogym import parse_start_date, system_prompt
from .auditor import Auditor, DeterministicAuditor
from .commands import COMMANDS, FreelanceError
from .config import FreelanceConfig
from .presets import resolve_config
from .prompt import role_for
from .tasks import Task, TaskBank, generate_bank, load_reference_tasks

__all__ = ["FreelanceWorld"]

_COMPLEXITY_INDEX = {"Low": 0, "Medium": 1, "High": 2}
_BLOCK = 256


class FreelanceWorld(DayWorld):
    """Work as a freelancer for a year: discover tasks, solve them, rest, stay alive.

    State: money (integer cents, every movement in a ledger), energy and
    stress (integers 0–100), a skill rating per task category, a task pool
    (at most ``max_pool`` tasks, each with a lifespan). Five actions a day;
    at most three submissions a day; ``task_done`` charges living costs and
    restores some energy and calm. The career ends at money <= 0, energy <= 0
    or stress >= 100 (checked after every action and every day), else after
    365 days. Metric: final money (the reference's), with the paper's
    career score alongside.

    Randomness: the task bank comes from the stream ``tasks`` (or the
    config's ``task_seed``), discovery draws from ``discovery``, burnout
    slips from ``slips``.

    Args:
        config: a preset name (``"default"``, ``"reference"``), a ``.toml`` path or a :class:`FreelanceConfig`.
        seed: the episode seed.
        auditor: who prices, judges and pays (default :class:`DeterministicAuditor`;
            :class:`~bizsim.models.freelance.auditor.LLMAuditor` plays the reference's LLM roles).
        tasks: a task bank to use instead of the configured one.
    """

    name = "freelance"
    version = 1
    commands = COMMANDS

    def __init__(self, config: FreelanceConfig | str = "default", seed: int = 1, *, auditor: Auditor | None = None,
                 tasks: TaskBank | None = None) -> None:
        cfg = resolve_config(config)
        super().__init__(cfg, seed, start=parse_start_date(cfg.start_date), daily_budget=cfg.daily_budget,
                         horizon_days=cfg.horizon_days)
        self.preset = config if isinstance(config, str) else "custom"
        explicit_tasks = tasks is not None
        if tasks is None:
            if cfg.tasks_path is not None:
                tasks = load_reference_tasks(cfg.tasks_path)
            else:
                rng = self.streams.get("tasks") if cfg.task_seed is None else np.random.default_rng(cfg.task_seed)
                tasks = generate_bank(cfg.bank_size, rng)
        if auditor is not None and not isinstance(auditor, Auditor):
            raise ConfigError(f"auditor(={auditor!r}) must have price, judge and settle (see auditor.Auditor)")
        if auditor is not None or explicit_tasks:
            self.snapshot_refusal = "it was built with its own auditor or task bank, objects a snapshot cannot carry"
        self.tasks = tasks
        self.auditor: Auditor = auditor or DeterministicAuditor()
        self.ledger = Ledger(cfg.initial_money_cents)
        self.energy: int = cfg.initial_energy
        self.stress: int = cfg.initial_stress
        self.skills: dict[str, float] = {}
        self.pool: list[int] = []  # oldest first
        self.end_days: dict[int, int] = {}  # every task ever pooled -> its last day
        self.quotes: dict[int, tuple[int, float]] = {}  # task -> (payment cents, effort)
        self.submitted: set[int] = set()
        #: One row per submission: (day, task, success, paid cents, energy cost, stress after, skill after).
        self.history: list[tuple[int, int, bool, int, int, int, float]] = []
        self.submissions_today = 0
        self.income_cents = 0
        self.spent_cents = 0
        #: One row per day transition: (day, money cents, energy, stress, mean skill, income cents that day).
        self.daily: list[tuple[int, int, int, int, float, int]] = []
        self._income_today = 0
        self._next_discovery = _uniforms(self.streams.get("discovery")).__next__
        self._next_slip = _uniforms(self.streams.get("slips")).__next__
        #: The tasks_browse row of each task discovery pooled, bar its days left (copied, never handed out).
        #: Written whenever a task enters the pool, so it is as current as the task and its quote.
        self._listing: dict[int, dict] = {}
        self._ids: frozenset[int] | None = None  # every task id, for sampling among the few left near exhaustion
        self.end_reason: str | None = None

    #: The role line of the default preset's prompt (``system_prompt()`` fits the world's config).
    agent_role = role_for(True)
    #: EcoGym's amounts in dollars (see :attr:`World.money_fields`).
    money_fields = {"money": "dollars", "init_payment": "dollars", "estimated_payment": "dollars",
                    "final_payment": "dollars", "current_balance": "dollars", "money_change": "dollars",
                    "living_cost_deducted": "dollars"}

    def system_prompt(self) -> str:
        """The agent's system prompt: this config's role line and the shared rules."""
        return system_prompt(role_for(self.config.burnout), self.config.daily_budget)

    # A career can end in the middle of a day (energy spent, stress at 100). Commands after that are
    # refused without being logged: they cannot change anything, and a replay stops at the end too.
    def _ended(self) -> CommandError:
        return CommandError(f"The episode has ended ({self.status.value}: {self.terminal_detail}).",
                            "Start a new episode.")

    def execute(self, line: str, *, allow_hidden: bool = False, driven: bool = False) -> Any:
        """Run a command line (see :meth:`World.execute`); after the end, refused and not logged."""
        return self._ended().to_dict() if self.done else super().execute(line, allow_hidden=allow_hidden, driven=driven)

    def execute_tool(self, tool_name: str, arguments: Any, *, driven: bool = False) -> Any:
        """Run a tool call (see :meth:`World.execute_tool`); after the end, refused and not logged."""
        return self._ended().to_dict() if self.done else super().execute_tool(tool_name, arguments, driven=driven)

    def _refuse(self, spec: Any, kwargs: dict, raise_errors: bool) -> Any:
        if not self.done:
            return super()._refuse(spec, kwargs, raise_errors)
        if raise_errors:
            raise self._ended()
        return self._ended().to_dict()

    # lookups --------------------------------------------------------------------------------
    @property
    def money_cents(self) -> int:
        """Cash on hand."""
        return self.ledger.funds_cents

    def skill(self, category: str) -> float:
        """The skill rating of a category (the initial rating until first used)."""
        return self.skills.get(category, self.config.initial_skill)

    def avg_skill(self) -> float:
        """Mean skill over the categories worked in (the initial rating if none)."""
        return exact_mean(self.skills.values()) if self.skills else float(self.config.initial_skill)

    def pooled(self, task_id: str | int) -> Task:
        """The task of an id in the pool, else a :class:`CommandError` saying why not."""
        text = str(task_id)
        if not self.config.canonical_ids:
            text = text.strip()
        tid = int(text) if text.isdigit() and len(text) < 10 else None
        if tid is not None and self.config.canonical_ids and str(tid) != text:
            tid = None  # "0331" or a non-ASCII digit: the reference matches the pool's text exactly
        if tid is None or tid not in self.pool:
            end = self.end_days.get(tid) if tid is not None else None
            why = "has expired" if end is not None and end < self.day and tid not in self.submitted else (
                "was already submitted" if tid in self.submitted else "is not in your active pool")
            raise FreelanceError("error", f"Task {task_id!r} {why}.",
                                 "Call tasks_browse to list the tasks you can work on.")
        return self.tasks[tid]

    def answer_of(self, task_id: str | int) -> str:
        """The hidden canonical answer of a task. For calibration agents (``oracle``) only: no tool shows it."""
        return self.tasks[int(task_id)].answer.text

    # actions (commands validate the arguments; these apply the rules) -------------------------------
    def browse(self) -> list[dict]:
        """The pool, soonest-expiring first within insertion order (expired tasks dropped)."""
        day, end_days, listing = self.day, self.end_days, self._listing
        pool: list[int] = []
        out = []
        for t in self.pool:
            end = end_days[t]
            if end >= day:
                pool.append(t)
                row = (listing.get(t) or self._listed(t)).copy()
                row["days_left"] = end - day
                out.append(row)
        self.pool = pool
        return out

    def _listed(self, tid: int) -> dict:
        """A task's row of ``tasks_browse`` (``days_left`` to fill in), for a task pooled other than by discovery."""
        task = self.tasks[tid]
        return {"task_id": str(tid), "category": task.category, "complexity": task.complexity, "status": "Available",
                "days_left": 0, "estimated_payment": self.quotes[tid][0] / 100}

    def discover(self, paid: bool) -> dict:
        """Pay the discovery's cost, then draw new tasks into the pool (oldest evicted above the cap)."""
        cfg = self.config
        if paid:
            (cost, energy, stress), kind, wanted = cfg.paid_discovery, "paid", cfg.paid_discovery_tasks
        else:
            (cost, energy, stress), kind, wanted = cfg.free_discovery, "free", cfg.free_discovery_tasks
        money = self.ledger.funds_cents
        if money < cost or self.energy < energy:
            raise FreelanceError("error", f"Not enough resources for a {kind} discovery: it needs ${cost / 100:.2f} "
                                 f"and {energy} energy; you have ${money / 100:.2f} and {self.energy}.",
                                 "Rest with energy_restore, or try the other discovery type.")
        if cost:
            self._spend(cost, "discovery")
        self.energy -= energy
        self.stress = min(100, self.stress + stress)
        picked = self._draw_tasks(wanted)
        if not picked:
            self._check_end()
            return {"status": "warning", "added_count": 0, "current_pool_size": len(self.pool),
                    "message": "No new tasks are left to discover; the costs were charged."}
        k = len(picked)
        lifespans, tasks, quotes, end_days, day = cfg.lifespans, self.tasks, self.quotes, self.end_days, self.day
        pool = self.pool
        listing = self._listing
        for tid in picked:
            task = tasks[tid]
            quote = quotes.get(tid)
            if quote is None:
                quote = quotes[tid] = self.auditor.price(task)
            complexity = task.complexity
            end_days[tid] = day + lifespans[_COMPLEXITY_INDEX.get(complexity, 1)]
            listing[tid] = {"task_id": str(tid), "category": task.category, "complexity": complexity,
                            "status": "Available", "days_left": 0, "estimated_payment": quote[0] / 100}
            pool.append(tid)
        evicted = len(pool) - cfg.max_pool
        if evicted > 0:
            del pool[:evicted]
        self._check_end()
        return {"status": "success", "added_count": k, "current_pool_size": len(pool),
                "message": f"{kind.capitalize()} discovery found {k} tasks" +
                           (f"; the {evicted} oldest left the pool (limit {cfg.max_pool})." if evicted > 0 else ".")}

    def _draw_tasks(self, k: int) -> list[int]:
        """Up to ``k`` distinct tasks neither pooled nor submitted, uniformly at random.

        While most of the bank is free, draws ids and skips taken ones (cheap);
        near exhaustion, samples from the explicit list of free ids.
        """
        n = len(self.tasks)
        submitted, pooled = self.submitted, set(self.pool)
        free = n - len(submitted) - len(pooled)
        if free <= 0:
            return []
        k = min(k, free)
        draw = self._next_discovery
        picked: list[int] = []
        if free * 2 >= n:
            while len(picked) < k:
                i = int(draw() * n)
                if i not in submitted and i not in pooled:
                    pooled.add(i)
                    picked.append(i)
            return picked
        if self._ids is None or len(self._ids) != n:
            self._ids = frozenset(range(n))
        candidates = sorted(self._ids.difference(submitted, pooled))
        for _ in range(k):
            picked.append(candidates.pop(int(draw() * len(candidates))))
        return picked

    def submit(self, task: Task, solution: str) -> dict:
        """Settle a submission with the reference's energy, stress and skill formulas (spec §3.2)."""
        cfg = self.config
        tid, category = task.id, task.category
        payment, effort = self.quotes[tid]
        skills = self.skills
        skill = skills.get(category, cfg.initial_skill)
        req = 10 * effort
        cm = max(0.4, 1 - (skill - req) / 100)
        cost = int((2 + 0.8 * effort) * cm)
        energy = self.energy
        if energy < cost:
            raise FreelanceError("failed", f"Too exhausted: this task needs {cost} energy and you have {energy}.",
                                 "Rest with energy_restore first.", reason="exhaustion")
        self.energy = energy - cost
        self.stress = stress = min(100, self.stress + int((1 + 0.5 * effort) * cm))
        auditor = self.auditor
        success = auditor.judge(task, solution)
        slipped = False
        if cfg.burnout:
            p = cfg.base_failure + cfg.skill_failure * max(0.0, req - skill) / 100
            if stress >= cfg.burnout_stress:
                p *= cfg.burnout_gamma
            u = self._next_slip()  # one draw per judged submission, whatever the verdict
            slipped = success and u < min(1.0, p)
            success = success and not slipped
        lm = min(2.0, max(0.1, req / skill)) if skill else 1.0
        if success:
            self.stress = stress = max(0, stress - int((2 + 0.5 * effort) * cm))
            new_skill = min(100.0, round(skill + (1 + 0.25 * effort) * lm, 2))
            paid = max(0, int(auditor.settle(task, solution, payment)))
        else:
            self.stress = stress = min(100, stress + int((5 + effort) * cm))
            new_skill = max(0.0, round(skill - (1.5 + 0.1 * effort), 2))
            paid = 0
        skills[category] = new_skill
        if paid:
            self.ledger.post(self._now_us, "payment", paid, str(tid))
            self.income_cents += paid
            self._income_today += paid
        self.pool.remove(tid)
        self.submitted.add(tid)
        self.submissions_today += 1
        self.history.append((self.day, tid, success, paid, cost, stress, new_skill))
        self._check_end()
        if success:
            message = f"Accepted: paid ${paid / 100:.2f}."
        elif slipped:
            message = "Rejected: the answer was right but the work had mistakes (stress makes slips likelier)."
        else:
            message = "Rejected: the solution was judged incorrect."
        return {"status": "success" if success else "failed", "is_success": success,
                "execution_stats": {"energy_consumed": cost, "current_stress": stress,
                                    "skill_avg": round(exact_mean(skills.values()), 2)},
                "settlement": {"final_payment": paid / 100, "current_balance": self.ledger.funds_cents / 100},
                "message": message}

    def rest(self, level: str) -> dict:
        """Buy rest: money for energy and calm (energy capped at 100, stress floored at 0)."""
        cost, energy, relief = self.config.rest(level)
        if self.money_cents < cost:
            raise FreelanceError("failed", f"Not enough money for {level} rest: it costs ${cost / 100:.2f}, you have "
                                 f"${self.money_cents / 100:.2f}.", "Choose a cheaper level.",
                                 reason="insufficient_funds", cost_required=cost / 100,
                                 current_money=self.money_cents / 100)
        e0, s0 = self.energy, self.stress
        if cost:
            self._spend(cost, "rest")
        self.energy = min(100, self.energy + energy)
        self.stress = max(0, self.stress - relief)
        self._check_end()
        return {"status": "success", "action": f"relax_{level}",
                "description": f"{level} rest: ${cost / 100:.2f} for +{energy} energy and -{relief} stress",
                "changes": {"money_change": -cost / 100, "energy_change": self.energy - e0,
                            "stress_change": self.stress - s0},
                "current_state": self._state_fields(), "message": f"Rested ({level})."}

    def _spend(self, cents: int, category: str) -> None:
        self.ledger.post(self._now_us, category, -cents)
        self.spent_cents += cents

    # the end -----------------------------------------------------------------------------------
    def _terminal(self) -> tuple[Status, str] | None:
        if self.money_cents <= 0:
            return Status.BANKRUPT, "bankruptcy"
        if self.energy <= 0:
            return Status.COLLAPSED, "exhaustion"
        if self.stress >= 100:
            return Status.COLLAPSED, "burnout"
        return None

    def _check_end(self) -> None:
        """End the career the moment a limit is reached (the reference checks before every step)."""
        if self.energy > 0 and self.stress < 100 and self.ledger.funds_cents > 0:
            return  # the common case, decided without building the verdict
        end = self._terminal()
        if end is not None and not self.done:
            self.end_reason = end[1]
            self._end(end[0], end[1])

    def end_day(self, day: int) -> dict:
        """Living cost, daily recovery, expiry; the reference's ``task_done`` report."""
        cfg = self.config
        if cfg.daily_cost_cents:
            self._spend(cfg.daily_cost_cents, "living")
        e0, s0 = self.energy, self.stress
        self.energy = energy = min(100, e0 + cfg.daily_energy)
        self.stress = stress = max(0, s0 - cfg.daily_stress_relief)
        pool, today = self.pool, self.day
        before = len(pool)
        end_days = self.end_days
        for tid in pool:
            if end_days[tid] < today:
                pool = self.pool = [t for t in pool if end_days[t] >= today]
                break
        self.submissions_today = 0
        money_cents = self.ledger.funds_cents
        skills = self.skills
        avg = exact_mean(skills.values()) if skills else float(cfg.initial_skill)
        self.daily.append((day, money_cents, energy, stress, round(avg, 4), self._income_today))
        self._income_today = 0
        money = money_cents / 100
        ref = cfg.reference_outputs
        if money_cents < 0:  # at exactly $0 the report is an ordinary one; the career still ends (finished_status)
            if ref:
                return {"status": "game_over", "reason": "bankruptcy", "day": today, "final_money": money,
                        "message": "Living costs took your money below zero: the career is over."}
            return {"status": "game_over", "reason": "bankruptcy", "current_day": today,
                    "current_state": {"money": money, "energy": energy, "stress": stress}}
        cost = cfg.daily_cost_cents
        # The reference reports its configured cost as written: 10, not 10.0.
        living = cost // 100 if ref and cost % 100 == 0 else cost / 100
        scale = "/100" if ref else ""
        return {
            "status": "success",
            "current_day": today,
            "events": {"living_cost_deducted": living, "energy_recovered": energy - e0,
                       "stress_relieved": s0 - stress, "expired_tasks_removed": before - len(pool),
                       "daily_task_limit_reset": True},
            "current_state": {"money": money, "energy": energy, "stress": stress, "active_tasks_count": len(pool)},
            "summary": f"Day {today}: Money=${money:.2f}, Energy={energy}{scale}, Stress={stress}{scale}",
        }

    def finished_status(self) -> Status | None:
        """Money, energy or stress at its limit, else the horizon."""
        end = self._terminal()
        if end is not None:
            self.end_reason = end[1]
            self._end(end[0], end[1])
            return end[0]
        return Status.HORIZON if self.day >= self.horizon_days else None

    # figures ------------------------------------------------------------------------------------
    def _state_fields(self) -> dict:
        return {"money": self.money_cents / 100, "energy": self.energy, "stress": self.stress}

    def career_score(self) -> float:
        """The paper's composite: 0.6·money($) + 0.4·(0.5·skill + 0.25·energy + 0.25·(100 − stress))."""
        money = max(0, self.money_cents) / 100
        return 0.6 * money + 0.4 * (0.5 * self.avg_skill() + 0.25 * self.energy + 0.25 * (100 - self.stress))

    def observation(self) -> dict:
        """The worker's dashboard (the reference shows agents only tool results)."""
        return {"day": self.day, **self._state_fields(), "money_cents": self.money_cents,
                "skills": dict(self.skills), "pool_size": len(self.pool), "submissions_today": self.submissions_today,
                "actions_left": self.actions_left, "status": self.status.value}

    def summary(self) -> dict:
        """The episode's headline figures; ``metric_value`` is the final money in cents (clipped at 0)."""
        money = max(0, self.money_cents)
        done = len(self.history)
        wins = sum(1 for h in self.history if h[2])
        reason = self.end_reason or ("max_days" if self.status is Status.HORIZON else None)
        return {
            "metric": "final_money_cents",
            "metric_value": money,
            "final_money_cents": money,
            "income_cents": self.income_cents,
            "net_income_cents": self.money_cents - self.ledger.initial_cents,
            "career_score": round(self.career_score(), 4),
            "termination_reason": reason,
            "penalty_coefficient": 0.9 if reason in ("bankruptcy", "exhaustion", "burnout") else 1.0,
            "final_energy": self.energy,
            "final_stress": max(0, min(100, self.stress)),
            "avg_skill": round(self.avg_skill(), 2 if self.config.reference_outputs else 4),
            "skills": dict(self.skills),
            "submissions": done,
            "accepted": wins,
            "acceptance_rate": wins / done if done else None,
            "days": len(self.daily),
            "auditor": self.auditor.name,
            "auditor_model_calls": getattr(self.auditor, "calls", 0),
            "auditor_fallbacks": dict(getattr(self.auditor, "fallbacks", {})),
            "daily_money_cents": [r[1] for r in self.daily],
            "daily_energy": [r[2] for r in self.daily],
            "daily_stress": [r[3] for r in self.daily],
            "daily_income_cents": [r[5] for r in self.daily],
        }

    # state for tests, replay and analysis ------------------------------------------------------------
    def state(self) -> dict:
        """Complete state as JSON-able data."""
        return {
            "day": self.day, "time": self.now_iso, "status": self.status.value, "end_reason": self.end_reason,
            "money_cents": self.money_cents, "energy": self.energy, "stress": self.stress,
            "skills": sorted(self.skills.items()),
            "ledger": [(e.t_us, e.category, e.amount_cents, e.ref) for e in self.ledger],
            "pool": list(self.pool), "end_days": sorted(self.end_days.items()),
            "quotes": sorted((k, list(v)) for k, v in self.quotes.items()),
            "history": [list(h) for h in self.history], "submissions_today": self.submissions_today,
            "daily": [list(r) for r in self.daily], "actions_today": self.actions_today, "day_ending": self.day_ending,
        }

    def invariants(self) -> list[str]:
        """Broken rules, described (empty when the state is sound)."""
        cfg = self.config
        bad = []
        if not 0 <= self.energy <= 100 or not 0 <= self.stress <= 100:
            bad.append(f"energy {self.energy} or stress {self.stress} outside [0, 100]")
        if self.status is Status.RUNNING and (self.energy <= 0 or self.stress >= 100 or self.money_cents <= 0):
            bad.append(f"a limit is reached (money {self.money_cents}, energy {self.energy}, stress {self.stress}) "
                       "but the career runs on")
        if not self.ledger.balanced():
            bad.append("cash differs from initial cash plus the ledger")
        if self.money_cents != self.ledger.initial_cents + self.income_cents - self.spent_cents:
            bad.append(f"cash {self.money_cents} != start + income {self.income_cents} - spending {self.spent_cents}")
        if self.income_cents != sum(h[3] for h in self.history):
            bad.append("income differs from the payments of the submissions")
        if len(self.pool) > cfg.max_pool or len(set(self.pool)) != len(self.pool) or set(self.pool) & self.submitted:
            bad.append(f"pool {self.pool} is over the cap, repeats a task or holds a submitted one")
        per_day: dict[int, int] = {}
        for h in self.history:
            per_day[h[0]] = per_day.get(h[0], 0) + 1
        if any(n > cfg.max_submissions_per_day for n in per_day.values()):
            bad.append(f"more than {cfg.max_submissions_per_day} submissions in a day: {per_day}")
        if self.submissions_today != per_day.get(self.day, 0):
            bad.append("today's submission count disagrees with the history")
        if any(not 0.0 <= s <= 100.0 for s in self.skills.values()):
            bad.append(f"a skill outside [0, 100]: {self.skills}")
        if self.daily_budget is not None and self.actions_today > self.daily_budget:
            bad.append(f"{self.actions_today} actions today, over the budget of {self.daily_budget}")
        if len(self.daily) != self.day:
            bad.append(f"{len(self.daily)} transitions recorded on day {self.day}")
        return bad


def _uniforms(rng: np.random.Generator) -> Iterator[float]:
    """A stream's uniforms one at a time, drawn in blocks (numpy is slow to draw them singly)."""
    while True:
        yield from rng.random(_BLOCK).tolist()
