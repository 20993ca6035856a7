"""startup-v2's labour market, property-tested through the public kit: money, payroll, departures, replay."""

from __future__ import annotations

from decimal import Decimal

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bizsim.models.startup.v2 import PRESETS, Hiring, StartupV2World
from bizsim.models.startup.v2.hiring import severance_cents
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.testing import assert_money_conserved, assert_refusal_changes_nothing, assert_replays, play
from bizsim.simcore.testing import strategies as kit

#: The words v2 scripts name: candidates, staff (hires get Emp_9 on), tasks.
WORDS = (*(f"Cand-{i}" for i in range(1, 10)), *(f"Emp_{i}" for i in range(1, 13)), "Task-42", "Task-8", "x", "")


#: Hires and fires that usually succeed, mixed into the kit's random lines (which name a real id only now and then).
_LABOUR = st.one_of(st.builds("employee hire --candidate Cand-{}".format, st.integers(1, 9)),
                    st.builds("employee fire --employee Emp_{}".format, st.integers(1, 12)))
_TURN = st.tuples(st.lists(kit.world_lines("startup-v2", WORDS), max_size=3), st.lists(_LABOUR, max_size=2)).map(
    lambda t: [*t[0], *t[1], "sim resume"])


def _payroll_is_the_roster(world: StartupV2World, report: dict) -> None:
    if report.get("payrolls_applied"):
        paid = sorted((e.ref, -e.amount_cents) for e in world.ledger if e.category == "monthly_payroll"
                      and e.t_us == world.now_us)
        assert sorted((e.uid, e.salary_cents) for e in world.employees) == paid


@given(kit.presets("startup-v2"), kit.seeds(40), st.lists(_TURN, min_size=1, max_size=8))
@settings(max_examples=25, deadline=None)
def test_any_script_conserves_money_pays_the_roster_and_replays(preset, seed, script):
    """Whatever is hired and fired: funds equal the ledger, each severance is months x salary, each payroll pays
    exactly the roster of its instant, nobody who left works, and the log replays to the byte."""
    world = StartupV2World(preset, seed)
    lines = _long_task(world) + [line for turn in script for line in turn]  # a long task lets paydays pass
    salaries: dict[str, int] = {}
    for line in lines:
        if world.done:
            break
        salaries.update((e.uid, e.salary_cents) for e in world.employees)  # as they stand before the line
        answer = play(world, [line])[0]
        if line == "sim resume":
            _payroll_is_the_roster(world, answer)
    assert_money_conserved(world, world.funds_cents)
    months = world.config.hiring.severance_months
    for e in world.ledger:
        if e.category == "severance":
            assert -e.amount_cents == severance_cents(salaries[e.ref], months)
    assert_replays(lambda: StartupV2World(preset, seed), world)


def _long_task(world: StartupV2World, employee: str = "Emp_1") -> list[str]:
    """Lines that start the longest acceptable market task with one employee: something to resume through."""
    task = max((t for t in world.market if t.required_prestige <= 1), key=lambda t: sum(t.required.values()))
    return [f"task accept --task-id {task.title}", f"task assign --task-id {task.title} --employees {employee}",
            f"task dispatch --task-id {task.title}"]


def test_a_fired_employee_does_no_more_work():
    """Fired mid-task, the only member leaves it: its progress stops, and they are off every task and payroll."""
    world = StartupV2World("default", 1)
    lines = _long_task(world)
    play(world, lines)
    play(world, [*_long_task(world, "Emp_2"), "sim resume"])
    task = world.find_task(lines[0].split()[-1])
    assert task.status == "active" and any(v > 0 for v in task.completed.values())
    fired = world.find_employee("Emp_1")
    answer = play(world, ["employee fire --employee Emp_1"])[0]
    assert [task.title] == answer["left_tasks"]
    frozen = dict(task.completed)
    play(world, ["sim resume"] * 30)
    assert frozen == task.completed
    assert fired not in world.employees and all(fired not in t.assignees for t in world.tasks)
    left = next(t for n, t, why in world.departed if (n, why) == ("Emp_1", "fired"))
    assert not [e for e in world.ledger if e.ref == fired.uid and e.category == "monthly_payroll" and e.t_us > left]


def test_a_hire_starts_after_notice_and_ramps_to_full_rates():
    """A hire joins after the notice at onboarding_start of their rates and reaches full rates in the ramp's
    steps (each rounded to 4 decimals); payroll pays them only once they are on the roster."""
    cfg = attrs.evolve(PRESETS["default"], hiring=Hiring(notice_days=2, onboarding_days=8, onboarding_steps=2,
                                                          onboarding_start=0.5))
    world = StartupV2World(cfg, 3)
    cand = world.candidates[0]
    name = play(world, [f"employee hire --candidate {cand.name}", *_long_task(world)])[0]["employee"]
    assert world.find_employee(name) is None
    report = play(world, ["sim resume"])[0]
    assert ["employee_started"] == [e["type"] for e in report["wake_events"]]
    emp = world.find_employee(name)
    assert {d: (r * Decimal("0.5")).quantize(Decimal("0.0001")) for d, r in cand.rates.items()} == emp.rates
    play(world, ["sim resume"] * 3)
    ramp = [data["productivity"] for _, kind, ev, data in world.trajectory if ev == "employee_ramp"]
    assert [0.75, 1.0] == ramp and name not in world.productivity
    assert all(abs(emp.rates[d] - r) <= Decimal("0.0002") for d, r in cand.rates.items())
    assert emp.salary_cents == cand.ask_cents


@pytest.mark.parametrize("bad, rule", [
    ({"severance_months": -1.0}, r"severance_months\(=-1.0\) must lie in"),
    ({"severance_months": 120.0, "ask_markup": 10.0}, None),
    ({"candidates": 51}, r"candidates\(=51\) must lie in"),
    ({"onboarding_start": 0.0}, r"onboarding_start\(=0.0\) must lie in"),
    ({"notice_days": 2.5}, r"notice_days\(=2.5\) has type float"),
])
def test_bad_hiring_configs_are_refused(bad, rule):
    """Out-of-range or mistyped hiring values are refused with one ConfigError naming the field and the rule."""
    if rule is None:
        Hiring(**bad)  # valid alone ...
        with pytest.raises(ConfigError, match=r"hiring.severance_months\(=120.0\).*above the limit"):
            attrs.evolve(PRESETS["default"], hiring=Hiring(**bad), salary_max_cents=10**14)  # ... overflows here
        return
    with pytest.raises(ConfigError, match=rule):
        Hiring(**bad)


def test_v1_reference_behaviour_is_refused_in_v2():
    """The reference implementation's quirks belong to startup-v1: a v2 config asking for one is refused."""
    with pytest.raises(ConfigError, match="reference_cli.*startup-v1's 'reference' preset"):
        attrs.evolve(PRESETS["default"], reference_cli=True)


def test_refusals_change_nothing():
    """Hiring an unknown candidate, firing a stranger, or firing without the severance in the bank is refused."""
    world = StartupV2World("default", 1)
    assert_refusal_changes_nothing(world, "employee hire --candidate Cand-99")
    assert_refusal_changes_nothing(world, "employee fire --employee Emp_77")
    assert_refusal_changes_nothing(world, "employee hire --candidate " + "x" * 500)
    poor = StartupV2World(attrs.evolve(PRESETS["default"], initial_funds_cents=1_000), 1)
    assert "Severance" in assert_refusal_changes_nothing(poor, "employee fire --employee Emp_1")["error"]
    off = StartupV2World(attrs.evolve(PRESETS["default"], hiring=Hiring(enabled=False)), 1)
    assert_refusal_changes_nothing(off, "employee candidates")
