"""startup-v2's signals in words: each phrase covers its stated band of the hidden number, kept in the record."""

from __future__ import annotations

import math

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from bizsim.models.startup.v2 import PRESETS, StartupV2World
from bizsim.models.startup.v2.config import Signals
from bizsim.models.startup.v2.signals import (
    DAY_HOURS, RATE_BANDS, STRONG_RATE, WORK_BANDS, rate_estimate, rate_phrase, work_estimate, work_phrase,
)
from bizsim.simcore.testing import play


def _work_band(phrase: str) -> tuple[float, float]:
    head = phrase.split(" of ", 1)[0]
    lo, hi = next((lo, hi) for w, lo, hi in WORK_BANDS if w == head)
    unit = STRONG_RATE * DAY_HOURS
    return lo * unit, hi * unit


def _rate_band(word: str) -> tuple[float, float]:
    return next((lo, hi) for w, lo, hi in RATE_BANDS if w == word)


@given(st.floats(0, 1e6, allow_nan=False), st.floats(0, 1e3, allow_nan=False))
@settings(max_examples=100)
def test_every_number_gets_the_phrase_of_its_band(qty, rate):
    """The bands tile [0, inf): every quantity and rate falls in the band of the phrase it is shown as, and the
    band's middle (what an agent reads back) lies in it too."""
    lo, hi = _work_band(work_phrase(qty, "research"))
    assert lo <= qty < hi and lo <= work_estimate(work_phrase(qty, "research")) < hi
    lo, hi = _rate_band(rate_phrase(rate))
    assert lo <= rate < hi and lo <= rate_estimate(rate_phrase(rate)) < hi
    assert all(a[2] == b[1] for a, b in zip(WORK_BANDS, WORK_BANDS[1:])) and math.isinf(WORK_BANDS[-1][2])


def test_worded_answers_hide_the_numbers_and_the_record_keeps_them():
    """In a words preset the agent sees phrases only; each answer's numbers are in a signal_truth event just before
    it, and each number lies in the band of the phrase shown for it."""
    world = StartupV2World(attrs.evolve(PRESETS["default"], signals=Signals(words=True)), 2)
    play(world, ["task accept --task-id Task-42", "task assign --task-id Task-42 --employees Emp_1,Emp_5",
                 "task dispatch --task-id Task-42", "sim resume", "market browse --limit 200", "employee list",
                 "task inspect --task-id Task-42", "employee candidates"])
    records = list(world.trajectory)
    checked = 0
    for (_, kind, name, data), (_, _, command, shown) in zip(records, records[1:]):
        if name != "signal_truth":
            continue
        assert data["command"] == command
        result = shown["result"]
        if command in ("market browse", "task inspect"):
            rows = [r for t in result["tasks"] for r in t["requirements"]] if command == "market browse" \
                else result["requirements"]
            for row, truth in zip(rows, data["numbers"], strict=True):
                assert "required_qty" not in row
                lo, hi = _work_band(row["work"])
                assert lo <= truth["required_qty"] < hi
                if "remaining" in row:
                    lo, hi = _work_band(row["remaining"])
                    assert lo <= truth["remaining_qty"] < hi
                checked += 1
        else:
            people = result["employees" if command == "employee list" else "candidates"]
            for person, truth in zip(people, data["numbers"], strict=True):
                for d, word in person["skill_rates"].items():
                    lo, hi = _rate_band(word)
                    assert lo <= truth["skill_rates"][d] < hi
                    checked += 1
    assert checked > 100


def test_numeric_presets_show_numbers_and_record_no_truth_events():
    """Without words, answers are v1's numbers and the record has no signal_truth event."""
    world = StartupV2World("default", 1)
    out = play(world, ["market browse --limit 3", "employee list"])
    assert isinstance(out[0]["tasks"][0]["requirements"][0]["required_qty"], float)
    assert not [r for r in world.trajectory if r[2] == "signal_truth"]
