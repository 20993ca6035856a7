"""The vending arena: seats, turns, the one-seat reduction to the vending world, replay."""

from __future__ import annotations

import pickle

import pytest
from bizsim.agents.vending import markup, planner
from bizsim.models.vending import VendingWorld
from bizsim.models.vending.arena import VendingArena
from bizsim.simcore.arena_replay import ArenaSnapshot, restore_arena
from bizsim.simcore.errors import ConfigError, TurnError
from bizsim.simcore.registry import arena_names, world_names, world_spec


@pytest.mark.parametrize(("preset", "seed", "agent"), [("small", 1, planner), ("default", 3, markup),
                                                        ("medium", 5, planner)])
def test_one_seat_is_the_vending_world(preset, seed, agent):
    """Same seed, same agent: a one-seat arena's seat has the vending world's summary, state, log and trajectory."""
    arena = VendingArena(preset, seed, seats=1)
    arena.run([agent])
    world = VendingWorld(preset, seed)
    world.run(agent)
    seat = arena.seats[0]
    summary = dict(arena.summary()["seats"][0])
    assert (0, "horizon_reached") == (summary.pop("seat"), summary.pop("status"))
    assert world.summary() == summary
    assert world.state() == seat.state()
    assert world.command_log() == seat.command_log()
    assert world.trajectory.to_jsonl() == seat.trajectory.to_jsonl()


def test_two_seats_run_to_the_horizon():
    """Two built-in agents play a year; each seat is scored on its own and the invariants hold."""
    arena = VendingArena("small", 1, seats=2)
    arena.run([planner, markup])
    summary = arena.summary()
    assert ("horizon_reached", 366) == (summary["status"], summary["days"])
    assert [0, 1] == [s["seat"] for s in summary["seats"]]
    assert all(s["metric"] == "net_worth_cents" and s["days"] == 366 for s in summary["seats"])
    values = [s["metric_value"] for s in summary["seats"]]
    assert sorted(range(2), key=lambda k: -values[k]) == summary["standings"]
    assert [] == arena.invariants()


def test_rivals_share_the_customers():
    """Two copies of one agent sell fewer units each than it sells alone at that location."""
    alone = VendingArena("small", 2, seats=1)
    alone.run([planner])
    pair = VendingArena("small", 2, seats=2)
    pair.run([planner, planner])
    units = [s["units_sold"] for s in pair.summary()["seats"]]
    assert max(units) < alone.summary()["seats"][0]["units_sold"]


def test_seats_act_in_the_rotation():
    """Day d opens with seat (d + offset) mod n; a seat out of turn is refused without a record."""
    arena = VendingArena("small", 7, seats=3)
    first = arena.to_move
    assert (arena.turn_offset % 3) == first
    other = arena.seats[(first + 1) % 3]
    before = len(other.trajectory)
    with pytest.raises(TurnError, match="has the turn"):
        other.execute("products_research --query water")
    with pytest.raises(TurnError):
        other.call("products_research", query="water")
    assert before == len(other.trajectory)
    seen = []

    def watcher(seat):
        while not seat.done:
            seen.append((seat.arena.day, seat.seat))
            yield seat.advance()

    arena.run([watcher] * 3)
    for day in (0, 1, 2, 365):
        assert [(day, (day + arena.turn_offset + k) % 3) for k in range(3)] == [x for x in seen if x[0] == day]


def test_replay_and_pickle_rebuild_the_arena():
    """A snapshot (one log per seat) rebuilds every seat's trajectory and the arena's, byte for byte."""
    arena = VendingArena("small", 4, seats=3)
    arena.run([planner, markup, planner])
    again = restore_arena(ArenaSnapshot.from_json(arena.snapshot().to_json()))
    assert arena.state() == again.state()
    assert arena.trajectory.to_jsonl() == again.trajectory.to_jsonl()
    assert [s.trajectory.to_jsonl() for s in arena.seats] == [s.trajectory.to_jsonl() for s in again.seats]
    assert arena.summary() == pickle.loads(pickle.dumps(arena)).summary()


def test_registry_declares_the_arena():
    """vending-arena is registered with its seats and base world, and kept out of the single-agent list."""
    spec = world_spec("vending-arena")
    assert ((2, 8), "vending", True) == (spec.seats, spec.base, spec.is_arena)
    assert world_spec("vending").agents == spec.agents
    assert "vending-arena" in arena_names() and "vending-arena" not in world_names()
    assert 2 == len(spec.make("small", 1, seats=2).seats)
    with pytest.raises(ConfigError, match="seats"):
        VendingArena("small", 1, seats=9)
