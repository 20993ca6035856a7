"""A strong reference agent for the startup world that plays only from what the commands show."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, time, timedelta

from bizsim.agents.declare import Process, agent
from bizsim.models.startup import StartupWorld
from bizsim.simcore import CommandError, ConfigError
from bizsim.simcore.summation import plain_sum

__all__ = ["business_hours", "planner"]

_OPEN, _CLOSE = 9, 18
_DAY_HOURS = _CLOSE - _OPEN
_TRUST_MAX = 5.0
_TOP = 4  # only the best four contributions per task and domain count


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=None)


def business_hours(a: datetime, b: datetime) -> float:
    """Weekday business hours (09:00-18:00) from ``a`` to ``b``.

    >>> business_hours(datetime(2025, 1, 3, 17), datetime(2025, 1, 6, 10))  # Friday 17:00 to Monday 10:00
    2.0
    """
    if b <= a:
        return 0.0
    total, day = 0.0, a.date()
    while day <= b.date():
        if day.weekday() < 5:
            lo = max(a, datetime.combine(day, time(_OPEN)))
            hi = min(b, datetime.combine(day, time(_CLOSE)))
            if hi > lo:
                total += (hi - lo).total_seconds() / 3600
        day += timedelta(days=1)
    return total


# teams -------------------------------------------------------------------------
def _rate(team: list[dict], domain: str) -> float:
    """A team's units per business hour in ``domain``: its best four members, each on this task only."""
    return plain_sum(sorted((e["skill_rates"][domain] for e in team), reverse=True)[:_TOP])


def _strength(e: dict) -> float:
    return max(e["skill_rates"].values())


def _meets(team: list[dict], need: dict[str, float]) -> bool:
    return bool(team) and all(_rate(team, d) >= r for d, r in need.items())


def _coverage(team: list[dict], need: dict[str, float]) -> float:
    return plain_sum(min(1.0, _rate(team, d) / r) for d, r in need.items())


def _best_fit(free: list[dict], domain: str, need: float, limit: int) -> list[dict] | None:
    """The fewest members reaching ``need`` in one domain, each the weakest that still lets the team get there.

    Keeping the strong ones out of easy tasks leaves them for the hard ones.
    """
    pool = sorted(free, key=lambda e: (-e["skill_rates"][domain], e["name"]))
    rates = [e["skill_rates"][domain] for e in pool]
    size = next((s for s in range(1, min(limit, _TOP, len(pool)) + 1) if plain_sum(rates[:s]) >= need), None)
    if size is None:
        return None
    team: list[dict] = []
    remaining = need
    for slots in range(size, 0, -1):
        for i in range(len(pool) - 1, -1, -1):
            rate = rates[i]
            others = rates[: slots - 1] if i >= slots - 1 else rates[:i] + rates[i + 1 : slots]
            if rate + plain_sum(others) >= remaining:
                team.append(pool.pop(i))
                rates.pop(i)
                remaining -= rate
                break
    return team


def _team(free: list[dict], need: dict[str, float], limit: int) -> list[dict] | None:
    """A small team of ``free`` staff whose rates meet ``need`` (units per hour per domain), or ``None``."""
    if len(need) == 1:
        ((domain, rate),) = need.items()
        return _best_fit(free, domain, rate, limit)
    team: list[dict] = []
    pool = list(free)
    while not _meets(team, need):
        if not pool or len(team) >= limit * len(need):
            return None
        best = max(pool, key=lambda e: (_coverage(team + [e], need), -_strength(e)))
        if _coverage(team + [best], need) <= _coverage(team, need):
            return None
        team.append(best)
        pool.remove(best)
    for e in sorted(team, key=lambda x: (_strength(x), x["name"])):
        rest = [x for x in team if x is not e]
        if rest and _meets(rest, need):
            team = rest
    return team


# the plan ----------------------------------------------------------------------
class _Plan:
    """What the planner has seen, learnt and started, and how it decides."""

    def __init__(self, world: StartupWorld, *, max_concurrent: int, safety_margin: float, max_team: int, pad_teams: bool) -> None:
        self.world = world
        self.max_concurrent = max_concurrent
        self.margin = safety_margin
        self.max_team = max_team
        self.pad_teams = pad_teams
        # Priors from the published rules, corrected by what accepts show.
        self.min_days = 7
        self.qty_per_day = 150.0
        self.reduction = 0.5
        self.blacklist: set[str] = set()
        self.ambiguous: set[str] = set()  # titles shared by two tasks: the lookup may pick the other one
        self.misses: dict[str, int] = {}
        self.running: dict[str, list[str]] = {}  # title -> domains
        self.parked: str | None = None
        self.now = datetime.min
        self.horizon = datetime.max
        self.emps: list[dict] = []
        self.trust: dict[str, float] = {}

    # observing -------------------------------------------------------------
    def refresh(self) -> None:
        """Read the clock, staff and client trust."""
        status = self.world.call("company status")
        self.now = _parse(status["sim_time"])
        self.horizon = _parse(status["horizon_end"])
        self.emps = self.world.call("employee list")["employees"]
        self.trust = {c["name"]: c["trust_level"] for c in self.world.call("client list")["clients"]}

    def observe(self, report: dict) -> None:
        """Learn from a ``sim resume`` report: a task we planned to finish in time that failed marks its client."""
        for ev in report.get("wake_events", []):
            if ev.get("type") != "task_completed":
                continue
            title = ev["task_title"]
            if title == self.parked:  # a parked task finishing late says nothing about its client
                self.parked = None
                self.running.pop(title, None)
                continue
            if self.running.pop(title, None) is not None and not ev["success"]:
                client = ev["client_name"]
                self.misses[client] = self.misses.get(client, 0) + 1
                if self.misses[client] >= 2:
                    self.blacklist.add(client)

    def _learn(self, client: str, listed: dict, qty: dict, hours: float | None) -> None:
        """Correct the work-reduction and deadline beliefs from one accepted task (``hours``: its exact time to the
        deadline; ``None`` when only an estimate was shown, which corrects no deadline belief)."""
        trust = self.trust.get(client, 0.0)
        if trust >= 0.5:
            for d, q in qty.items():
                if q > 200:  # above the floor the cut is exact up to truncation
                    self.reduction = min(self.reduction, max(0.0, (1 - q / listed[d]) * _TRUST_MAX / trust))
        if hours is None:
            return
        days = max(1, round(hours / _DAY_HOURS))
        longest = max(qty.values())
        # Learn only towards shorter deadlines: a belief too short costs some choice, one too long a cancel.
        self.min_days = min(self.min_days, days)
        if days < int(longest / self.qty_per_day):
            self.qty_per_day = longest / days

    # estimating ------------------------------------------------------------
    def expected_qty(self, task: dict) -> dict[str, float]:
        """Work per domain after acceptance, for a client that does not inflate it."""
        cut = self.reduction * self.trust.get(task["client_name"], 0.0) / _TRUST_MAX
        return {r["domain"]: max(200, int(r["required_qty"] * (1 - cut))) for r in task["requirements"]}

    def deadline_hours(self, accepted: dict) -> tuple[float, bool]:
        """Business hours from acceptance to the deadline, as ``task accept`` shows it, and whether that figure is
        exact. A variant world that shows deadlines otherwise (in words) overrides this."""
        return business_hours(_parse(accepted["accepted_at"]), _parse(accepted["deadline"])), True

    def need(self, qty: dict[str, float], hours: float) -> dict[str, float]:
        """Units per hour per domain that finish ``qty`` within ``hours``, with the safety margin."""
        return {d: q / (hours * (1 - self.margin)) for d, q in qty.items()}

    def evaluate(self, task: dict, free: list[dict], hours_left: float) -> tuple[float, list[dict]] | None:
        """Score a task with the team that would do it: reward net of raises per unit of staff capacity used."""
        qty = self.expected_qty(task)
        hours = max(self.min_days, int(max(qty.values()) / self.qty_per_day)) * _DAY_HOURS
        team = _team(free, self.need(qty, hours), self.max_team)
        if team is None:
            return None
        work = max(q / _rate(team, d) for d, q in qty.items())
        if work >= hours_left:
            return None
        months_left = (hours_left - work) / (_DAY_HOURS * 21.75)
        raises = plain_sum(0.01 * e["salary_cents"] for e in team) * months_left
        capacity = plain_sum(_strength(e) for e in team) * work
        return (task["reward_funds_cents"] - raises) / capacity, team

    # acting ----------------------------------------------------------------
    def fill(self) -> None:
        """Start the best feasible tasks while staff are free, then put staff still idle on the tasks just started."""
        parked = self.parked
        free = [e for e in self.emps if not e["active_tasks"] or e["active_tasks"] == [parked]]
        if not free:
            return
        teams: dict[str, list[dict]] = {}
        for e in self.emps:
            for t in e["active_tasks"]:
                if t != parked:
                    teams.setdefault(t, []).append(e)
        active = len(teams)
        listing = self.world.call("market browse", limit=1000)["tasks"]  # everything acceptable, not one page
        market = [t for t in listing if t["client_name"] not in self.blacklist and t["task_id"] not in self.ambiguous]
        hours_left = business_hours(self.now, self.horizon)
        fresh: dict[str, list[dict]] = {}
        while free and market and active < self.max_concurrent:
            best = None
            for task in market:
                option = self.evaluate(task, free, hours_left)
                if option is not None and (best is None or option[0] > best[0]):
                    best = (option[0], task, option[1])
            if best is None:
                break
            _, task, team = best
            market.remove(task)
            if self.parked is not None:
                self._cancel(self.parked, "it was only parked to let time pass")
                self.running.pop(self.parked, None)
                self.parked = None
            started = self.start(task, team, free)
            if started is not None:
                for e in started:
                    free.remove(e)
                active += 1
                fresh[task["task_id"]] = started
        if self.pad_teams:
            self.pad(fresh, [e for e in free if self.parked is None or e["active_tasks"] != [self.parked]])

    def pad(self, teams: dict[str, list[dict]], idle: list[dict]) -> None:
        """Put idle staff on running tasks where they raise the rate most (each gets the skill boost too)."""
        for e in sorted(idle, key=lambda x: (-_strength(x), x["name"])):
            best, gain = None, 1.0
            for title, team in teams.items():
                domains = self.running.get(title, [])
                if not domains or len(team) >= self.max_team * len(domains):
                    continue
                g = min(_rate(team + [e], d) / _rate(team, d) for d in domains)
                if g > gain:
                    best, gain = title, g
            if best is None:
                continue
            try:
                self.world.call("task assign", task_id=best, employees=e["name"])
            except CommandError:
                continue
            teams[best] = teams[best] + [e]

    def start(self, task: dict, team: list[dict], free: list[dict]) -> list[dict] | None:
        """Accept a task, check what acceptance revealed, staff and dispatch it; the team, or ``None``."""
        call = self.world.call
        title = task["task_id"]
        try:
            accepted = call("task accept", task_id=title)
        except CommandError:
            return None
        seen = call("task inspect", task_id=title)
        listed = {r["domain"]: r["required_qty"] for r in task["requirements"]}
        qty = {r["domain"]: r["required_qty"] for r in seen["requirements"]}
        if (seen["status"], seen["client_name"], seen["reward_funds_cents"], set(qty)) != (
                "planned", task["client_name"], task["reward_funds_cents"], set(listed)):
            # Another task shares the title, so this one cannot be addressed; left planned it costs nothing.
            self.ambiguous.add(title)
            return None
        if any(qty[d] > 1.5 * listed[d] for d in qty):
            # Scope creep: an adversarial client. Cancelling now costs no cash; carrying it costs a failure.
            self.blacklist.add(task["client_name"])
            self._cancel(title, "the scope grew after acceptance")
            return None
        hours, exact = self.deadline_hours(accepted)
        self._learn(task["client_name"], listed, qty, hours if exact else None)
        need = self.need(qty, hours)
        if not _meets(team, need):
            staffed = _team(free, need, self.max_team)
            if staffed is None:
                self._cancel(title, "no team can finish it before the deadline")
                return None
            team = staffed
        try:
            call("task assign", task_id=title, employees=",".join(e["name"] for e in team))
            call("task dispatch", task_id=title)
        except CommandError:
            self._cancel(title, "it could not be staffed")
            return None
        self.running[title] = list(qty)
        return team

    def park(self) -> None:
        """Let time pass when nothing worth doing fits: one slow employee on a task too big to matter.

        ``sim resume`` needs an active task. The parked task is cancelled as soon as real work can start;
        cancelling costs 1.5 times its prestige delta, so the smallest delta is chosen, and a blacklisted
        client's task first (that trust is worth nothing).
        """
        free = [e for e in self.emps if not e["active_tasks"]]
        listing = self.world.call("market browse", limit=1000)["tasks"]
        if not free or not listing:
            return
        task = min(listing, key=lambda t: (t["client_name"] not in self.blacklist, t["reward_prestige_delta"],
                                            -max(r["required_qty"] for r in t["requirements"]), t["task_id"]))
        domains = [r["domain"] for r in task["requirements"]]
        slowest = min(free, key=lambda e: (max(e["skill_rates"][d] for d in domains), e["name"]))
        title = task["task_id"]
        try:
            self.world.call("task accept", task_id=title)
            self.world.call("task assign", task_id=title, employees=slowest["name"])
            self.world.call("task dispatch", task_id=title)
        except CommandError:
            return
        self.parked = title
        self.running[title] = domains

    def _cancel(self, title: str, reason: str) -> None:
        try:
            self.world.call("task cancel", task_id=title, reason=reason)
        except CommandError:
            pass  # cancel refused (preset ``reference``): the task runs on


def planner(world: StartupWorld, max_concurrent: int = 3, safety_margin: float = 0.04, max_team: int = 4,
            pad_teams: bool = True) -> Process:
    """A strong reference agent: plans the startup year from what the commands show, and nothing else.

    At every stop it reads ``company status``, ``employee list`` and ``client list``, browses the whole
    market, and starts the best tasks while staff are free:

    * Work and deadline. A task's work after acceptance is the listed quantity cut by the client's trust
      (up to half at trust 5); its deadline is max(7, work/150) business days of 9 hours from acceptance.
      Both beliefs start from the published rules and are corrected from what ``task accept`` and
      ``task inspect`` show, only ever towards shorter deadlines and smaller cuts.
    * Staffing. The team is the fewest free employees whose rates finish the work before the deadline (less
      the safety margin), counting only the best four per domain; each member is the weakest that still lets
      the team get there, so the strong stay free for harder work. Everyone works on one task at a time,
      so no rate is ever split.
    * Choice. Tasks are ranked by reward, net of the raises the team will draw for the rest of the year, per
      unit of staff capacity used (each member's best rate times the hours of work). Tasks that cannot finish
      before the horizon are skipped.
    * Adversarial clients. Right after ``task accept``, ``task inspect`` shows the real work: a jump beyond the
      listing (fourfold for these clients) marks the client; the task is cancelled at once (no cash lost) and
      the client's tasks are never taken again. Two failures of tasks planned to finish in time do the same.
    * Padding. Staff still idle join the tasks just started (up to four per domain): those finish sooner, and
      every member gets the skill boost, which compounds.
    * Waiting. When nothing fits, one slow employee is parked on a task too big to finish, so that
      ``sim resume`` can let time pass; the parked task is cancelled once real work can start.

    Args:
        world: the startup world (only ``call``, ``advance`` and ``done`` are used).
        max_concurrent: at most this many tasks active at once. Fewer, fuller teams win on ``default``: more
            employees share each success's skill boost.
        safety_margin: plan each team to finish this fraction of the time to the deadline early (employee
            rates are shown rounded to two decimals).
        max_team: at most this many employees per task and domain; only the best four contribute.
        pad_teams: put employees left idle on the tasks just started.

    Returns:
        The agent's SimPy process generator.

    Raises:
        ConfigError: an option is out of range.

    >>> from bizsim.runs import run_episode
    >>> result = run_episode("startup", "default", "planner", seed=1)
    >>> result.terminal_reason, result.tasks_failed, result.final_funds_cents > 100_000_000
    ('horizon_end', 0, True)
    """
    _check_options(max_concurrent, safety_margin, max_team, pad_teams)
    plan = _Plan(world, max_concurrent=int(max_concurrent), safety_margin=float(safety_margin),
                 max_team=int(max_team), pad_teams=pad_teams)
    return _play(world, plan)


def _check_options(max_concurrent: int, safety_margin: float, max_team: int, pad_teams: bool) -> None:
    if int(max_concurrent) < 1:
        raise ConfigError(f"max_concurrent(={max_concurrent}) must be >= 1")
    if not 0.0 <= float(safety_margin) < 1.0:
        raise ConfigError(f"safety_margin(={safety_margin}) must be in [0, 1)")
    if int(max_team) < 1:
        raise ConfigError(f"max_team(={max_team}) must be >= 1")
    if not isinstance(pad_teams, bool):
        raise ConfigError(f"pad_teams(={pad_teams!r}) must be true or false")


planner = agent(planner, check=_check_options)


def _play(world: StartupWorld, plan: _Plan, *, before_turn: Callable[[], None] | None = None,
          on_report: Callable[[dict], None] | None = None) -> Process:
    """The plan's loop; a variant world's planner adds its own step before each turn and after each report."""
    while not world.done:
        if before_turn is not None:
            before_turn()
        plan.refresh()
        plan.fill()
        if not plan.running:
            plan.park()
        if not plan.running:
            return
        report = yield world.advance()
        if "error" in report:
            return
        plan.observe(report)
        if on_report is not None:
            on_report(report)
