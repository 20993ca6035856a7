"""The procedural task generator: checkable tasks in four categories at three difficulty levels.

Task ``i`` of a bank is built from row ``i`` of a block of uniforms drawn
from the episode's ``tasks`` stream, so its content depends only on the
seed and its index, never on when it is discovered. Every canonical answer
is computed here by arithmetic on the drawn numbers (no code is run).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from .answers import Answer

__all__ = ["CATEGORIES", "COMPLEXITIES", "TEMPLATES", "Draws", "build_task_text", "price_and_effort"]

#: Skill categories (the reference's labels where they fit; ``Data_Analysis`` is ours).
CATEGORIES: tuple[str, ...] = ("Financial_Advisory", "Math_Logic", "Data_Analysis", "Software_Dev")
#: Difficulty levels, as the reference names them.
COMPLEXITIES: tuple[str, ...] = ("Low", "Medium", "High")

#: Effort by difficulty (the reference's own fallback efforts) and dollars per unit of effort by category.
_EFFORT = {"Low": 3.0, "Medium": 5.5, "High": 8.5}
_EFFORT_SHIFT = {"Financial_Advisory": 0.5, "Math_Logic": 0.0, "Data_Analysis": 0.0, "Software_Dev": 0.5}
_RATE = {"Financial_Advisory": 4.0, "Math_Logic": 3.0, "Data_Analysis": 3.5, "Software_Dev": 4.5}

_NAMES = ("Ava", "Ben", "Cara", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lena")
_ITEMS = (("notebook", "notebooks"), ("pen", "pens"), ("mug", "mugs"), ("cable", "cables"), ("lamp", "lamps"),
          ("ticket", "tickets"))
_WORDS = ("market", "ledger", "invoice", "budget", "python", "stream", "client", "report", "vendor", "signal")


class Draws:
    """Uniforms on [0, 1) handed out in order, with the few shapes templates need.

    ``u()`` gives the next uniform; the row wraps around if a template needs
    more than it holds.
    """

    __slots__ = ("u",)

    def __init__(self, uniforms: Sequence[float]) -> None:
        # A bound iterator method: templates draw a dozen times per task, and this is the cheapest call.
        self.u: Callable[[], float] = itertools.cycle(uniforms).__next__

    def integer(self, low: int, high: int) -> int:
        """An integer in ``[low, high]``."""
        return low + min(high - low, int(self.u() * (high - low + 1)))

    def pick(self, seq: Sequence):
        """One element of ``seq``."""
        return seq[min(len(seq) - 1, int(self.u() * len(seq)))]

    def perm(self, seq: Sequence) -> list:
        """A shuffled copy of ``seq``."""
        out = list(seq)
        integer = self.integer
        for i in range(len(out) - 1, 0, -1):
            j = integer(0, i)
            out[i], out[j] = out[j], out[i]
        return out


def price_and_effort(category: str, complexity: str, u1: float, u2: float) -> tuple[int, float]:
    """The quoted payment (cents) and effort (1–10) of a task, from its category, difficulty and two uniforms.

    >>> price_and_effort("Math_Logic", "Low", 0.5, 0.5)
    (900, 3.0)
    """
    effort = round(min(10.0, max(1.0, _EFFORT[complexity] + _EFFORT_SHIFT[category] + (u1 - 0.5))), 1)
    dollars = _RATE[category] * effort * (0.8 + 0.4 * u2)
    return round(dollars * 100), effort


def _money(x: float) -> Answer:
    x = round(x + 0.0, 2)
    return Answer("number", f"{x:.2f}", x, 0.011)


def _num(x: float, places: int = 2, percent: bool = False) -> Answer:
    # Rounded answers take a little over half a unit of their last place; whole-number answers (change owed, a
    # program's output) are exact, so they take none.
    x = round(x + 0.0, places)
    text = f"{x:.{places}f}" if places else f"{int(x)}"
    return Answer("number", text + ("%" if percent else ""), x, 0.6 * 10.0 ** -places if places else 0.0, percent)


# Financial_Advisory -------------------------------------------------------------------------------
def _fin_low(d: Draws) -> tuple[str, Answer]:
    p, r, t = d.integer(20, 200) * 50, d.integer(2, 12), d.integer(1, 6)
    q = (f"A client deposits ${p:,} at {r}% simple annual interest for {t} year{'s' if t > 1 else ''}. How much "
         "interest does the deposit "
         "earn in total? Give the amount in dollars, rounded to the nearest cent.")
    return q, _money(p * r / 100 * t)


def _fin_medium(d: Draws) -> tuple[str, Answer]:
    p, r, t = d.integer(10, 100) * 100, d.integer(2, 9) + d.pick((0.0, 0.25, 0.5, 0.75)), d.integer(2, 10)
    q = (f"An investor puts ${p:,} into an account paying {r:g}% interest compounded annually. What is the balance "
         f"after {t} years? Round to the nearest cent.")
    return q, _money(p * (1 + r / 100) ** t)


def _fin_high(d: Draws) -> tuple[str, Answer]:
    p, r, n = d.integer(50, 400) * 100, d.integer(3, 12) + d.pick((0.0, 0.5)), d.pick((12, 24, 36, 48, 60))
    i = r / 1200
    q = (f"A small business borrows ${p:,} at {r:g}% annual interest, compounded monthly, repaid in {n} equal monthly "
         "payments. What is the monthly payment? Round to the nearest cent.")
    return q, _money(p * i / (1 - (1 + i) ** -n))


# Math_Logic -------------------------------------------------------------------------------------
def _math_low(d: Draws) -> tuple[str, Answer]:
    (_, a2), (_, b2) = d.pick(_ITEMS[:3]), d.pick(_ITEMS[3:])
    na, pa, nb, pb = d.integer(2, 9), d.integer(2, 15), d.integer(2, 9), d.integer(3, 30)
    total = na * pa + nb * pb
    paid = (total // 50 + 1) * 50
    q = (f"{d.pick(_NAMES)} buys {na} {a2} at ${pa} each and {nb} {b2} at ${pb} each, and pays with ${paid}. "
         "How much change, in dollars, does she get?")
    return q, _num(paid - total, 0)


def _math_medium(d: Draws) -> tuple[str, Answer]:
    a, b = d.integer(2, 12), d.integer(2, 12)
    while b == a:
        b = a % 12 + 1 if a % 12 + 1 > 1 else 3
    q = (f"One worker can finish a job alone in {a} hours; another can finish the same job alone in {b} hours. Working "
         "together at those rates, how many hours do they need? Round to two decimal places.")
    return q, _num(a * b / (a + b), 2)


def _math_high(d: Draws) -> tuple[str, Answer]:
    dist, v1, v2 = d.integer(20, 150), d.integer(30, 90), d.integer(30, 90)
    q = (f"A courier drives {dist} km from the depot to a client at {v1} km/h and returns the same way at {v2} km/h. "
         "What is the average speed for the whole round trip, in km/h? Round to two decimal places.")
    return q, _num(2 * v1 * v2 / (v1 + v2), 2)


# Data_Analysis ----------------------------------------------------------------------------------
def _data_low(d: Draws) -> tuple[str, Answer]:
    xs = [d.integer(10, 99) for _ in range(d.integer(5, 8))]
    q = f"Daily orders for a shop were: {', '.join(map(str, xs))}. What is the mean number of orders per day? " \
        "Round to two decimal places."
    return q, _num(sum(xs) / len(xs), 2)


def _data_medium(d: Draws) -> tuple[str, Answer]:
    names = d.perm(_NAMES)[:4]
    order = d.perm(names)  # tallest first
    pairs = [f"{order[i]} is taller than {order[i + 1]}" for i in range(3)]
    facts = d.perm(pairs)
    ask_tallest = d.u() < 0.5
    q = (f"{'; '.join(facts)}. Among {', '.join(sorted(names))}, who is the "
         f"{'tallest' if ask_tallest else 'shortest'}? Answer with a name.")
    right = order[0] if ask_tallest else order[-1]
    return q, Answer("choice", right, options=tuple(sorted(names)))


def _data_high(d: Draws) -> tuple[str, Answer]:
    old, new = d.integer(40, 400), d.integer(40, 400)
    while new == old:
        new = old + d.integer(1, 30)
    q = (f"A metric moved from {old} last quarter to {new} this quarter. What is the percentage change? Use a "
         "negative number for a decrease and round to two decimal places.")
    return q, _num((new - old) / old * 100, 2, percent=True)


# Software_Dev -----------------------------------------------------------------------------------
def _code_low(d: Draws) -> tuple[str, Answer]:
    a, b, k = d.integer(0, 5), d.integer(6, 15), d.integer(2, 7)
    q = ("What does this Python code print?\n\n"
         f"total = 0\nfor i in range({a}, {b}):\n    total += i * {k}\nprint(total)")
    return q, _num(k * sum(range(a, b)), 0)


def _code_medium(d: Draws) -> tuple[str, Answer]:
    xs = [d.integer(1, 20) for _ in range(d.integer(5, 8))]
    m = d.integer(2, 3)
    out = [x * x for x in xs if x % m == 0] or [0]
    if out == [0]:
        xs.append(m * 2)
        out = [x * x for x in xs if x % m == 0]
    q = ("What does this Python code print?\n\n"
         f"xs = {xs}\nprint([x * x for x in xs if x % {m} == 0])")
    return q, Answer("sequence", "[" + ", ".join(map(str, out)) + "]")


def _code_high(d: Draws) -> tuple[str, Answer]:
    word = d.pick(_WORDS)
    shift = d.integer(1, 5)
    q = ("What does this Python code print?\n\n"
         f"s = {word!r}\nout = ''\nfor ch in s[::-1]:\n    out += chr((ord(ch) - 97 + {shift}) % 26 + 97)\n"
         "print(out.upper())")
    out = "".join(chr((ord(c) - 97 + shift) % 26 + 97) for c in reversed(word)).upper()
    return q, Answer("text", out)


#: category -> complexity -> template
TEMPLATES: dict[str, dict[str, Callable[[Draws], tuple[str, Answer]]]] = {
    "Financial_Advisory": {"Low": _fin_low, "Medium": _fin_medium, "High": _fin_high},
    "Math_Logic": {"Low": _math_low, "Medium": _math_medium, "High": _math_high},
    "Data_Analysis": {"Low": _data_low, "Medium": _data_medium, "High": _data_high},
    "Software_Dev": {"Low": _code_low, "Medium": _code_medium, "High": _code_high},
}


def build_task_text(category: str, complexity: str, uniforms: Sequence[float]) -> tuple[str, Answer]:
    """The question and canonical answer of a generated task."""
    return TEMPLATES[category][complexity](Draws(uniforms))
