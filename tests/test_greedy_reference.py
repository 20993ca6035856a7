"""The reference's greedy bot on preset ``reference`` gives the published greedy curve to the cent (spec Part 1 §5)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest

from bizsim.agents import greedy_reference
from bizsim.models.startup import StartupWorld
from bizsim.simcore import Status

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("greedy_reference")


MONTHS = [f"2025-{m:02d}" for m in range(1, 13)]

# End-of-month funds (cents) per seed, from February until the month before bankruptcy.
END_OF_MONTH = {
    1: [16_199_497, 13_519_816, 9_683_313, 5_846_810, 1_398_225],
    2: [24_366_621, 20_422_118, 17_702_617, 13_722_114, 9_741_611, 5_107_179, 1_126_676],
    3: [17_958_999, 14_122_496, 11_436_548, 9_308_734, 5_400_231, 891_081],
}
# The project website's greedy curve: mean over seeds 1-3 in dollars, January shown as the initial $200,000.
PUBLISHED = [
    "200000.00", "195083.72", "160214.77", "129408.26", "96258.86", "55133.56", "19994.20", "3755.59",
    "0.00", "0.00", "0.00", "0.00",
]


def monthly_curve(world: StartupWorld) -> dict[str, int]:
    """Funds after each month's last ledger entry (carried forward); 0 from the bankruptcy month on; January initial."""
    cal = world.calendar
    by_month: dict[str, int] = {}
    funds = world.ledger.initial_cents
    for e in world.ledger:
        funds += e.amount_cents
        by_month[cal.to_datetime(e.t_us).strftime("%Y-%m")] = funds
    bankrupt_month = world.now_iso[:7] if world.status is Status.BANKRUPT else None
    curve, last = {}, world.ledger.initial_cents
    for month in MONTHS:
        last = by_month.get(month, last)
        if bankrupt_month is not None and month >= bankrupt_month:
            last = 0
        curve[month] = last
    curve["2025-01"] = world.ledger.initial_cents
    return curve


@pytest.fixture(scope="module")
def runs() -> dict[int, StartupWorld]:
    """The reference greedy bot run on seeds 1-3 of preset ``reference``."""
    out = {}
    for seed in (1, 2, 3):
        w = StartupWorld("reference", seed)
        w.run(greedy_reference)
        out[seed] = w
    return out


@pytest.mark.parametrize(
    ("seed", "funds", "when"),
    [
        (1, -2_438_278, "2025-07-01T09:00:00"),
        (2, -2_853_827, "2025-09-01T09:00:00"),
        (3, -3_017_422, "2025-08-01T09:00:00"),
    ],
)
def test_greedy_reference_final_state(runs, seed, funds, when):
    """Each seed ends bankrupt at a payroll, with the reference's final funds to the cent."""
    w = runs[seed]
    expected = (Status.BANKRUPT, "funds_negative_after_payroll", when, funds)
    assert expected == (w.status, w.terminal_detail, w.now_iso, w.funds_cents)
    assert [] == w.invariants()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_greedy_reference_end_of_month_funds(runs, seed):
    """End-of-month funds from February until bankruptcy match the reference run, then count 0."""
    curve = monthly_curve(runs[seed])
    values = END_OF_MONTH[seed]
    expected = [20_000_000, *values] + [0] * (11 - len(values))
    assert expected == [curve[m] for m in MONTHS]


def test_published_curve_sums(runs):
    """The three seeds' end-of-month funds sum to three times the published means (cents)."""
    sums = [sum(monthly_curve(runs[s])[m] for s in (1, 2, 3)) for m in MONTHS[1:]]
    assert [58_525_117, 48_064_430, 38_822_478, 28_877_658, 16_540_067, 5_998_260, 1_126_676, 0, 0, 0, 0] == sums


def test_published_curve_to_the_cent(runs):
    """The mean over seeds 1-3 in dollars, rounded to the cent, is the website's greedy curve."""
    curves = [monthly_curve(runs[s]) for s in (1, 2, 3)]
    cent = Decimal("0.01")
    means = [str((Decimal(sum(c[m] for c in curves)) / 300).quantize(cent, rounding=ROUND_HALF_UP)) for m in MONTHS]
    assert PUBLISHED == means


def test_greedy_reference_policy(runs):
    """The bot works one task at a time with everyone, takes the top listed reward first, and inflates RAT work ×16."""
    w = runs[1]
    first = min((t for t in w.tasks if t.accepted_at is not None), key=lambda t: (t.accepted_at, t.serial))
    assert ("Task-10", 564 * 16, 8) == (first.title, first.required["research"], len(first.assignees))
    owned = sorted((t for t in w.tasks if t.accepted_at is not None), key=lambda t: t.accepted_at)
    for a, b in zip(owned, owned[1:]):
        assert a.completed_at is not None and a.completed_at <= b.accepted_at
    assert all(len(t.assignees) == 8 for t in owned)
    assert "Task-0" == next(t for t in w.tasks if t.serial == 201).title  # the bot's running replacement counter


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_month_end_funds_agree(runs, seed):
    """The world's month_end_funds equals the curve until the bankruptcy month, where it shows the negative funds."""
    w = runs[seed]
    own = w.month_end_funds()
    curve = monthly_curve(w)
    last = w.now_iso[:7]
    months = [m for m in MONTHS if "2025-01" < m < last]
    assert {m: curve[m] for m in months} == {m: own[m] for m in months}
    assert w.funds_cents == own[last]
