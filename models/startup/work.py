"""Work: effective team rates and the instants at which work completes."""

from __future__ import annotations

from decimal import Decimal

from bizsim.simcore import Calendar

from .state import Task

__all__ = ["effective_rates", "completion_time", "milestone_time", "TOP_CONTRIBUTORS"]

#: Per task and domain only the best four contributions count (the reference's rule).
TOP_CONTRIBUTORS = 4
_ZERO = Decimal(0)


def effective_rates(task: Task) -> dict[str, Decimal]:
    """Units per business hour per domain: the best four split contributions.

    An employee on k active tasks gives each of them rate/k.
    """
    out = {}
    team = [(e.rates, e.active_tasks) for e in task.assignees if e.active_tasks > 0]
    for d in task.required:
        # An exact division by one returns its dividend unchanged (same digits, same exponent).
        contrib = [rates[d] if k == 1 else rates[d] / Decimal(k) for rates, k in team]
        contrib.sort(reverse=True)
        out[d] = sum(contrib[:TOP_CONTRIBUTORS], _ZERO)
    return out


def completion_time(cal: Calendar, now: int, task: Task, rates: dict[str, Decimal]) -> int | None:
    """When the slowest domain finishes at these rates; ``None`` if some domain never does."""
    longest = _ZERO
    for d, req in task.required.items():
        remaining = Decimal(req) - task.completed[d]
        if remaining <= 0:
            continue
        rate = rates.get(d, _ZERO)
        if rate <= 0:
            return None
        longest = max(longest, remaining / rate)
    if longest <= 0:
        return now
    return cal.add_business_hours(now, longest)


def milestone_time(cal: Calendar, now: int, task: Task, rates: dict[str, Decimal], fraction: float) -> int | None:
    """When summed progress first reaches ``fraction`` of the summed requirement.

    Progress is piecewise linear: each domain grows at its rate until it is done.
    """
    total = sum((Decimal(q) for q in task.required.values()), _ZERO)
    target = Decimal(str(fraction)) * total
    done = sum((min(Decimal(task.required[d]), c) for d, c in task.completed.items()), _ZERO)
    if done >= target:
        return now
    pieces = []
    for d, req in task.required.items():
        remaining = Decimal(req) - task.completed[d]
        rate = rates.get(d, _ZERO)
        cap = None if remaining > 0 and rate <= 0 else (_ZERO if remaining <= 0 else remaining / rate)
        pieces.append((rate, cap))
    h = _ZERO
    for bp in sorted({cap for _, cap in pieces if cap is not None and cap > 0}):
        slope = sum((r for r, cap in pieces if cap is not None and cap > h), _ZERO)
        if slope <= 0:
            h = bp
            done = sum(
                (min(Decimal(task.required[d]), task.completed[d] + r * h) for d, (r, _) in zip(task.required, pieces)),
                _ZERO,
            )
            continue
        step = (target - done) / slope
        if h + step <= bp:
            return cal.add_business_hours(now, h + step)
        done += slope * (bp - h)
        h = bp
    slope = sum((r for r, cap in pieces if cap is not None and cap > h), _ZERO)
    if slope > 0:
        step = target - done
        return cal.add_business_hours(now, h + (step / slope if step > 0 else _ZERO))
    return cal.add_business_hours(now, h) if done >= target else None
