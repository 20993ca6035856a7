"""The ``time_series`` a YC-Bench results file carries, built from a startup world at the end of its run.

The reference harness (``runner/extract.py`` at ``6b33452``) fills it from its database when a run ends, and its
plot scripts read nothing else: ``funds``, ``ledger``, ``tasks`` (with ``success`` and ``required_trust``),
``prestige`` and ``client_trust``, ``employees``, ``assignments``, ``clients``, ``scratchpad`` and ``config``. Each
is written here as the reference writes it, so that its scripts draw the same lines from either file:

- ``funds`` starts at the first movement of money (not at the start of the run) with the initial funds, then one
  point after each movement; a run in which no money moved has no points.
- ``prestige`` and ``client_trust`` are the reference's *reconstructions*, not the world's own figures: they
  start at the first completed task (every domain at the initial prestige, every client at trust 0), and walk
  the completed tasks in order, applying each task's prestige delta or trust gain and the daily decay between
  completions. Decay between completions without a task (or a salary bump's effect on nothing) is therefore
  not in them, exactly as in the reference's files.
- lists the reference reads from its database in a fixed order keep that order: tasks and assignments by
  acceptance (ties in the order the tasks were created), completions by completion time, trust by client name, a
  task's domains and an employee's skill rates by domain name, employees as generated. Two lists the reference
  reads in the order of its random ids (``clients``, and each assignment's ``employees_assigned``) are written in
  generation and assignment order: the same members, in an order of their own.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RECORDED_SETTINGS", "time_series"]

#: The settings the reference records with its results (``time_series.config``), by their names in both.
RECORDED_SETTINGS = (
    "num_employees", "num_clients", "initial_funds_cents", "salary_bump_pct", "trust_build_rate",
    "trust_gating_fraction", "trust_gated_reward_boost", "trust_work_reduction_max", "loyalty_rat_fraction",
    "loyalty_severity", "penalty_fail_funds_pct", "deadline_min_biz_days", "deadline_qty_per_day",
    "prestige_decay_per_day", "reward_prestige_scale", "skill_rate_max", "market_browse_default_limit",
)

_DONE = ("completed_success", "completed_fail")
#: The reference's floor on trust (its `trust_min`, 0.0 in every configuration it ships; bizsim has no setting).
_TRUST_MIN = 0.0


def time_series(world: Any) -> dict[str, Any]:
    """The reference's ``time_series`` for a startup world whose run has ended (its last episode)."""
    from bizsim.simcore.config import config_to_dict

    iso = world.calendar.iso
    owned = sorted((t for t in world.tasks if t.status != "market"),
                   key=lambda t: (t.accepted_at is not None, t.accepted_at or 0, t.serial))
    done = sorted((t for t in world.tasks if t.completed_at is not None and t.status in _DONE),
                  key=lambda t: (t.completed_at, t.serial))
    settings = config_to_dict(world.config)
    return {
        "funds": _funds(world, iso),
        "prestige": _prestige(world, done, iso),
        "tasks": [_task(t, iso) for t in owned],
        "ledger": [{"time": iso(e.t_us), "category": e.category, "amount_cents": e.amount_cents} for e in world.ledger],
        "client_trust": _trust(world, done, iso),
        "employees": [{"name": e.name, "tier": e.tier, "salary_cents": e.salary_cents,
                       "skill_rates": {d: round(float(e.rates[d]), 4) for d in sorted(e.rates)}} for e in world.employees],
        "assignments": [{"task_title": t.title, "status": t.status, "employees_assigned": [e.name for e in t.assignees],
                         "num_assigned": len(t.assignees), "accepted_at": _when(t.accepted_at, iso),
                         "completed_at": _when(t.completed_at, iso), "success": t.success} for t in owned],
        "clients": [{"name": c.name, "loyalty": round(float(c.loyalty), 4), "is_rat": c.loyalty < -0.3, "tier": c.tier,
                     "specialty_domains": list(c.specialties or []), "final_trust": round(float(c.trust), 4)}
                    for c in world.clients],
        "scratchpad": world.scratchpad or None,
        "config": {k: settings[k] for k in RECORDED_SETTINGS if k in settings},
    }


def _when(t_us: int | None, iso: Any) -> str | None:
    return None if t_us is None else iso(t_us)


def _funds(world: Any, iso: Any) -> list[dict[str, Any]]:
    entries = list(world.ledger)
    if not entries:
        return []
    funds = world.ledger.initial_cents
    points = [{"time": iso(entries[0].t_us), "funds_cents": funds, "event": "start"}]
    for e in entries:
        funds += e.amount_cents
        points.append({"time": iso(e.t_us), "funds_cents": funds, "event": e.category})
    return points


def _task(t: Any, iso: Any) -> dict[str, Any]:
    delta = float(t.delta)
    return {
        "task_id": t.uid, "title": t.title, "client_name": t.client.name if t.client is not None else None,
        "required_prestige": int(t.required_prestige), "required_trust": int(t.required_trust or 0),
        "reward_funds_cents": int(t.reward_cents),
        "advertised_reward_cents": int(t.advertised_reward_cents or t.reward_cents),
        "reward_prestige_delta": delta if delta else 0.0, "status": t.status,
        "accepted_at": _when(t.accepted_at, iso), "deadline": _when(t.deadline, iso),
        "completed_at": _when(t.completed_at, iso), "domains": sorted(t.required), "success": t.success,
    }


def _days(later: int, earlier: int) -> float:
    # As the reference measures: whole microseconds to seconds, then days.
    return (later - earlier) / 10**6 / 86_400


def _prestige(world: Any, done: list, iso: Any) -> list[dict[str, Any]]:
    cfg = world.config
    domains = sorted(world.prestige)
    if not done:
        return []
    level = dict.fromkeys(domains, float(cfg.initial_prestige_level))
    first = done[0].completed_at
    points = [{"time": iso(first), "domain": d, "level": round(level[d], 4)} for d in domains]
    last = first
    for t in done:
        if t.completed_at > last:
            decay = cfg.prestige_decay_per_day * _days(t.completed_at, last)
            for d in domains:
                level[d] = max(cfg.prestige_min, level[d] - decay)
        delta = float(t.delta)
        for d in sorted(t.required):
            if t.status == "completed_success":
                level[d] = min(cfg.prestige_max, level[d] + delta)
            else:
                level[d] = max(cfg.prestige_min, level[d] - cfg.penalty_fail_multiplier * delta)
            points.append({"time": iso(t.completed_at), "domain": d, "level": round(level[d], 4)})
        last = t.completed_at
    return points


def _trust(world: Any, done: list, iso: Any) -> list[dict[str, Any]]:
    cfg = world.config
    clients = world.clients_by_name
    done = [t for t in done if t.client is not None]
    if not done:
        return []
    level = {c.name: 0.0 for c in clients}
    first = done[0].completed_at
    points = [{"time": iso(first), "client_name": c.name, "trust_level": 0.0, "loyalty": c.loyalty} for c in clients]
    last = first
    for t in done:
        name = t.client.name
        if t.completed_at > last:
            decay = cfg.trust_decay_per_day * _days(t.completed_at, last)
            level = {k: max(_TRUST_MIN, v - decay) for k, v in level.items()}
        if t.status == "completed_success":
            gain = cfg.trust_gain_base * ((1 - level[name] / cfg.trust_max) ** cfg.trust_gain_diminishing_power)
            level[name] = min(cfg.trust_max, level[name] + gain)
        else:
            level[name] = max(_TRUST_MIN, level[name] - cfg.trust_fail_penalty)
        points.append({"time": iso(t.completed_at), "client_name": name, "trust_level": round(level[name], 4),
                       "loyalty": t.client.loyalty})
        last = t.completed_at
    return points
