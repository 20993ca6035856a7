"""The public test kit (bizsim.simcore.testing): its checks pass on sound worlds and catch broken ones."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bizsim.simcore.testing.checks
from bizsim.models.startup import StartupWorld
from bizsim.simcore.testing import (
    assert_deterministic, assert_money_conserved, assert_rate, assert_refusal_changes_nothing, assert_replays, play,
    rate_band,
)
from bizsim.simcore.testing import strategies as kit

from .strategies import WORLD_NAMES


def test_doctests():
    """The kit's docstring examples run."""
    failed, tried = doctest.testmod(bizsim.simcore.testing.checks)
    assert (0, True) == (failed, tried > 0)


@given(kit.world_scripts("startup", max_turns=3), kit.seeds(30))
@settings(max_examples=4, deadline=None)
def test_a_random_script_keeps_money_and_replays(script, seed):
    """Any script the kit draws for a world keeps its invariants and money, and replays byte for byte."""
    world = StartupWorld("default", seed)
    play(world, kit.script_lines("startup", script))
    assert_money_conserved(world, world.funds_cents)
    assert_replays(lambda: StartupWorld("default", seed), world)


@given(st.data())
@settings(max_examples=10, deadline=None)
def test_every_registered_world_gets_its_own_command_names(data):
    """The line strategy draws each registered world's own commands (never the advance command)."""
    from bizsim.simcore.registry import world_spec

    name = data.draw(st.sampled_from(WORLD_NAMES))
    cls = world_spec(name).world_class()
    line = data.draw(kit.world_lines(name))
    names = [spec.name for spec in cls.commands.visible() if not spec.advances]
    assert any(line == n or line.startswith(n + " ") for n in names), line


def test_money_made_outside_the_ledger_is_caught():
    """A world whose funds move without a ledger entry fails the money check, naming the gap."""
    world = StartupWorld("default", 1)
    world.ledger._funds += 5
    with pytest.raises(AssertionError, match="outside the ledger"):
        assert_money_conserved(world)


def test_a_refusal_that_changes_the_world_is_caught():
    """A refusal check fails when the line is accepted (here: a valid command changes the scratchpad)."""
    world = StartupWorld("default", 1)
    assert "error" in assert_refusal_changes_nothing(world, "task accept --task-id Task-99999")
    with pytest.raises(AssertionError, match="was not refused"):
        assert_refusal_changes_nothing(world, "scratchpad write --content x")


def test_nondeterminism_is_caught():
    """An agent that draws from state shared between runs makes two runs differ, and the check says so."""
    import itertools

    counter = itertools.count()

    def agent(world):
        world.execute(f"scratchpad write --content {next(counter)}")
        yield world.advance()

    with pytest.raises(AssertionError, match="different trajectories"):
        assert_deterministic(lambda: StartupWorld("default", 1), agent)


def test_rate_band_and_assert_rate():
    """Counts inside the band pass; one far outside fails with the band in the message."""
    lo, hi = rate_band(1000, 0.1)
    assert lo < 100 < hi
    assert_rate(100, 1000, 0.1)
    with pytest.raises(AssertionError, match="a rate of 0.1"):
        assert_rate(200, 1000, 0.1)
    with pytest.raises(ValueError, match="p=1.5"):
        rate_band(10, 1.5)


def test_world_lines_keep_the_odd_values_beside_the_worlds_own():
    """Values given add to the kit's odd values; they do not replace them (the property tests' hostile inputs)."""
    from hypothesis import find

    from bizsim.simcore.testing.strategies import ODD_VALUES, world_lines

    odd = next(v for v in ODD_VALUES if v.strip())
    line = find(world_lines("startup", values=("Task-1",)), lambda text: odd in text.split())
    assert odd in line.split()


def test_severance_booked_twice_is_caught_by_the_independent_count_the_ledger_alone_misses():
    """The mechanics page's property: a world that books the severance twice keeps a balanced ledger (the old check
    passed it), but the count of what the world answered it paid does not match."""
    from bizsim.agents.startup.v2 import greedy
    from bizsim.models.startup.v2 import StartupV2World
    from bizsim.simcore.watch import watch

    class DoubleSeverance(StartupV2World):
        def fire(self, emp, cost):
            self.ledger.post(self._now_us, "severance", -cost, emp.uid)
            return super().fire(emp, cost)

    def played(cls):
        world, answers, turns = cls("default", 3), [], [0]

        def fire_at_the_turn(w):
            turns[0] += 1
            if turns[0] == 5:
                answers.append(w.execute("employee fire --employee Emp_2"))

        world.run(watch(greedy, after=fire_at_the_turn))
        return world, -sum(a.get("severance_cents", 0) for a in answers)

    world, paid = played(StartupV2World)
    assert paid < 0
    assert_money_conserved(world, world.funds_cents, booked={"severance": paid})
    broken, paid = played(DoubleSeverance)
    assert_money_conserved(broken, broken.funds_cents)  # balanced: the ledger against itself cannot see it
    with pytest.raises(AssertionError, match=r"books -647564 cents as 'severance' \(2 entries\); counted "
                                             r"independently, -323782"):
        assert_money_conserved(broken, broken.funds_cents, booked={"severance": paid})
