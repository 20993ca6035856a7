"""One arena seat played from outside SimPy (simcore.arena_outside): the same arena, byte for byte, as the seat's
agent inside; a player who stops leaves a run its logs replay; a built-in agent's error surfaces."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bizsim.agents.startup import greedy, planner as startup_planner, random_agent
from bizsim.agents.vending import markup, planner
from bizsim.models.startup.arena import StartupArena
from bizsim.models.vending.arena import VendingArena
from bizsim.models.vending.arena_config import ARENA_PRESETS
from bizsim.simcore.arena_outside import OutsideSeat
from bizsim.simcore.arena_replay import replay_arena
from bizsim.simcore.errors import ConfigError, TurnError
from bizsim.simcore.registry import world_spec
from bizsim.simcore.testing import assert_outside_seat_matches
from bizsim.simcore.testing import strategies as kit
from bizsim.simcore.testing._guards import state_text

from .strategies import startup_rosters

#: A month at the small location: orders arrive, sell and run out within it.
MONTH = attrs.evolve(ARENA_PRESETS["small"], horizon_days=30)


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_vending_outside_seat_records_the_all_inside_run(seat):
    """Each seat of a three-seat vending arena, played from outside with its planner's lines, gives the run."""
    played = assert_outside_seat_matches(lambda: VendingArena("small", 2, seats=3), [planner, markup, planner], seat)
    assert played.done and [] == played.invariants()


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_startup_outside_seat_records_the_all_inside_run(seat):
    """Event time: each company of a three-company market, played from outside, gives the all-inside run."""
    played = assert_outside_seat_matches(lambda: StartupArena("default", 5, seats=3),
                                         [startup_planner, greedy, random_agent], seat)
    assert played.done and [] == played.invariants()


@given(seed=kit.seeds(), roster=kit.rosters("vending-arena", 2, 4), data=st.data())
@settings(max_examples=8, deadline=None)
def test_any_vending_roster_any_seat(seed, roster, data):
    """Any roster of built-in agents, any seat played from outside: the all-inside run, byte for byte."""
    spec = world_spec("vending-arena")
    seat = data.draw(st.integers(0, len(roster) - 1), label="seat")
    assert_outside_seat_matches(lambda: VendingArena(MONTH, seed, seats=len(roster)),
                                [spec.agent(name) for name in roster], seat)


@given(seed=kit.seeds(30), roster=startup_rosters(), data=st.data())
@settings(max_examples=6, deadline=None)
def test_any_startup_roster_any_seat(seed, roster, data):
    """Any roster of quick startup agents, any company played from outside: the all-inside run, byte for byte."""
    spec = world_spec("startup-arena")
    seat = data.draw(st.integers(0, len(roster) - 1), label="seat")
    assert_outside_seat_matches(lambda: StartupArena("default", seed, seats=len(roster)),
                                [spec.agent(name) for name in roster], seat)


@pytest.mark.parametrize("make, agents, advance", [
    (lambda: VendingArena(MONTH, 3, seats=3), [planner, None, markup], "task_done"),
    (lambda: StartupArena("default", 3, seats=3), [greedy, None, random_agent], "bot wait"),
])
def test_a_player_who_stops_leaves_a_run_its_logs_replay(make, agents, advance):
    """A few turns, then the player stops (mid-way, its seat parked in its turn): the seats' logs replay to that
    very point, and feeding the outside seat's lines to a fresh run rebuilds it (resume)."""
    arena = make()
    outside = OutsideSeat(arena, 1, agents)
    for turn in range(4):
        assert outside.parked and outside.seat.has_turn
        outside.send("messages_read" if advance == "task_done" else "company status")
        before = outside.seat.now_us
        report = outside.send(advance, allow_hidden=True)
        assert "error" not in report and outside.seat.now_us > before, (turn, report)
    assert outside.parked and not outside.over and not outside.seat.retired
    again = replay_arena(make, arena.command_logs())
    assert state_text(again) == state_text(arena) and again.to_move == 1
    fresh = make()
    resumed = OutsideSeat(fresh, 1, agents)
    for _, line in arena.command_logs()[1]:
        resumed.send(line, allow_hidden=True)
    assert fresh.command_logs() == arena.command_logs() and state_text(fresh) == state_text(arena)
    assert resumed.parked


def test_not_its_turn_is_refused_and_records_nothing():
    """The outside seat sends nothing while a rival has the turn; after an advance the run plays to its next turn."""
    arena = VendingArena(MONTH, 4, seats=2)
    outside = OutsideSeat(arena, 0, [None, markup])
    outside.send("task_done")
    assert outside.parked and arena.seats[0].day == 1
    log = arena.command_logs()
    outside._parked = False  # as between turns
    with pytest.raises(TurnError):
        outside.send("messages_read")
    assert arena.command_logs() == log


def test_a_built_in_agent_that_raises_re_raises():
    """As arena.run does, the driver re-raises a rival agent's error (on the advance that let it act)."""
    def broken(world):
        yield world.advance()
        raise RuntimeError("the rival broke on day 1")

    outside = OutsideSeat(VendingArena(MONTH, 1, seats=2), 0, [None, broken])
    with pytest.raises(RuntimeError, match="rival broke"):
        for _ in range(3):  # the rival's day 1 comes within the outside seat's next two advances
            outside.send("task_done")


def test_a_rival_that_stops_leaves_its_turns_while_the_outside_seat_plays():
    """A rival whose agent returns retires (its advances issued by the arena); the outside seat plays on alone."""
    def brief(world):
        world.execute("messages_read")
        return
        yield

    arena = VendingArena(MONTH, 2, seats=2)
    outside = OutsideSeat(arena, 0, [None, brief])
    for _ in range(30):
        if outside.over:
            break
        outside.send("task_done")
    assert outside.over and arena.done and arena.seats[1].retired
    assert [line for _, line in arena.command_logs()[1]].count("task_done") >= 29


def test_bad_arguments_are_refused():
    arena = VendingArena(MONTH, 1, seats=2)
    with pytest.raises(ConfigError, match="seat index from 0 to 1"):
        OutsideSeat(arena, 2, [None, markup])
    with pytest.raises(ConfigError, match="one per seat"):
        OutsideSeat(arena, 0, [None])
    with pytest.raises(ConfigError, match=r"seats \[1\] have no agent"):
        OutsideSeat(arena, 0, [None, None])


@pytest.mark.parametrize("make, agents, advance", [
    (lambda: VendingArena(MONTH, 5, seats=3), [planner, None, markup], "task_done"),
    (lambda: StartupArena("default", 4, seats=2), [None, greedy], "bot wait"),
])
def test_a_seat_stopped_by_its_player_is_the_seat_an_agent_stopped_inside(make, agents, advance):
    """A seat aborted in its turn (a cap) and stopped from outside gives the arena an agent that aborted its seat
    and returned gives inside: the rivals play on to the end, the same bytes."""
    k = agents.index(None)

    def capped(world):
        for _ in range(2):
            yield world.execute(advance, allow_hidden=True)  # the advance's event (greedy's hidden `bot wait` too)
        world.abort("max_turns reached")

    inside = make()
    inside.run([capped if a is None else a for a in agents])
    arena = make()
    outside = OutsideSeat(arena, k, agents)
    for _ in range(2):
        outside.send(advance, allow_hidden=True)
    outside.seat.abort("max_turns reached")
    outside.stop()
    assert outside.over and arena.done
    assert state_text(arena) == state_text(inside) and arena.command_logs() == inside.command_logs()
    assert [s.trajectory.to_jsonl() for s in arena.seats] == [s.trajectory.to_jsonl() for s in inside.seats]
    with pytest.raises(ConfigError, match="once its world has ended"):
        OutsideSeat(make(), k, agents).stop()
