"""The startup world's extra facts: how every task the agent took was staffed, clients, income.

At the end of each agent turn (the instant before time may move, when the
staffing for the coming interval is final) the probe looks at every active
task. The first look is the turn the task was dispatched in; it records the
team's undivided speed against the deadline and how well the team's skills
fit the task. Every look updates the largest number of active tasks any
assignee was split across. ``finish`` turns that into one ``task`` event per
task taken (the field meanings are documented in ``analysis.startup_metrics``).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from operator import attrgetter, itemgetter
from typing import Any

from bizsim.runs._extract import compact_json
from bizsim.models.startup.state import DOMAINS
from bizsim.simcore.summation import plain_sum

__all__ = ["StartupExtractor", "business_hours"]

_TOP = 4  # only the best four contributions per task-domain count (specs/startup.md §10.1)
_MONDAY = datetime(1970, 1, 5)
_ONE_US = timedelta(microseconds=1)
_US_PER_MINUTE = 60_000_000
_US_PER_HOUR = 60 * _US_PER_MINUTE
_US_PER_DAY = 24 * _US_PER_HOUR
#: calendar start -> microseconds from ``_MONDAY`` to it
_OFFSETS: dict[datetime, int] = {}
_WIDTH = len(DOMAINS)
_INDEX = {d: i for i, d in enumerate(DOMAINS)}
_RATES = itemgetter(*DOMAINS)  # an employee's rates in domain order (a tuple: there are several domains)
_ACTIVE_TASKS = attrgetter("active_tasks")
_CLIENT = attrgetter("client")


def _hours_since_monday(cal: Any, t_us: int) -> float:
    """Business hours from the Monday midnight before 1970-01-05 (a Monday) to ``t_us``, in O(1)."""
    # The instant's fields by integer division: what ``cal.to_datetime(t_us)`` holds, without building it.
    start = cal.start
    offset = _OFFSETS.get(start)
    if offset is None:
        offset = _OFFSETS[start] = (start - _MONDAY) // _ONE_US
    days, us = divmod(offset + t_us, _US_PER_DAY)
    weeks, weekday = divmod(days, 7)
    span = cal.close_hour - cal.open_hour
    if weekday < 5:
        hours, us = divmod(us, _US_PER_HOUR)
        minutes, us = divmod(us, _US_PER_MINUTE)
        seconds, us = divmod(us, 1_000_000)
        hour = hours + minutes / 60 + (seconds + us / 1e6) / 3600
        today = min(max(hour - cal.open_hour, 0.0), span)
    else:
        today = 0.0
    return (weeks * 5 + min(weekday, 5)) * span + today


def business_hours(cal: Any, t0_us: int, t1_us: int) -> float:
    """Business hours from ``t0`` to ``t1`` (negative when ``t1`` is earlier): the calendar's count, in O(1).

    Equal to ``cal.business_hours_between`` (open to close, Monday to Friday), which walks day by day.
    """
    return _hours_since_monday(cal, t1_us) - _hours_since_monday(cal, t0_us)


def _team_floats(team: list, cache: dict) -> list[float]:
    """The team's skill rates as floats, assignee-major and domain-minor.

    ``float`` of a Decimal goes through text, so each employee's conversion is
    kept until one of their rates changes (compared by value).
    """
    flat: list[float] = []
    for e in team:
        rates = _RATES(e.rates)
        hit = cache.get(e)
        if hit is None or hit[0] != rates:
            hit = cache[e] = (rates, tuple(map(float, rates)))
        flat.extend(hit[1])
    return flat


def _staffing(world: Any, task: Any, cache: dict) -> dict:
    """The team as dispatched: hours it needs undivided, hours left to the deadline, skill fit.

    Every sum adds the same floats in the same order as the plain definition
    (per assignee, then per domain), left to right on every Python version,
    so the rounded figures never change.
    """
    team = task.assignees
    n = len(team)
    # Assignee-major, domain-minor: column ``i`` of domain ``DOMAINS[i]`` is ``flat[i::_WIDTH]``.
    flat = _team_floats(team, cache)
    required = task.required
    completed = task.completed
    longest = 0.0
    needed: float | None = None  # stays None when some required domain has no one to work on it
    for d, req in required.items():
        remaining = float(req) - float(completed[d])
        if remaining <= 0:
            continue
        column = flat[_INDEX[d]::_WIDTH]
        column.sort(reverse=True)
        rate = plain_sum(column[:_TOP])
        if rate <= 0:
            break
        longest = max(longest, remaining / rate)
    else:
        needed = longest
    now = world.now_us
    available = business_hours(world.calendar, now, task.deadline)
    match = None
    if team:
        idx = [_INDEX[d] for d in required]
        in_task = plain_sum([flat[row + i] for row in range(0, n * _WIDTH, _WIDTH) for i in idx]) / (n * len(required))
        overall = plain_sum(flat) / (n * _WIDTH)
        match = in_task / overall if overall > 0 else None
    return {
        "dispatched_t_us": now,
        "team_size": n,
        "hours_needed": None if needed is None else round(needed, 4),
        "hours_available": round(available, 4),
        "match_ratio": None if match is None else round(match, 4),
    }


class StartupExtractor:
    """Watches the startup world's tasks turn by turn; adds task rows, clients and income."""

    def __init__(self) -> None:
        self._first: dict[str, dict] = {}
        self._split: dict[str, int] = {}
        self._ended: dict[str, int] = {}
        self._watch: dict[str, Any] = {}
        self._floats: dict = {}  # employee -> (rates, their floats), for this run

    def probe(self, world: Any) -> None:
        """Look at the active tasks at the end of the agent's turn."""
        for uid, task in list(self._watch.items()):
            if task.status == "cancelled" and uid not in self._ended:
                self._ended[uid] = world.now_us
                del self._watch[uid]
            elif task.status != "active":
                del self._watch[uid]
        for task in world.active:
            uid = task.uid
            if uid not in self._first:
                self._first[uid] = _staffing(world, task, self._floats)
                self._watch[uid] = task
            split = max(map(_ACTIVE_TASKS, task.assignees), default=0)
            if split > self._split.get(uid, 0):
                self._split[uid] = split

    def finish(self, world: Any) -> tuple[dict, list[tuple], list[tuple]]:
        """Run columns, series and task events of the finished run."""
        self.probe(world)
        rows = []
        for task in world.tasks:
            if task.accepted_at is None:
                continue
            first = self._first.get(task.uid)
            end = task.completed_at if task.completed_at is not None else self._ended.get(task.uid)
            data = {
                "adversarial": bool(task.client.adversarial),
                "accepted_t_us": task.accepted_at,
                "deadline_t_us": task.deadline,
                "end_t_us": end,
                "observed": first is not None,
                "dispatched_t_us": None, "team_size": len(task.assignees), "hours_needed": None,
                "hours_available": None, "match_ratio": None,
                "max_split": self._split.get(task.uid, 0),
                "domains": ",".join(task.required),
                "required_qty": int(sum(task.required.values())),
                "required_trust": int(task.required_trust),
                "required_prestige": int(task.required_prestige),
            }
            if first is not None:
                data.update(first)
            listed = task.advertised_reward_cents or task.reward_cents
            rows.append((
                task.accepted_at, "task", task.status, task.success, task.title, task.client.name, float(listed),
                compact_json(data),
            ))
        income = sum(e.amount_cents for e in world.ledger.entries if e.category == "task_reward" and e.amount_cents > 0)
        adversarial = sorted(c.name for c in world.clients if c.adversarial)
        share = None
        # The initial market only: every accepted task is replaced from its own client, so counting replacements
        # would move the share towards the agent's own choices.
        market = world.tasks[:world.config.num_market_tasks]
        if market:
            per_client = Counter(map(_CLIENT, market))
            share = sum(n for c, n in per_client.items() if c.adversarial) / len(market)
        columns = {
            "income_cents": income,
            "adversarial_clients": ",".join(adversarial),
            "adversarial_market_share": share,
            "final_funds_cents": world.funds_cents,
            # YC-Bench's leaderboard averages final funds with a bankrupt run counted as 0.
            "leaderboard_funds_cents": 0 if world.funds_cents < 0 else world.funds_cents,
            # The agent's notes as they ended (bounded by the scratchpad commands' limit): its client policy,
            # which the paper's Figure 4(b) classifies.
            "final_scratchpad": world.scratchpad,
        }
        series = [("final_trust", i, c.name, float(c.trust)) for i, c in enumerate(world.clients_by_name)]
        series += [("final_prestige", i, d, float(p)) for i, (d, p) in enumerate(world.prestige.items())]
        for i, m in enumerate(world.monthly_figures()):
            key = m["month_start"][:7]
            series.append(("month_revenue_cents", i, key, float(m["revenue_cents"])))
            series.append(("month_cost_cents", i, key, float(m["cost_cents"])))
        return columns, series, rows
