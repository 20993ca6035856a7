"""Reports on a startup world: state, invariants, monthly figures, summary, observation."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from .world import StartupWorld

__all__ = ["state", "invariants", "month_end_funds", "summary", "monthly_figures", "observation"]


def state(world: StartupWorld) -> dict:
    """Complete state as JSON-able data."""
    return {
        "time": world.now_iso,
        "status": world.status.value,
        "funds_cents": world.funds_cents,
        "ledger": [(e.t_us, e.category, e.amount_cents, e.ref) for e in world.ledger],
        "prestige": {d: str(v) for d, v in world.prestige.items()},
        "clients": [(c.name, str(c.trust)) for c in world.clients],
        "employees": [(e.name, e.salary_cents, {d: str(r) for d, r in e.rates.items()}, e.active_tasks) for e in world.employees],
        "tasks": [
            (t.uid, t.title, t.status, t.client.name, t.reward_cents, dict(t.required),
             {d: str(c) for d, c in t.completed.items()}, t.accepted_at, t.deadline, t.completed_at,
             [e.name for e in t.assignees], t.milestone_pct)
            for t in world.tasks
        ],
        "market": [t.uid for t in world.market],
        "scratchpad": world.scratchpad,
    }

def invariants(world: StartupWorld) -> list[str]:
    """Broken rules, described (empty when the state is sound)."""
    bad = []
    cfg = world.config
    if not world.ledger.balanced():
        bad.append("funds differ from initial funds plus the ledger")
    for d, p in world.prestige.items():
        if not cfg.prestige_min <= p <= cfg.prestige_max:
            bad.append(f"prestige {d}={p} outside [{cfg.prestige_min}, {cfg.prestige_max}]")
    for c in world.clients:
        if not 0 <= c.trust <= cfg.trust_max:
            bad.append(f"trust {c.name}={c.trust} outside [0, {cfg.trust_max}]")
    for t in world.tasks:
        for d, q in t.required.items():
            if t.completed[d] < 0 or t.completed[d] > q:
                bad.append(f"{t.title} {d} completed {t.completed[d]} outside [0, {q}]")
    for e in world.employees:
        n = sum(1 for t in world.active if e in t.assignees)
        if n != e.active_tasks:
            bad.append(f"{e.name} counts {e.active_tasks} active tasks, holds {n}")
        if e.salary_cents < 0:
            bad.append(f"{e.name} salary negative")
    if len(world.market) != cfg.num_market_tasks:
        bad.append(f"market holds {len(world.market)} tasks, not {cfg.num_market_tasks}")
    if any(t.market_key != (-t.reward_cents, t.serial) for t in world.market):
        bad.append("a market task's ordering key no longer matches its reward")
    by_level = sorted((t for tasks in world.market_levels.values() for t in tasks), key=lambda t: (-t.reward_cents, t.serial))
    if by_level != world.market:
        bad.append("the market split by prestige level does not hold the market's tasks")
    return bad

def month_end_funds(world: StartupWorld) -> dict[str, int]:
    """Funds after every ledger entry of each month, from the first month to now."""
    cal = world.calendar
    out: dict[str, int] = {}
    start, now = cal.to_datetime(0), cal.to_datetime(world.now_us)
    y, m = start.year, start.month
    funds = world.ledger.initial_cents
    entries = iter(world.ledger.entries)
    pending = next(entries, None)
    while (y, m) <= (now.year, now.month):
        nxt = datetime(y + 1, 1, 1) if m == 12 else datetime(y, m + 1, 1)
        limit = cal.to_us(nxt)
        while pending is not None and pending.t_us < limit:
            funds += pending.amount_cents
            pending = next(entries, None)
        out[f"{y:04d}-{m:02d}"] = funds
        y, m = nxt.year, nxt.month
    return out

def summary(world: StartupWorld) -> dict:
    """The episode's headline figures."""
    return {
        "final_funds_cents": world.funds_cents,
        "month_end_funds_cents": world.month_end_funds(),
        "tasks_succeeded": world.count("completed_success"),
        "tasks_failed": world.count("completed_fail"),
        "tasks_cancelled": world.count("cancelled"),
        "metric": "final_funds_cents",
        "metric_value": world.funds_cents,
    }

def monthly_figures(world: StartupWorld) -> list[dict]:
    """Revenue, cost, return and ending funds for every month so far."""
    cal = world.calendar
    start, now = cal.to_datetime(0), cal.to_datetime(world.now_us)
    y, m = start.year, start.month
    funds = world.ledger.initial_cents
    # Entries are booked in time order: one walk over them, month boundary by month boundary.
    entries = iter(world.ledger.entries)
    pending = next(entries, None)
    rows = []
    while (y, m) <= (now.year, now.month):
        nxt = datetime(y + 1, 1, 1) if m == 12 else datetime(y, m + 1, 1)
        limit = cal.to_us(nxt)
        revenue = cost = 0
        while pending is not None and pending.t_us < limit:
            if pending.amount_cents >= 0:
                revenue += pending.amount_cents
            else:
                cost -= pending.amount_cents
            pending = next(entries, None)
        funds += revenue - cost
        rows.append({"month_start": f"{y:04d}-{m:02d}-01", "revenue_cents": revenue, "cost_cents": cost,
                     "return_cents": revenue - cost, "ending_funds_cents": funds})
        y, m = nxt.year, nxt.month
    return rows


def observation(world: StartupWorld) -> dict:
    """The status summary an agent sees each turn."""
    payroll = world.monthly_payroll_cents
    return {
        "sim_time": world.now_iso,
        "horizon_end": world.calendar.iso(world.horizon_us),
        "funds_cents": world.funds_cents,
        "monthly_payroll_cents": payroll,
        "runway_months": round(world.funds_cents / payroll, 1) if payroll > 0 else None,
        "employees": len(world.employees),
        "active_tasks": len(world.active),
        "planned_tasks": world.count("planned"),
        "bankrupt": world.funds_cents < 0,
        "status": world.status.value,
    }
