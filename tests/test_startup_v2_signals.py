"""startup-v2's signals in words: each phrase covers its stated band of the hidden number, kept in the record."""

from __future__ import annotations

import math
from itertools import pairwise

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bizsim.models.startup.v2 import PRESETS, StartupV2World
from bizsim.models.startup.v2.config import Signals
from bizsim.agents.startup.planner import business_hours
from bizsim.agents.startup.v2 import _WordPlan
from bizsim.agents.startup.v2 import planner as planner_v2
from bizsim.models.startup.v2.signals import (
    DAY_HOURS, DEADLINE_BANDS, PASSED, RATE_BANDS, STRONG_RATE, WORK_BANDS, deadline_band, deadline_phrase,
    rate_estimate, rate_phrase, work_estimate, work_phrase,
)
from bizsim.simcore import Status
from bizsim.simcore.testing import play
from bizsim.simcore.testing.strategies import seeds


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


@given(st.floats(0, 1e4, allow_nan=False))
@settings(max_examples=50)
def test_every_deadline_gets_the_phrase_of_its_band(days):
    """The deadline bands tile [0, inf) and every phrase reads back as its band; a passed deadline reads as passed."""
    lo, hi = deadline_band(deadline_phrase(days))
    assert lo <= days < hi
    assert all(a[2] == b[1] for a, b in pairwise(DEADLINE_BANDS)) and DEADLINE_BANDS[0][1] == 0.0
    assert math.isinf(DEADLINE_BANDS[-1][2]) and deadline_band(deadline_phrase(None)) == (-math.inf, 0.0)


def _deadline_rows(command: str, result: dict) -> list[dict]:
    rows = result["tasks"] if command == "task list" else [result]
    return [r for r in rows if r["deadline"] is not None]


@given(seed=seeds(1000), preset=st.sampled_from(["hard", "nightmare"]), take=st.integers(1, 3),
       resumes=st.integers(0, 4))
@settings(max_examples=12, deadline=None)
def test_every_worded_deadline_covers_the_hidden_one(seed, preset, take, resumes):
    """Wherever a words preset shows a deadline (``task accept``, ``task list``, ``task inspect``), the phrase's band
    holds the business days then left before the task's real deadline, counted here independently of the world."""
    world = StartupV2World(preset, seed)
    titles = [t["task_id"] for t in play(world, ["market browse --limit 3"])[0]["tasks"]][:take]
    staff = [e["name"] for e in play(world, ["employee list"])[0]["employees"]]
    lines = []
    for i, title in enumerate(titles):
        team = ",".join(staff[i::len(titles)])  # the staff split between the tasks
        lines += [f"task accept --task-id {title}", f"task assign --task-id {title} --employees {team}",
                  f"task dispatch --task-id {title}"]
    lines += ["task list"] + ["sim resume", "task list", *(f"task inspect --task-id {t}" for t in titles)] * resumes
    play(world, lines)
    deadlines = {t.title: t.deadline for t in world.tasks if t.deadline is not None}
    records = list(world.trajectory)
    checked = 0
    for (t_us, _, name, data), (_, _, command, shown) in pairwise(records):
        if name != "signal_truth" or command not in ("task accept", "task list", "task inspect"):
            continue
        assert data["numbers"] == [] or command == "task inspect"  # deadlines never mix into the work numbers
        now = world.calendar.to_datetime(t_us)
        for row, truth in zip(_deadline_rows(command, shown["result"]), data["deadlines"], strict=True):
            due = deadlines[row["task_id"]]
            assert (truth["task_id"], truth["deadline"]) == (row["task_id"], world.calendar.iso(due))
            passed = due < t_us
            left = business_hours(now, world.calendar.to_datetime(due)) / DAY_HOURS
            assert (passed, row["deadline"] == PASSED) == (truth["passed"], passed)
            if not passed:
                lo, hi = deadline_band(row["deadline"])
                assert lo <= left < hi and truth["business_days_left"] == pytest.approx(left, abs=1e-6)
            checked += 1
    assert checked >= len(titles)


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
        elif command in ("employee list", "employee candidates"):
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


def test_the_planner_reads_each_worded_deadline_at_its_safe_end_and_plays_the_year():
    """In a words preset the v2 planner plans every accepted task for no more business hours than its deadline
    gives (the band's low end, raised to the published 7-day minimum inside the band, which is then exact), and
    plays the year to its end."""
    world = StartupV2World("hard", 1)
    world.run(planner_v2)
    plan = _WordPlan(world, max_concurrent=3, safety_margin=0.04, max_team=4, pad_teams=True)
    accepted = [(shown["result"]["deadline"], data["deadlines"][0]["business_days_left"] * DAY_HOURS)
                for (_, _, name, data), (_, _, command, shown) in pairwise(world.trajectory)
                if name == "signal_truth" and command == "task accept"]
    planned = [(plan.deadline_hours({"deadline": phrase}), hours) for phrase, hours in accepted]
    assert len(planned) > 20 and all(not exact and 0 < est <= hours for (est, exact), hours in planned)
    assert any(est == hours for (est, _), hours in planned)
    assert Status.HORIZON is world.status


def test_the_planner_takes_its_worlds_minimum_deadline_where_words_hide_the_exact_one():
    """A words world whose minimum deadline is 5 business days (``deadline_min_biz_days``, below v1's prior of 7): a
    task due in 5 shows "in about one week" [5, 7.5), and the v2 planner plans it for no more than the 5 days it
    has, not for 7 (words never show the exact deadline the v1 plan would learn the minimum from)."""
    world = StartupV2World(attrs.evolve(PRESETS["hard"], deadline_min_biz_days=5), 1)
    title = play(world, ["market browse --limit 1"])[0]["tasks"][0]["task_id"]
    accepted = play(world, [f"task accept --task-id {title}"])[0]
    left = next(data for _, _, name, data in reversed(list(world.trajectory)) if name == "signal_truth")[
        "deadlines"][0]["business_days_left"]
    plan = _WordPlan(world, max_concurrent=3, safety_margin=0.04, max_team=4, pad_teams=True)
    hours, exact = plan.deadline_hours(accepted)
    assert ("in about one week", 5.0) == (accepted["deadline"], left)
    assert (5 * DAY_HOURS, False) == (hours, exact)
