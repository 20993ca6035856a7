"""Outcomes: what finishing or cancelling a task does to money, prestige, trust and staff."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from .state import Client, Task, q3, q4
from .work import TOP_CONTRIBUTORS

if TYPE_CHECKING:
    from .world import StartupWorld

__all__ = ["complete_task", "judge_trust", "cancel_task"]


def complete_task(world: StartupWorld, task: Task) -> dict:
    """Judge a finished task: pay or penalise, move prestige and trust, train and raise the team.

    Returns the ``task_completed`` wake event.
    """
    cfg, now = world.config, world.now_us
    for d, req in task.required.items():
        task.completed[d] = Decimal(req)
    task.completed_at = now
    deadline = task.deadline
    assert deadline is not None  # a completing task was accepted, which set its deadline
    success = now <= deadline
    world.deactivate(task)
    funds_delta = 0
    raises = 0
    if success:
        world.set_task_status(task, "completed_success")
        task.success = True
        funds_delta = task.reward_cents
        world.ledger.post(now, "task_reward", task.reward_cents, task.uid)
        cap = Decimal(str(cfg.prestige_max))
        for d in task.required:
            world.prestige_dirty.add(d)
            world.prestige[d] = min(cap, world.prestige[d] + Decimal(str(float(task.delta))))
        if task.boost > 0:
            factor = Decimal(str(float(task.boost)))
            rate_cap = Decimal(str(cfg.skill_rate_max))
            for d in task.required:
                ranked = sorted(task.assignees, key=lambda e: e.rates[d], reverse=True)
                for e in ranked[:TOP_CONTRIBUTORS]:
                    # Stored, then read back rounded by the re-solve below (the reference's 4-decimal column).
                    e.rates[d] = q4(min(e.rates[d] + e.rates[d] * factor, rate_cap))
        if cfg.salary_bump_pct > 0:
            bumps = world.salary_bumps
            top = cfg.salary_max_cents
            for e in task.assignees:
                if e.salary_cents < top:
                    new = min(top, e.salary_cents + bumps[e.tier])
                    raises += new - e.salary_cents
                    e.salary_cents = new
    else:
        world.set_task_status(task, "completed_fail")
        task.success = False
        penalty = Decimal(str(cfg.penalty_fail_multiplier)) * task.delta
        floor = Decimal(str(cfg.prestige_min))
        for d in task.required:
            world.prestige_dirty.add(d)
            world.prestige[d] = q3(max(floor, world.prestige[d] - penalty))  # stored, read back at 3 dp
        if cfg.penalty_fail_funds_pct > 0:
            advertised = task.advertised_reward_cents or task.reward_cents
            cents = int(advertised * cfg.penalty_fail_funds_pct)
            funds_delta = -cents
            category = "task_reward" if cfg.reference_outputs else "task_fail_penalty"
            world.ledger.post(now, category, -cents, task.uid)
    trust_delta = judge_trust(world, task.client, success)
    world.resolve_etas()
    if cfg.reference_outputs:
        bump_report = sum(int(e.salary_cents * cfg.salary_bump_pct) for e in task.assignees) if success else 0
    else:
        bump_report = raises
    hours = (deadline - now) / 3_600_000_000
    return {
        "type": "task_completed",
        "task_id": task.uid,
        "task_title": task.title,
        "client_name": task.client.name,
        "success": success,
        "funds_delta": funds_delta,
        "listed_reward": task.advertised_reward_cents or task.reward_cents,
        "trust_delta": trust_delta,
        "deadline_margin": f"{'ahead by' if hours >= 0 else 'late by'} {abs(hours):.0f}h",
        "employees_assigned": len(task.assignees),
        "salary_bump_total_cents": bump_report,
        "bankrupt": world.funds_cents < 0,
    }


def judge_trust(world: StartupWorld, client: Client, success: bool) -> float:
    """Trust after an outcome with ``client``, and the erosion of every other client's.

    Returns the change of ``client``'s trust.
    """
    cfg = world.config
    old = float(client.trust)
    if success:
        gain = cfg.trust_gain_base * ((1 - old / cfg.trust_max) ** cfg.trust_gain_diminishing_power)
        new = min(cfg.trust_max, old + gain)
    else:
        new = max(0.0, old - cfg.trust_fail_penalty)
    client.trust = q3(new)
    erosion = cfg.trust_cross_client_decay
    if erosion > 0:
        for other in world.clients:
            if other is not client:
                level = float(other.trust)
                if level > 0.0:
                    other.trust = q3(max(0.0, level - erosion))
    return new - old


def cancel_task(world: StartupWorld, task: Task) -> dict:
    """Drop a planned or active task: prestige and trust penalties, no cash."""
    cfg = world.config
    penalty = Decimal(str(cfg.penalty_cancel_multiplier)) * task.delta
    old_trust = float(task.client.trust)
    new_trust = max(0.0, old_trust - cfg.trust_cancel_penalty)
    task.client.trust = q3(new_trust)
    changes = {}
    floor = Decimal(str(cfg.prestige_min))
    for d in task.required:
        old = world.prestige[d]
        new = q3(max(floor, old - penalty))  # stored, read back at 3 dp
        world.prestige_dirty.add(d)
        world.prestige[d] = new
        changes[d] = {"old": float(old), "new": float(new), "delta": float(old - new)}
    was_active = task.status == "active"
    world.set_task_status(task, "cancelled")
    if was_active:
        world.deactivate(task)
        team = set(task.assignees)
        world.resolve_etas([t for t in world.active if team.intersection(t.assignees)])
    return {"penalty": float(penalty), "prestige_changes": changes, "trust_delta": new_trust - old_trust}
