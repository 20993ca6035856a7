"""Startup edges: prestige stops at 10, a task done at its deadline succeeds, bankruptcy is funds below 0 cents."""

from __future__ import annotations

from decimal import Decimal

import attrs
import pytest
from bizsim.models.startup import PRESETS, StartupWorld
from bizsim.simcore import Status

from ._helpers import resume, start

D = Decimal
PAYROLL = 3_800_503  # the default company's monthly payroll, cents


def test_success_never_lifts_prestige_above_ten(world):
    """Research prestige 9.9 plus Task-8's delta 0.255 stops at the cap, 10.000 (not 10.155)."""
    world.prestige["research"] = D("9.9")
    start(world, "Task-8")
    report = resume(world)
    assert report["wake_events"][0]["success"]
    assert D("10.000") == world.prestige["research"]


@pytest.mark.parametrize(("shift_us", "success", "funds_delta"), [(0, True, 1_853_002), (-1, False, -648_550)])
def test_completion_exactly_at_the_deadline_succeeds(world, shift_us, success, funds_delta):
    """Task-8 with its deadline moved onto its completion instant succeeds; one microsecond earlier, it is late."""
    start(world, "Task-8")
    task = world.find_task("Task-8")
    done_at = world._eta[task.uid][0]
    task.deadline = done_at + shift_us
    event = resume(world)["wake_events"][0]
    assert (done_at, success, funds_delta) == (task.completed_at, event["success"], event["funds_delta"])
    assert 20_000_000 + funds_delta == world.funds_cents


@pytest.mark.parametrize(("initial", "when", "funds"), [
    (PAYROLL - 1, "2025-02-03T09:00:00", -1),  # one cent short at the first payroll
    (PAYROLL, "2025-03-03T09:00:00", -PAYROLL),  # exactly 0 after the first: survived to the second
])
def test_payroll_bankruptcy_starts_at_minus_one_cent(initial, when, funds):
    """A payroll leaving -1 cent is bankruptcy; one leaving exactly 0 is not."""
    w = StartupWorld(attrs.evolve(PRESETS["default"], initial_funds_cents=initial), 1)
    w.env.run(until=w.finished)
    assert (Status.BANKRUPT, "funds_negative_after_payroll", when, funds) == (
        w.status, w.terminal_detail, w.now_iso, w.funds_cents)
