"""Signals in words: work quantities, skill rates and deadlines shown as phrases instead of numbers (presets that
ask).

Each phrase stands for a stated band of the hidden number (:data:`WORK_BANDS`, :data:`RATE_BANDS`,
:data:`DEADLINE_BANDS`); the numbers themselves stay in the run's record (a ``signal_truth`` event with every
worded answer: work and skill under ``numbers``, deadlines under ``deadlines``).

Work is measured in business days of one *strong* engineer (:data:`STRONG_RATE` units an hour, the middle of
v1's mid tier, 9-hour days), so "about two weeks of training work for one strong engineer" means 7.5 to 12.5 such
days, whoever does it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .world import StartupV2World

__all__ = ["DEADLINE_BANDS", "PASSED", "RATE_BANDS", "STRONG_RATE", "WORK_BANDS", "deadline_band", "deadline_phrase",
           "rate_estimate", "rate_phrase", "work_estimate", "work_phrase", "worded"]

#: Units an hour of the engineer work is measured against, and the length of their day.
STRONG_RATE = 5.5
DAY_HOURS = 9
#: (phrase, low, high) in business days of one strong engineer: the phrase covers ``low <= days < high``.
WORK_BANDS: tuple[tuple[str, float, float], ...] = (
    ("under a week", 0.0, 5.0), ("about one week", 5.0, 7.5), ("about two weeks", 7.5, 12.5),
    ("about three weeks", 12.5, 17.5), ("about a month", 17.5, 27.5), ("about two months", 27.5, 50.0),
    ("several months", 50.0, math.inf),
)
#: (word, low, high) in units an hour: the word covers ``low <= rate < high``.
RATE_BANDS: tuple[tuple[str, float, float], ...] = (
    ("slow", 0.0, 2.5), ("steady", 2.5, 4.5), ("strong", 4.5, 7.0), ("exceptional", 7.0, math.inf),
)

#: (phrase, low, high) in business days left before a deadline: the phrase covers ``low <= days < high``. From a
#: week on the bands are the work bands', so a task's deadline and its work read alike when they are alike.
DEADLINE_BANDS: tuple[tuple[str, float, float], ...] = (
    ("within a day", 0.0, 1.0), ("in a few days", 1.0, 5.0), ("in about one week", 5.0, 7.5),
    ("in about two weeks", 7.5, 12.5), ("in about three weeks", 12.5, 17.5), ("in about a month", 17.5, 27.5),
    ("in about two months", 27.5, 50.0), ("in several months", 50.0, math.inf),
)
#: A deadline that has passed (its instant is before now), however long ago.
PASSED = "already passed"


def _band(bands: tuple[tuple[str, float, float], ...], x: float) -> str:
    return next(word for word, lo, hi in bands if lo <= x < hi)


def work_phrase(qty: float, domain: str) -> str:
    """A work quantity in words.

    >>> work_phrase(500, "training")
    'about two weeks of training work for one strong engineer'
    """
    days = max(0.0, qty) / (STRONG_RATE * DAY_HOURS)
    return f"{_band(WORK_BANDS, days)} of {domain} work for one strong engineer"


def rate_phrase(rate: float) -> str:
    """A skill rate in words.

    >>> rate_phrase(3.2), rate_phrase(9.9)
    ('steady', 'exceptional')
    """
    return _band(RATE_BANDS, max(0.0, rate))


def deadline_phrase(days_left: float | None) -> str:
    """A deadline in words, from the business days left before it; ``None``: it has passed.

    >>> deadline_phrase(7.0), deadline_phrase(0.5), deadline_phrase(None)
    ('in about one week', 'within a day', 'already passed')
    """
    return PASSED if days_left is None else _band(DEADLINE_BANDS, max(0.0, days_left))


def deadline_band(phrase: str) -> tuple[float, float]:
    """The band of business days left that a deadline phrase stands for (what an agent can read back).

    >>> deadline_band("in about two weeks"), deadline_band("already passed")
    ((7.5, 12.5), (-inf, 0.0))

    Raises:
        ValueError: ``phrase`` is none of the deadline phrases.
    """
    if phrase == PASSED:
        return -math.inf, 0.0
    band = next(((lo, hi) for word, lo, hi in DEADLINE_BANDS if word == phrase), None)
    if band is None:
        known = [w for w, _, _ in DEADLINE_BANDS] + [PASSED]
        raise ValueError(f"deadline phrase {phrase[:100]!r} is not one of {known}")
    return band


def _middle(lo: float, hi: float) -> float:
    return (lo + hi) / 2 if math.isfinite(hi) else lo * 1.25


def work_estimate(phrase: str) -> float:
    """The middle of the band a work phrase stands for, in units (what an agent can read back from the words).

    >>> work_estimate("about two weeks of training work for one strong engineer")
    495.0
    """
    head = phrase.split(" of ", 1)[0]
    lo, hi = next((lo, hi) for word, lo, hi in WORK_BANDS if word == head)
    return _middle(lo, hi) * STRONG_RATE * DAY_HOURS


def rate_estimate(word: str) -> float:
    """The middle of the band a rate word stands for, in units an hour.

    >>> rate_estimate("strong")
    5.75
    """
    lo, hi = next((lo, hi) for w, lo, hi in RATE_BANDS if w == word)
    return _middle(lo, hi)


def _requirements(rows: list[dict[str, Any]], truth: list[Any]) -> None:
    for r in rows:
        d = r["domain"]
        truth.append({"domain": d, "required_qty": r.pop("required_qty")})
        r["work"] = work_phrase(truth[-1]["required_qty"], d)
        if "remaining_qty" in r:
            truth[-1]["remaining_qty"] = r.pop("remaining_qty")
            truth[-1]["completed_qty"] = r.pop("completed_qty")
            r["remaining"] = work_phrase(truth[-1]["remaining_qty"], d)


def _rates(rows: list[dict[str, Any]], key: str, truth: list[Any]) -> None:
    for r in rows:
        truth.append({key: r[key], "skill_rates": r["skill_rates"]})
        r["skill_rates"] = {d: rate_phrase(v) for d, v in r["skill_rates"].items()}


def _deadlines(world: StartupV2World, rows: list[dict[str, Any]], truth: list[Any]) -> None:
    """Deadlines as the business time left before them, in words; a task not yet accepted has none to hide."""
    cfg, now = world.config, world.now_us
    day = cfg.workday_end_hour - cfg.workday_start_hour
    for r in rows:
        if r.get("deadline") is None:
            continue
        due = world.calendar.to_us(datetime.fromisoformat(r["deadline"]))
        passed = due < now
        hours = world.calendar.business_hours_between(*((due, now) if passed else (now, due)))
        days = float(hours) / day
        truth.append({"task_id": r["task_id"], "deadline": r["deadline"], "passed": passed,
                      "business_days_left": -days if passed else days})
        r["deadline"] = deadline_phrase(None if passed else days)


def _rewrite(world: StartupV2World, name: str, out: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """Put words in place of numbers in an answer of command ``name``; the numbers taken out (work and skill) and
    the deadlines taken out, apart: the two lists index different rows."""
    truth: list[Any] = []
    due: list[Any] = []
    if name == "market browse":
        for row in out["tasks"]:
            _requirements(row["requirements"], truth)
    elif name == "task inspect":
        _requirements(out["requirements"], truth)
        _deadlines(world, [out], due)
    elif name == "task accept":
        _deadlines(world, [out], due)
    elif name == "task list":
        _deadlines(world, out["tasks"], due)
    elif name == "employee list":
        _rates(out["employees"], "name", truth)
    elif name == "employee candidates":
        _rates(out["candidates"], "candidate_id", truth)
    return truth, due


def worded(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A wrapper for command ``name``: in a words preset, its answer shows phrases, and the numbers go to the
    record as a ``signal_truth`` event."""

    def wrap(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)  # the command's arguments are read from its signature
        def run(world: StartupV2World, **kwargs: Any) -> Any:
            out = func(world, **kwargs)
            if world.config.signals.words and isinstance(out, dict):
                numbers, deadlines = _rewrite(world, name, out)
                world.record_event("signal_truth", {"command": name, "numbers": numbers, "deadlines": deadlines})
            return out

        return run

    return wrap
