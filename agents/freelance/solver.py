"""A rule-based solver for the freelance world's task texts: reads a question, works the answer out by hand.

It plays the part of a careful worker with a calculator. Each rule matches
the wording of one kind of question (interest, loans, change, shared work,
round trips, means, orderings, percentage change, and short Python
snippets) and computes the answer from the numbers in the text. Code is
read with regular expressions and its effect computed here: it is never
executed. A question no rule recognises gets ``None``, so the caller can
leave the task alone rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bizsim.simcore.summation import plain_sum

__all__ = ["solve_question"]

_NUM = r"(-?[\d,]*\.?\d+)"


def _f(text: str) -> float:
    return float(text.replace(",", ""))


def _money(x: float) -> str:
    return f"{x:.2f}"


def _simple_interest(m: re.Match) -> str:
    p, r, t = _f(m["p"]), _f(m["r"]), _f(m["t"])
    return _money(p * r / 100 * t)


def _compound(m: re.Match) -> str:
    p, r, t = _f(m["p"]), _f(m["r"]), _f(m["t"])
    return _money(p * (1 + r / 100) ** t)


def _loan(m: re.Match) -> str:
    p, r, n = _f(m["p"]), _f(m["r"]), _f(m["n"])
    i = r / 1200
    return _money(p * i / (1 - (1 + i) ** -n) if i else p / n)


def _change(m: re.Match) -> str:
    total = _f(m["na"]) * _f(m["pa"]) + _f(m["nb"]) * _f(m["pb"])
    return f"{_f(m['paid']) - total:.0f}"


def _together(m: re.Match) -> str:
    a, b = _f(m["a"]), _f(m["b"])
    return f"{a * b / (a + b):.2f}"


def _round_trip(m: re.Match) -> str:
    v1, v2 = _f(m["v1"]), _f(m["v2"])
    return f"{2 * v1 * v2 / (v1 + v2):.2f}"


def _mean(m: re.Match) -> str:
    xs = [_f(x) for x in re.findall(_NUM, m["xs"])]
    return f"{plain_sum(xs) / len(xs):.2f}"


def _pct_change(m: re.Match) -> str:
    old, new = _f(m["old"]), _f(m["new"])
    return f"{(new - old) / old * 100:.2f}%"


def _ordering(m: re.Match) -> str | None:
    """The tallest or shortest of a set from pairwise "X is taller than Y" facts (a topological sort)."""
    names = [n.strip() for n in m["names"].split(",")]
    taller: dict[str, set[str]] = {n: set() for n in names}  # name -> who is shorter than them
    for a, b in re.findall(r"(\w+) is taller than (\w+)", m["facts"]):
        taller.setdefault(a, set()).add(b)
        taller.setdefault(b, set())
    shorter_of = {n: {a for a, below in taller.items() if n in below} for n in taller}
    if m["which"] == "tallest":
        top = [n for n in taller if not shorter_of[n]]
    else:
        top = [n for n in taller if not taller[n]]
    return top[0] if len(top) == 1 else None


def _loop_sum(m: re.Match) -> str:
    a, b, k = int(m["a"]), int(m["b"]), int(m["k"])
    return str(k * sum(range(a, b)))


def _filtered_squares(m: re.Match) -> str:
    xs = [int(x) for x in re.findall(r"-?\d+", m["xs"])]
    d = int(m["m"])
    return "[" + ", ".join(str(x * x) for x in xs if x % d == 0) + "]"


def _caesar_reversed(m: re.Match) -> str:
    shift = int(m["k"])
    word = m["s"]
    if not word.isascii() or not word.islower() or not word.isalpha():
        return ""  # the rule's arithmetic holds for lowercase letters only
    return "".join(chr((ord(c) - 97 + shift) % 26 + 97) for c in reversed(word)).upper()


_RULES: list[tuple[re.Pattern, Callable[[re.Match], str | None]]] = [
    (re.compile(rf"deposits \$(?P<p>{_NUM}) at (?P<r>{_NUM})% simple annual interest for (?P<t>\d+) years?"),
     _simple_interest),
    (re.compile(rf"puts \$(?P<p>{_NUM}) into an account paying (?P<r>{_NUM})% interest compounded annually\. "
                r"What is the balance after (?P<t>\d+) years?"), _compound),
    (re.compile(rf"borrows \$(?P<p>{_NUM}) at (?P<r>{_NUM})% annual interest, compounded monthly, repaid in "
                r"(?P<n>\d+) equal monthly"), _loan),
    (re.compile(r"buys (?P<na>\d+) [\w ]+? at \$(?P<pa>\d+) each and (?P<nb>\d+) [\w ]+? at \$(?P<pb>\d+) each, "
                r"and pays with \$(?P<paid>[\d,]+)"), _change),
    (re.compile(r"alone in (?P<a>\d+) hours; another can finish the same job alone in (?P<b>\d+) hours"), _together),
    (re.compile(r"at (?P<v1>\d+) km/h and returns the same way at (?P<v2>\d+) km/h"), _round_trip),
    (re.compile(rf"were: (?P<xs>{_NUM}(?:, {_NUM})*)\. What is the mean"), _mean),
    (re.compile(rf"moved from (?P<old>{_NUM}) last quarter to (?P<new>{_NUM}) this quarter\. What is the "
                r"percentage change"), _pct_change),
    (re.compile(r"^(?P<facts>.*?)\. Among (?P<names>[\w, ]+), who is the (?P<which>tallest|shortest)\?", re.DOTALL),
     _ordering),
    (re.compile(r"total = 0\nfor i in range\((?P<a>-?\d+), (?P<b>-?\d+)\):\n\s+total \+= i \* (?P<k>-?\d+)\n"
                r"print\(total\)"), _loop_sum),
    (re.compile(r"xs = \[(?P<xs>[-\d, ]*)\]\nprint\(\[x \* x for x in xs if x % (?P<m>\d+) == 0\]\)"),
     _filtered_squares),
    (re.compile(r"s = '(?P<s>\w+)'\nout = ''\nfor ch in s\[::-1\]:\n\s+out \+= chr\(\(ord\(ch\) - 97 \+ (?P<k>\d+)\) "
                r"% 26 \+ 97\)\nprint\(out\.upper\(\)\)"), _caesar_reversed),
]


def solve_question(question: str) -> str | None:
    """The answer to a task worked out from its text, as a solution ending in the final answer; else ``None``.

    >>> solve_question("A client deposits $1,000 at 5% simple annual interest for 2 years. How much interest ...")
    'Final answer: 100.00'
    >>> solve_question("Write a sonnet about invoices.") is None
    True
    """
    for pattern, rule in _RULES:
        m = pattern.search(question)
        if m:
            try:
                answer = rule(m)
            except (ValueError, ZeroDivisionError, OverflowError):
                return None
            return f"Final answer: {answer}" if answer else None
    return None
