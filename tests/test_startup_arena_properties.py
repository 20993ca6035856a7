"""startup-arena's properties under any play: money conserved across companies (payments zero-sum), a refusal
changes nothing for any company, runs deterministic and replayable for any roster (bizsim.simcore.testing)."""

from __future__ import annotations

import json

import simpy
from bizsim.agents.startup import greedy, random_agent
from bizsim.models.startup.arena import StartupArena
from bizsim.simcore.arena_replay import replay_arena
from bizsim.simcore.testing import assert_arena_deterministic, assert_arena_replays, assert_money_conserved
from hypothesis import given, settings
from hypothesis import strategies as st

from .strategies import arena_actions, render_arena, seeds, startup_rosters

AGENTS = {"greedy": greedy, "random": random_agent}


def whole(arena: StartupArena) -> str:
    """Every company's state, by value (a refusal must leave all of them as they were)."""
    return json.dumps(arena.state(), sort_keys=True, default=str)


def scripted(actions: list[tuple], paid: dict[int, int], refusals: list[str]):
    """An agent playing ``actions`` in its company's state at each turn; it checks, at every refused line, that no
    company changed, and counts the payments the answers say were made (``paid``: seat -> net cents)."""

    def agent(seat):
        arena = seat.arena
        for action in actions:
            for line in render_arena(seat, action):
                if seat.done:
                    return
                before = whole(arena)
                out = seat.execute(line)
                if isinstance(out, simpy.Event):
                    yield out
                elif "error" in out:
                    refusals.append(line)
                    assert before == whole(arena), f"the refused {line!r} changed a company"
                elif "amount_cents" in out:
                    paid[seat.seat] = paid.get(seat.seat, 0) - out["amount_cents"]
                    paid[out["to"]] = paid.get(out["to"], 0) + out["amount_cents"]

    return agent


@given(scripts=st.lists(st.lists(arena_actions(), max_size=14), min_size=2, max_size=4), seed=seeds(50))
@settings(max_examples=25, deadline=None)
def test_money_is_conserved_and_refusals_change_nothing(scripts, seed):
    """Whatever the companies do, each ledger balances, payments cancel out across companies, what the answers
    said was paid is what the ledgers book, and every refused line left every company as it was."""
    arena = StartupArena("default", seed, seats=len(scripts))
    paid: dict[int, int] = {}
    refusals: list[str] = []
    arena.run([scripted(s, paid, refusals) for s in scripts])
    for seat in arena.seats:
        net = paid.get(seat.seat, 0)
        booked = {c: sum(e.amount_cents for e in seat.ledger if e.category == c) for c in ("transfer_in", "transfer_out")}
        assert net == booked["transfer_in"] + booked["transfer_out"]
        assert_money_conserved(seat, seat.funds_cents, booked=booked)
    assert 0 == sum(paid.values())
    assert [] == arena.invariants()


@given(scripts=st.lists(st.lists(arena_actions(), max_size=10), min_size=2, max_size=3), seed=seeds(50))
@settings(max_examples=15, deadline=None)
def test_scripted_arenas_replay_byte_for_byte(scripts, seed):
    """The companies' command logs rebuild the arena: every trajectory (the arena's too) byte for byte, every
    state."""
    arena = StartupArena("default", seed, seats=len(scripts))
    arena.run([scripted(s, {}, []) for s in scripts])
    again = assert_arena_replays(lambda: StartupArena("default", seed, seats=len(scripts)), arena)
    assert whole(arena) == whole(again)


@given(roster=startup_rosters(), seed=seeds(200))
@settings(max_examples=6, deadline=None)
def test_rosters_are_deterministic_and_replay(roster, seed):
    """Any roster of the quick built-in agents: two runs record the same bytes, the logs replay them, and the arena
    stays sound (one market, no task owned twice, payments zero-sum)."""

    def make():
        return StartupArena("default", seed, seats=len(roster))

    first = assert_arena_deterministic(make, [AGENTS[name] for name in roster])
    again = replay_arena(make, first.command_logs())
    assert whole(first) == whole(again)
    assert [] == first.invariants()
