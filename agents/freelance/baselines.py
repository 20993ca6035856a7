"""Baseline agents for the freelance world, written as SimPy processes.

``cautious`` acts only through the tools and answers by rule from the task
text. ``oracle`` is a calibration agent: it reads the hidden answers
(``world.answer_of``), so it shows the ceiling of the world's economics,
not of reasoning; it plays through the same tools and budget otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from bizsim.agents.declare import Process, agent
from bizsim.models.freelance import FreelanceWorld
from bizsim.simcore import CommandError

__all__ = ["cautious", "oracle", "solve"]

_NUM = r"([\d,]+(?:\.\d+)?)"
# Each rule: a phrase every match contains (a substring test is far cheaper than a failed search), the
# pattern, the formula and the decimal places of the answer.
_RULES: list[tuple[str, re.Pattern, Callable[..., float], int]] = [
    ("simple annual interest", re.compile(rf"deposits \${_NUM} at {_NUM}% simple annual interest for (\d+) years?"),
     lambda p, r, t: p * r / 100 * t, 2),
    ("compounded annually", re.compile(rf"puts \${_NUM} into an account paying {_NUM}% interest compounded annually\. "
                                       r"What is the balance after (\d+) years?"),
     lambda p, r, t: p * (1 + r / 100) ** t, 2),
    ("compounded monthly", re.compile(rf"borrows \${_NUM} at {_NUM}% annual interest, compounded monthly, repaid in "
                                      r"(\d+) equal monthly"),
     lambda p, r, n: p * (r / 1200) / (1 - (1 + r / 1200) ** -n), 2),
    ("each, and pays with", re.compile(r"buys (\d+) \w+ at \$(\d+) each and (\d+) \w+ at \$(\d+) each, and pays "
                                       r"with \$(\d+)"),
     lambda a, pa, b, pb, paid: paid - a * pa - b * pb, 0),
    ("another can finish", re.compile(r"alone in (\d+) hours; another can finish the same job alone in (\d+) hours"),
     lambda a, b: a * b / (a + b), 2),
    ("returns the same way", re.compile(r"at (\d+) km/h and returns the same way at (\d+) km/h"),
     lambda v1, v2: 2 * v1 * v2 / (v1 + v2), 2),
]

#: The most energy one submission can cost (effort 10 at skill 0: int(10 * 1.6)); below it, no submitting.
_MAX_SUBMIT_ENERGY = 16
#: The categories the cautious agent's solver knows (arithmetic and finance word problems).
SOLVABLE = ("Financial_Advisory", "Math_Logic")
_EASE = {"Low": 0, "Medium": 1, "High": 2}


def _tool(world: FreelanceWorld, name: str, args: dict) -> dict:
    """A tool's result, or its refusal as the ``{"error": ...}`` an LLM would see."""
    try:
        return world.call(name, **args)
    except CommandError as exc:
        return exc.to_dict()


def solve(question: str) -> str | None:
    """An answer to an arithmetic or finance word problem read by rule from its text, else ``None``.

    >>> solve("A client deposits $1,000 at 5% simple annual interest for 2 years. How much interest ...")
    'Final answer: 100.00'
    """
    for phrase, pattern, formula, places in _RULES:
        if phrase not in question:
            continue
        m = pattern.search(question)
        if m:
            value = formula(*[float(g.replace(",", "")) for g in m.groups()])
            return f"Final answer: {value:.{places}f}"
    return None


def cautious(world: FreelanceWorld, tired: int = 35, stressed: int = 50, max_complexity: str = "Medium") -> Process:
    """Rest when tired or stressed; take the easiest tasks whose answers it can work out by rule.

    Each day: rest (``medium`` if it can afford it, else ``low``) when energy
    is below ``tired`` or stress above ``stressed``; discover (free when
    rested, else paid) and browse when it knows no task it could solve;
    then inspect the easiest solvable-looking tasks (arithmetic and finance
    categories, complexity up to ``max_complexity``) and submit its answers.

    Args:
        tired: energy below which it rests.
        stressed: stress above which it rests.
        max_complexity: the hardest complexity it takes (``Low``, ``Medium`` or ``High``).
    """
    budget = world.daily_budget or 5
    cap = _EASE[max_complexity]
    cfg = world.config
    money, energy, stress = cfg.initial_money_cents / 100, cfg.initial_energy, cfg.initial_stress
    known: dict[str, tuple[int, int, float]] = {}  # id -> (ease, last day, payment)
    rank: dict[str, tuple[int, float, int]] = {}  # id -> preference: easiest, then best paid, then lowest id
    day = 0
    call = world.call
    left = budget  # the day's actions left: reset each morning below, counted down by act()

    def act(name: str, **args: Any) -> dict:
        nonlocal left
        try:
            out = call(name, **args)
        except CommandError as exc:
            return exc.to_dict()
        if "error" not in out:
            left -= 1
        return out

    while not world.done:
        left = budget
        subs = 0
        if energy < tired or stress > stressed:
            out = act("energy_restore", level="medium" if money > 200 else "low")
            if "current_state" in out:
                now = out["current_state"]
                money, energy, stress = now["money"], now["energy"], now["stress"]
        for tid in [t for t, k in known.items() if k[1] < day]:
            del known[tid]
        if not known and left >= 2 and not world.done and energy > 8:
            paid = energy < tired + 10 and money > 100
            out = act("tasks_discover", refresh_type="paid" if paid else "free")
            if out.get("status") in ("success", "warning"):
                energy -= 5 if paid else 8
            listing = act("tasks_browse") if not world.done else {}
            for t in listing.get("tasks", []):
                ease = _EASE[t["complexity"]]
                if t["category"] in SOLVABLE and ease <= cap:
                    tid, pay = t["task_id"], t["estimated_payment"]
                    known[tid] = (ease, day + t["days_left"], pay)
                    rank[tid] = (ease, -pay, int(tid))
        while left >= 2 and subs < 3 and known and not world.done and energy > _MAX_SUBMIT_ENERGY:
            tid = min(known, key=rank.__getitem__)
            del known[tid]
            task = act("task_inspect", task_id=tid)
            answer = solve(task.get("question", ""))
            if answer is None:
                continue
            out = act("solution_submit", task_id=tid, solution_text=answer)
            if "execution_stats" in out:
                subs += 1
                stats = out["execution_stats"]
                energy -= stats["energy_consumed"]
                stress = stats["current_stress"]
                money = out["settlement"]["current_balance"]
            elif out.get("reason") == "exhaustion":
                break
        report = yield world.advance()
        if "error" in report or report.get("status") == "game_over":
            return
        day = report["current_day"]
        now = report["current_state"]
        money, energy, stress = now["money"], now["energy"], now["stress"]


def _check_level(name: str, value: int) -> None:
    if not 0 <= value <= 100:
        raise ValueError(f"{name}(={value}) must be in 0..100: energy and stress are points out of 100")


def _check_cautious(tired: int, stressed: int, max_complexity: str) -> None:
    _check_level("tired", tired)
    _check_level("stressed", stressed)
    if max_complexity not in _EASE:
        raise ValueError(f"max_complexity(={max_complexity!r}) must be one of {', '.join(_EASE)}")


cautious = agent(cautious, check=_check_cautious)


def oracle(world: FreelanceWorld, tired: int = 30) -> Process:
    """Submit the hidden right answers (read with ``world.answer_of``) to the best-paid tasks, three a day.

    A calibration agent: the ceiling of the economics. Each day it rests
    when energy is below ``tired``, discovers (paid when it can afford it)
    and browses when it knows fewer than three live tasks, then submits the
    best-paying tasks per unit of effort it knows.

    Args:
        tired: energy below which it rests (``medium``).
    """
    budget = world.daily_budget or 5
    energy, money = world.config.initial_energy, world.config.initial_money_cents / 100
    known: dict[str, tuple[int, float]] = {}  # id -> (last day, payment)
    rank: dict[str, tuple[float, int]] = {}  # id -> preference: best paid, then lowest id
    day = 0
    while not world.done:
        left = budget
        if energy < tired and money > 60:
            out = _tool(world, "energy_restore", {"level": "medium"})
            if "error" not in out:
                left -= 1
                energy, money = out["current_state"]["energy"], out["current_state"]["money"]
        for tid in [t for t, k in known.items() if k[0] < day]:
            del known[tid]
        if len(known) < 3 and left >= 3 and not world.done:
            paid = money > 50
            if energy <= 8:
                pass
            elif "error" not in _tool(world, "tasks_discover", {"refresh_type": "paid" if paid else "free"}):
                left -= 1
                energy -= 5 if paid else 8
            if not world.done:
                listing = _tool(world, "tasks_browse", {})
                left -= 1
                known = {}
                for t in listing.get("tasks", []):
                    tid, pay = t["task_id"], t["estimated_payment"]
                    known[tid] = (day + t["days_left"], pay)
                    rank[tid] = (-pay, int(tid))
        subs = 0
        for tid in sorted(known, key=rank.__getitem__):
            if left == 0 or subs == 3 or world.done or energy <= _MAX_SUBMIT_ENERGY:
                break
            out = _tool(world, "solution_submit", {"task_id": tid, "solution_text": world.answer_of(tid)})
            if "execution_stats" in out:
                del known[tid]
                left -= 1
                subs += 1
                energy -= out["execution_stats"]["energy_consumed"]
                money = out["settlement"]["current_balance"]
            elif out.get("reason") == "exhaustion":
                break
            else:
                del known[tid]
        report = yield world.advance()
        if "error" in report or report.get("status") == "game_over":
            return
        day = report["current_day"]
        energy, money = report["current_state"]["energy"], report["current_state"]["money"]


def _check_oracle(tired: int) -> None:
    _check_level("tired", tired)


oracle = agent(oracle, check=_check_oracle)
