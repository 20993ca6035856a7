"""startup-v2's exogenous disruptions: rates, schedules, warnings, money, collapses, replay (through the kit)."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bizsim.agents.startup.v2 import greedy
from bizsim.models.startup.v2 import PRESETS, StartupV2World
from bizsim.models.startup.v2.config import Disruptions
from bizsim.models.startup.v2.disruptions import KINDS, cut_cents, daily_probability, late_payment, schedule
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.testing import (
    assert_money_conserved, assert_rate, assert_refusal_changes_nothing, assert_replays, play,
)

#: Every kind several times a year, every late payment a coin flip: a year full of disruptions.
STORMY = Disruptions(enabled=True, warning_days=5, downturns_per_year=6.0, downturn_days=20, collapses_per_year=3.0,
                     resignations_per_year=6.0, late_payment_prob=0.5, late_payment_days=20)
SEEDS = range(1, 81)


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_happens_at_its_configured_rate(kind):
    """Over 80 seeds of 365 days, each kind's count lies within 4 standard deviations of days x rate / 365."""
    count = sum(1 for seed in SEEDS for _, k in schedule(seed, STORMY, 365) if k == kind)
    assert_rate(count, len(SEEDS) * 365, daily_probability(STORMY, kind), what=f"{kind} days")


def test_late_payments_happen_at_their_probability():
    """Of 4,000 succeeded tasks, the share paid late agrees with late_payment_prob (4 standard deviations)."""
    late = sum(late_payment(seed, STORMY, f"task-{n}") for seed in range(1, 5) for n in range(1000))
    assert_rate(late, 4000, STORMY.late_payment_prob, what="late payments")


def test_a_kind_switched_off_never_happens_and_the_others_do_not_move():
    """A zero rate removes its kind; the other kinds' days stay where they were (each kind has its own stream)."""
    quiet = attrs.evolve(STORMY, collapses_per_year=0.0)
    for seed in (1, 2, 3):
        full = schedule(seed, STORMY, 365)
        assert [e for e in full if e[1] != "client_collapse"] == schedule(seed, quiet, 365)
    assert [] == schedule(1, attrs.evolve(STORMY, enabled=False), 365)


@pytest.fixture(scope="module")
def stormy_year() -> StartupV2World:
    """A year of the greedy floor on a stormy default world: it notices tasks cancelled under it and plays to the
    horizon (its replay is checked by the property test below)."""
    world = StartupV2World(attrs.evolve(PRESETS["default"], disruptions=STORMY), 7)
    world.run(greedy)
    assert "horizon_end" == world.terminal_detail
    return world


def test_the_schedule_is_what_happens_with_its_warnings(stormy_year):
    """Every scheduled disruption happens on its day at opening time; each downturn and collapse is announced
    warning_days before; the seed alone fixes the schedule."""
    w = stormy_year
    names = {"downturn": "market_downturn", "client_collapse": "client_collapsed", "resignation": "employee_resigned"}
    day_us = 86_400_000_000
    seen = [(t // day_us, n) for t, kind, n, _ in w.trajectory if kind == "event" and n in names.values()]
    expected = [(d, names[k]) for d, k in w.disruption_schedule]
    missing = [e for e in expected if e not in seen]
    assert sorted(seen) == sorted(e for e in expected if e not in missing)
    # Only the last client or employee may be spared: every downturn happens.
    assert all(name in ("client_collapsed", "employee_resigned") for _, name in missing) and len(missing) < 3
    warnings = [(t // day_us, data["kind"]) for t, kind, n, data in w.trajectory if n == "disruption_warning"]
    assert [(d - 5, k) for d, k in w.disruption_schedule if k != "resignation" and d > 5] == warnings
    assert_money_conserved(w, w.funds_cents)
    assert [] == w.invariants()


def test_downturn_cuts_and_late_payments_are_booked_and_paid(stormy_year):
    """A reward paid in a downturn loses cut_cents of it; a delayed one is taken back at completion and paid in
    full late_payment_days later (or is still owed at the end)."""
    w = stormy_year
    by_task: dict[str, dict[str, int]] = {}
    for e in w.ledger:
        by_task.setdefault(e.ref or "", {}).setdefault(e.category, 0)
        by_task[e.ref or ""][e.category] += e.amount_cents
    cuts = delayed = 0
    for uid, rows in by_task.items():
        if "downturn_cut" in rows:
            cuts += 1
            assert -rows["downturn_cut"] == cut_cents(rows["task_reward"], STORMY.downturn_reward_cut)
        if "payment_delayed" in rows:
            delayed += 1
            owed = rows["task_reward"] + rows.get("downturn_cut", 0)
            assert -rows["payment_delayed"] == owed and rows.get("late_payment", owed) == owed
    assert cuts > 0 and delayed > 0


def test_a_collapsed_client_takes_its_work_and_pays_nothing():
    """A client gone under: its planned and active tasks are cancelled unpaid, its tasks leave the market, and
    accepting one is refused without changing anything."""
    world = StartupV2World("default", 1)
    task = world.find_task("Task-42")
    play(world, ["task accept --task-id Task-42", "task assign --task-id Task-42 --employees Emp_1,Emp_2",
                 "task dispatch --task-id Task-42"])
    client = task.client.name
    assert ["Task-42"] == world.collapse(client)
    assert ("cancelled", []) == (task.status, [e for e in world.ledger if e.ref == task.uid])
    listed = play(world, ["market browse --limit 1000"])[0]["tasks"]
    assert listed and client not in {t["client_name"] for t in listed}
    theirs = next(t for t in world.market if t.client.name == client and t.required_prestige <= 1
                  and t.required_trust == 0)
    assert "gone under" in assert_refusal_changes_nothing(world, f"task accept --task-id {theirs.title}")["error"]
    assert [] == world.invariants()


@given(st.sampled_from([1, 2, 3]), st.lists(st.sampled_from([
    "employee hire --candidate Cand-1", "employee hire --candidate Cand-7", "employee fire --employee Emp_2",
    "task accept --task-id Task-8", "task assign --task-id Task-8 --employees Emp_3,Emp_9",
    "task dispatch --task-id Task-8", "sim resume", "sim resume", "sim resume"]), max_size=30))
@settings(max_examples=10, deadline=None)
def test_any_play_in_a_storm_conserves_money_and_replays(seed, lines):
    """Whatever the agent does while disruptions strike, funds equal the ledger and the log replays to the byte."""
    cfg = attrs.evolve(PRESETS["default"], disruptions=STORMY)
    world = StartupV2World(cfg, seed)
    play(world, ["task accept --task-id Task-42", "task assign --task-id Task-42 --employees Emp_1",
                 "task dispatch --task-id Task-42", *lines])
    assert_money_conserved(world, world.funds_cents)
    assert_replays(lambda: StartupV2World(cfg, seed), world)


@pytest.mark.parametrize("bad, rule", [
    ({"downturns_per_year": -1.0}, r"downturns_per_year\(=-1.0\) must lie in \[0.0, 52.0\]"),
    ({"resignations_per_year": 500.0}, r"resignations_per_year\(=500.0\) must lie in"),
    ({"late_payment_prob": 1.5}, r"late_payment_prob\(=1.5\) must lie in \[0.0, 1.0\]"),
    ({"downturn_reward_cut": 1.0}, r"downturn_reward_cut\(=1.0\) must lie in"),
    ({"collapses_per_year": float("nan")}, r"collapses_per_year\(=nan\) must be a finite number"),
    ({"warning_days": "soon"}, r"warning_days\(='soon'\) must be a number"),
])
def test_bad_disruption_configs_are_refused(bad, rule):
    """Negative rates, probabilities above 1, non-finite or mistyped values: one ConfigError naming the rule."""
    with pytest.raises(ConfigError, match=rule):
        Disruptions(**bad)
