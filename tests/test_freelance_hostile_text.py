"""Hostile submission text: the answer checker reads it in linear time and gives the answers it always gave."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bizsim.models.freelance.answers import Answer, _marked_number, check, numbers_in, written_number
from bizsim.models.freelance._numscan import MarkedNumbers, number_matches

from ._hang_guard import no_hang
from ._fuzz import fuzz
from .strategies import number_texts

pytestmark = pytest.mark.fuzz

# The number pattern and the marker loop as they were before they were made linear: the reference the fast ones
# must agree with on every text small enough for the old ones to finish.
_OLD_NUMBER = re.compile(r"(?<![\w.])([-\u2212])?\s*\$?\s*([-\u2212])?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
                         r"(?:[eE]([-+\u2212]?\d{1,3}))?(\s*%)?")
_OLD_MARKER = re.compile(r"\b(?:final\s+answer|answer|output|result)\s*(?:is|=|:)?", re.IGNORECASE)


def _old_numbers_in(text: str) -> list[tuple[float, bool]]:
    out = []
    for m in _OLD_NUMBER.finditer(text):
        minus, minus_after_dollar, digits, exponent, percent = m.groups()
        sign = -1.0 if (minus or minus_after_dollar) else 1.0
        try:
            value = float(digits.replace(",", "")) * (10.0 ** int(exponent.replace("\u2212", "-")) if exponent else 1.0)
        except (OverflowError, ValueError):
            continue
        out.append((sign * value, bool(percent)))
    return out


def _old_first_after(text: str, pos: int) -> tuple[float, bool] | None:
    rest = text[pos:]
    found = _old_numbers_in(re.sub(r"\([^()]*\)", " ", rest) if "(" in rest else rest)
    return found[0] if found else None


def _same(a, b) -> bool:
    # NaN never arises (no pattern reads "nan"), so plain equality, with the sign of zero compared too.
    return a == b and repr(a) == repr(b)


@fuzz(200)
@given(number_texts())
def test_numbers_in_reads_what_the_old_pattern_read(text):
    """The linear number pattern finds the numbers (values, signs, percent) the backtracking one found."""
    assert _same(_old_numbers_in(text), numbers_in(text))
    assert [m.span() for m in _OLD_NUMBER.finditer(text)] == [m.span() for m in number_matches(text)]


@fuzz(100)
@given(number_texts(max_size=120))
def test_first_number_after_every_position_matches_the_rescan(text):
    """The one-scan reader gives, after every position, the first number a rescan of the rest gives."""
    finder = MarkedNumbers(text)
    for pos in range(len(text) + 1):
        assert _same(_old_first_after(text, pos), finder.first_after(pos)), pos


@fuzz(30)
@given(number_texts(max_size=600))
def test_marked_number_matches_the_rescan_on_long_texts(text):
    """Long texts (the one-scan path) pick the marked number the rescan picked."""
    text = text * (1 + 5000 // max(1, len(text)))  # past the plain path's length
    expected = None
    for m in reversed(list(_OLD_MARKER.finditer(text))):
        expected = _old_first_after(text, m.end())
        if expected is not None:
            break
    assert _same(expected, _marked_number(text))


@pytest.mark.parametrize("text", [
    " " * 100_000 + "x",  # 800 spaces took 20 s
    "- " * 50_000, "$ " * 50_000, "1," * 50_000, "\u2212 " * 50_000,
    "answer " * 15_000 + "x5",  # one rescan per marker: quadratic
    "answer(" * 15_000 + "x", "(answer " * 15_000 + "1e999", "result:" * 15_000 + " (5)",
], ids=["spaces", "minus", "dollar", "commas", "u2212", "markers", "marker-paren", "in-remark", "marker-colon"])
def test_hostile_submissions_are_checked_without_a_hang(text):
    """Texts of the submission limit's order that made the checker backtrack or rescan are checked at once."""
    with no_hang("checking a hostile submission"):
        for kind in ("number", "text", "sequence", "choice"):
            check(Answer(kind, "5", 5.0, options=("5", "6")), text)
        written_number(text)


def test_a_task_file_answer_is_read_without_a_hang():
    """A task file's answer text reaches the same pattern on load (``written_number``)."""
    with no_hang("reading a task file answer"):
        assert written_number(" " * 100_000 + "x") is None
