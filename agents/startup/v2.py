"""startup-v2's baselines: v1's greedy floor and planner, taught the labour market.

The greedy floor still never hires or fires (it only re-reads the roster, which resignations and onboarding
change); the planner adds a staffing rule to v1's plan, so the gap between them measures what the market is worth.
"""

from __future__ import annotations

from typing import Any, cast

from bizsim.agents.declare import Process, agent
from bizsim.models.startup import StartupWorld
from bizsim.models.startup.v2.signals import deadline_band, rate_estimate, work_estimate
from bizsim.simcore import CommandError, ConfigError

from .planner import _check_options as _check_plan
from .baselines import _start_task
from .planner import _DAY_HOURS, _Plan
from .planner import _play as _plan_loop

__all__ = ["greedy", "planner"]


def _start(world: StartupWorld, task_id: str) -> bool:
    return _start_task(world, task_id, [e["name"] for e in world.call("employee list")["employees"]])


@agent
def greedy(world: StartupWorld) -> Process:
    """The paper's greedy floor on startup-v2: v1's greedy, naming the roster as it stands at each task.

    One task at a time: accept the highest-reward task ``market browse`` lists, assign every employee, dispatch,
    ``sim resume``. It never hires or fires.
    """
    current = None
    while not world.done:
        if current is None:
            listing = world.call("market browse", limit=1)["tasks"]
            if not listing or not _start(world, listing[0]["task_id"]):
                return
            current = listing[0]["task_id"]
        report = yield world.advance()
        if "error" in report:
            return
        if current in _ended(report):
            current = None


def _ended(report: dict) -> set[str]:
    """Titles of the tasks a stop report says ended: completed, or cancelled because their client went under."""
    out = set()
    for e in report.get("wake_events", []):
        if e["type"] == "task_completed":
            out.add(e["task_title"])
        elif e["type"] == "client_collapsed":
            out.update(e["tasks_cancelled"])
    return out


def _value(rates: dict[str, float], salary_cents: int) -> float:
    """Best rate per 10,000 cents of monthly salary: what a member adds for what they cost."""
    return max(rates.values()) / max(1, salary_cents) * 10_000


def _staff(world: StartupWorld, runway_months: float, max_hires: int, hired: list[int]) -> None:
    """Hire the best-value candidate while the runway allows; fire the worst-value idle employee when it is short.

    A hire pays off only after notice and onboarding, so none is made in the second half of the year.
    """
    status = world.call("company status")
    payroll = status["monthly_payroll_cents"]
    funds = status["funds_cents"]
    market = world.call("employee candidates")
    year_left = world.horizon_us - world.now_us
    if len(hired) < max_hires and 2 * year_left > world.horizon_us and market["candidates"] and not market[
            "pending_hires"]:
        best = max(market["candidates"], key=lambda c: (_value(c["skill_rates"], c["salary_ask_cents"]),
                                                         c["candidate_id"]))
        staff = world.call("employee list")["employees"]
        worst = min(_value(e["skill_rates"], e["salary_cents"]) for e in staff)
        if funds > runway_months * (payroll + best["salary_ask_cents"]) and _value(
                best["skill_rates"], best["salary_ask_cents"]) > worst:
            try:
                world.call("employee hire", candidate=best["candidate_id"])
                hired.append(world.now_us)
            except CommandError:
                pass
    if payroll > 0 and funds < 2 * payroll:
        idle = [e for e in world.call("employee list")["employees"] if not e["active_tasks"]]
        if len(idle) > 1:
            worst_e = min(idle, key=lambda e: (_value(e["skill_rates"], e["salary_cents"]), e["name"]))
            try:
                world.call("employee fire", employee=worst_e["name"])
            except CommandError:
                pass


def planner(world: StartupWorld, max_concurrent: int = 3, safety_margin: float = 0.04, max_team: int = 4,
            pad_teams: bool = True, hire_runway_months: float = 8.0, max_hires: int = 4) -> Process:
    """v1's planner (see :func:`bizsim.agents.startup.planner`) with a staffing rule for startup-v2.

    At every stop, before planning the work: hire the candidate with the best rate per salary when funds cover
    ``hire_runway_months`` of the payroll with them, they beat the current staff's worst value, no hire is
    pending and half the year remains (at most ``max_hires`` a year); when funds fall below two months
    of payroll, fire the idle employee of worst value (severance is cheaper than the salaries to come).

    In words presets it reads work and skill as the middles of their bands, and a deadline as the low end of its
    band, raised to the world's minimum deadline (``deadline_min_biz_days``: 7 business days in every preset) when
    that lies inside the band: a plan that assumes too little time costs some choice, one that assumes too much a
    missed deadline.

    Args:
        hire_runway_months: months of payroll, the hire's included, that funds must cover to hire.
        max_hires: hires a year at most.

    Raises:
        ConfigError: an option is out of range.
    """
    _check(max_concurrent, safety_margin, max_team, pad_teams, hire_runway_months, max_hires)
    view = cast(StartupWorld, _Estimates(world))  # the plan reads the world only through call()
    plan = _WordPlan(view, max_concurrent=int(max_concurrent), safety_margin=float(safety_margin),
                     max_team=int(max_team), pad_teams=pad_teams)
    return _play(world, plan, float(hire_runway_months), int(max_hires))


def _check(max_concurrent: int, safety_margin: float, max_team: int, pad_teams: bool, hire_runway_months: float,
           max_hires: int) -> None:
    _check_plan(max_concurrent, safety_margin, max_team, pad_teams)
    if not 0.0 <= float(hire_runway_months) <= 120.0:
        raise ConfigError(f"hire_runway_months(={hire_runway_months}) must be in [0, 120]")
    if not 0 <= int(max_hires) <= 200:
        raise ConfigError(f"max_hires(={max_hires}) must be in [0, 200]")


planner = agent(planner, check=_check)


def _play(world: StartupWorld, plan: _Plan, runway: float, max_hires: int) -> Process:
    """v1's plan loop, staffing before each turn and forgetting the tasks a collapse cancelled after each report."""
    hired: list[int] = []
    hiring = "employee candidates" in world.commands and not _off(world)

    def staff() -> None:
        _staff(plan.world, runway, max_hires, hired)  # the estimating view

    def forget_cancelled(report: dict) -> None:
        for title in _ended(report):  # cancelled by a collapse: v1's plan only hears of completions
            plan.running.pop(title, None)
            if plan.parked == title:
                plan.parked = None

    return _plan_loop(world, plan, before_turn=staff if hiring else None, on_report=forget_cancelled)


class _WordPlan(_Plan):
    """v1's plan, reading a deadline shown in words at the safe end of its band."""

    def __init__(self, world: StartupWorld, **options: Any) -> None:
        super().__init__(world, **options)
        if world.config.signals.words:
            # v1's plan starts from the usual 7 days and learns a shorter minimum from the exact deadlines accepts
            # show; words show none, so it takes the world's own (7 in every preset, lower in a config that says so).
            self.min_days = int(world.config.deadline_min_biz_days)

    def deadline_hours(self, accepted: dict) -> tuple[float, bool]:
        try:
            lo, hi = deadline_band(accepted["deadline"])
        except ValueError:  # a date: a preset without words
            return super().deadline_hours(accepted)
        # The deadline is at least ``min_days`` (the world's rule, never corrected by words); inside the band
        # that bound is the tighter one. An hour at least: a task due within a day is then refused, not divided by 0.
        days = max(lo, self.min_days) if self.min_days < hi else lo
        return max(1.0, days * _DAY_HOURS), False


class _Estimates:
    """The world as v1's plan reads it: answers in words (presets with ``signals.words``) turned back into the
    middles of their bands, the only numbers the words give."""

    def __init__(self, world: StartupWorld) -> None:
        self._world = world

    def __getattr__(self, name: str) -> object:
        return getattr(self._world, name)

    def call(self, name: str, **kwargs: object) -> dict:
        out = self._world.call(name, **kwargs)
        people = {"employee list": "employees", "employee candidates": "candidates"}.get(name)
        for row in out.get(people, ()) if people else ():
            row["skill_rates"] = {d: _num(v, rate_estimate) for d, v in row["skill_rates"].items()}
        rows = [r for t in out.get("tasks", ())
                for r in t.get("requirements", ())] if name == "market browse" else out.get("requirements", [])
        for r in rows if name in ("market browse", "task inspect") else ():
            if "work" in r:
                r["required_qty"] = work_estimate(r.pop("work"))
            if "remaining" in r:
                r["remaining_qty"] = work_estimate(r.pop("remaining"))
        return out


def _num(value: object, estimate) -> float:
    return estimate(value) if isinstance(value, str) else float(value)  # type: ignore[arg-type]


def _off(world: StartupWorld) -> bool:
    try:
        world.call("employee candidates")
    except CommandError:
        return True
    return False
