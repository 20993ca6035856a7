"""The startup world's extra facts: how every task the agent took was staffed, clients, income.

At the end of each agent turn (the instant before time may move, when the
staffing for the coming interval is final) the probe looks at every active
task. The first look is the turn the task was dispatched in; it records the
team's undivided speed against the deadline and how well the team's skills
fit the task. Every look updates the largest number of active tasks any
assignee was split across. ``finish`` turns that into one ``task`` event per
task taken (the field meanings are documented in ``analysis.metrics``).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from ._extract import compact_json

__all__ = ["StartupExtractor", "business_hours"]

_TOP = 4  # only the best four contributions per task-domain count (specs/startup.md §10.1)
_MONDAY_ORDINAL = date(1970, 1, 5).toordinal()


def _hours_since_monday(cal: Any, t_us: int) -> float:
    """Business hours from the Monday midnight before 1970-01-05 (a Monday) to ``t_us``, in O(1)."""
    dt = cal.to_datetime(t_us)
    days = dt.toordinal() - _MONDAY_ORDINAL
    weeks, weekday = divmod(days, 7)
    span = cal.close_hour - cal.open_hour
    hour = dt.hour + dt.minute / 60 + (dt.second + dt.microsecond / 1e6) / 3600
    today = min(max(hour - cal.open_hour, 0.0), span) if weekday < 5 else 0.0
    return (weeks * 5 + min(weekday, 5)) * span + today


def business_hours(cal: Any, t0_us: int, t1_us: int) -> float:
    """Business hours from ``t0`` to ``t1`` (negative when ``t1`` is earlier): the calendar's count, in O(1).

    Equal to ``cal.business_hours_between`` (open to close, Monday to Friday), which walks day by day.
    """
    return _hours_since_monday(cal, t1_us) - _hours_since_monday(cal, t0_us)


def _staffing(world: Any, task: Any) -> dict:
    """The team as dispatched: hours it needs undivided, hours left to the deadline, skill fit."""
    from bizsim.models.startup.state import DOMAINS

    team = task.assignees
    rates = [{d: float(r) for d, r in e.rates.items()} for e in team]
    needed: float | None = 0.0
    for d, req in task.required.items():
        remaining = float(req) - float(task.completed[d])
        if remaining <= 0:
            continue
        rate = sum(sorted((r[d] for r in rates), reverse=True)[:_TOP])
        if rate <= 0:
            needed = None
            break
        needed = max(needed, remaining / rate)
    now, deadline = world.now_us, task.deadline
    available = business_hours(world.calendar, now, deadline)
    match = None
    if team:
        in_task = sum(r[d] for r in rates for d in task.required) / (len(team) * len(task.required))
        overall = sum(r[d] for r in rates for d in DOMAINS) / (len(team) * len(DOMAINS))
        match = in_task / overall if overall > 0 else None
    return {
        "dispatched_t_us": now,
        "team_size": len(team),
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
                self._first[uid] = _staffing(world, task)
                self._watch[uid] = task
            split = max((e.active_tasks for e in task.assignees), default=0)
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
        share = sum(1 for t in world.tasks if t.client.adversarial) / len(world.tasks) if world.tasks else None
        columns = {
            "income_cents": income,
            "adversarial_clients": ",".join(adversarial),
            "adversarial_market_share": share,
            "final_funds_cents": world.funds_cents,
        }
        series = [("final_trust", i, c.name, float(c.trust)) for i, c in enumerate(world.clients_by_name)]
        series += [("final_prestige", i, d, float(p)) for i, (d, p) in enumerate(world.prestige.items())]
        for i, m in enumerate(world.monthly_figures()):
            key = m["month_start"][:7]
            series.append(("month_revenue_cents", i, key, float(m["revenue_cents"])))
            series.append(("month_cost_cents", i, key, float(m["cost_cents"])))
        return columns, series, rows
