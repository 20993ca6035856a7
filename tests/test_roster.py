"""Rosters: the ``--seat`` syntax, seats as tables, and rotation of seat positions across seeds."""

from __future__ import annotations

import pytest
from bizsim.runs.roster import MAX_SEATS, Seat, as_roster, rotate, rotations, split_seat
from bizsim.simcore.errors import ConfigError


def test_doctests():
    """The module's examples hold."""
    import doctest

    import bizsim.runs.roster

    assert 0 == doctest.testmod(bizsim.runs.roster).failed


def test_a_seat_reads_its_options_as_agent_opt_does():
    """Numbers and booleans are JSON, other text is text, and a comma stays in a value unless KEY= follows it."""
    (seat,) = as_roster(["llm:model=openai/m,api_base=http://127.0.0.1:9/v1,max_cost_usd=0.25,memory=window,state,"
                         "temperature=0"])
    assert "llm" == seat.agent
    assert {"model": "openai/m", "api_base": "http://127.0.0.1:9/v1", "max_cost_usd": 0.25,
            "memory": "window,state", "temperature": 0} == seat.options
    assert "llm:openai/m" == seat.shown


def test_an_agent_of_your_own_keeps_its_colon():
    """``package.module:function`` is an agent; options begin at the first colon followed by KEY=."""
    assert ("pkg.mod:fn", []) == split_seat("pkg.mod:fn")
    assert ("pkg.mod:fn", ["k=1", "j=x"]) == split_seat("pkg.mod:fn:k=1,j=x")
    assert ("planner", []) == split_seat(" planner ")


def test_seats_as_tables_and_objects_round_trip():
    """A table, a Seat and text give the same seat; to_dict reads back to it."""
    seat = Seat("llm", {"model": "openai/m"}, label="small")
    assert (seat,) == as_roster([seat.to_dict()])
    assert as_roster(["greedy"]) == as_roster([{"name": "greedy"}]) == (Seat("greedy"),)
    assert "small" == seat.shown


def test_bad_seats_are_named():
    """An empty name, an unknown table key, a NaN, a roster given as one string, too many seats: ConfigErrors."""
    for bad, words in [([""], "agent name"), ([{"name": "a", "opts": {}}], "opts unknown"),
                       (["llm:max_cost_usd=NaN"], "not a finite number"), ("planner", "list of seats"),
                       ([{"options": {}}], "needs a name"), (["=x"], "agent")]:
        with pytest.raises(ConfigError, match=words):
            as_roster(bad)
    with pytest.raises(ConfigError, match=f"limit of {MAX_SEATS}"):
        as_roster(["greedy"] * (MAX_SEATS + 1))


def test_rotation_turns_the_roster_and_wraps():
    """rotate(r, k): seat i gets r[(i + k) mod n]; k = n is the roster itself."""
    roster = ["a", "b", "c"]
    assert ["b", "c", "a"] == [s.agent for s in rotate(roster, 1)]
    assert ["c", "a", "b"] == [s.agent for s in rotate(roster, -1)]
    assert as_roster(roster) == rotate(roster, 3)


def test_over_n_consecutive_seeds_every_agent_sits_in_every_seat_once():
    """The balance a sweep relies on: each (agent, seat) pair exactly once per n seeds, each seed once."""
    roster = ["planner", "greedy", "random", "llm:model=openai/m"]
    seeds = [11, 12, 13, 14, 15, 16, 17, 18]
    turned = rotations(roster, seeds)
    assert seeds == [s for s, _ in turned]
    for block in (turned[:4], turned[4:]):
        pairs = [(seat.shown, i) for _, r in block for i, seat in enumerate(r)]
        assert 16 == len(set(pairs))


def test_a_roster_is_part_of_the_run_id_and_round_trips():
    """The roster (not its labels) joins the run id; to_dict/from_dict rebuild the spec; runs without one keep
    their ids."""
    from bizsim.runs.runspec import ARENA_AGENT, RunSpec

    one = RunSpec("vending-arena", "default", seed=2, roster=["planner", "llm:model=openai/m"])
    assert ARENA_AGENT == one.agent
    assert one == RunSpec.from_dict(one.to_dict(), recorded=True)
    turned = RunSpec("vending-arena", "default", seed=2, roster=["llm:model=openai/m", "planner"])
    labelled = RunSpec("vending-arena", "default", seed=2,
                       roster=[{"name": "planner", "label": "p"}, "llm:model=openai/m"])
    assert one.run_id != turned.run_id
    assert one.run_id == labelled.run_id
    assert "a9f0c995cf4b804a" == RunSpec("startup", "hard", "greedy", 3).run_id  # ids of one-agent runs unchanged


def test_a_roster_refuses_an_agent_beside_it():
    """A roster names every seat's agent: an agent or its options beside it, a world without seats, or restarts,
    are refused."""
    from bizsim.runs.runspec import RunSpec

    with pytest.raises(ConfigError, match="leave agent"):
        RunSpec("vending-arena", "default", "planner", roster=["markup"])
    with pytest.raises(ConfigError, match="'vending' has no seats.*arenas: .*vending-arena"):
        RunSpec("vending", "default", roster=["markup", "planner"])
    with pytest.raises(ConfigError, match="one episode"):
        RunSpec("vending-arena", "default", roster=["markup"], max_episodes=2)


def test_a_record_keeps_its_seats_and_reads_files_without_them():
    """result.json's seats list round-trips; a file without one reads as before; a seat that is no object is
    refused."""
    from bizsim.runs.record import RunRecord

    seats = [{"seat": 0, "agent": "planner", "options": {}, "label": "planner", "metric_value": 5, "summary": {}}]
    rec = RunRecord(world="w", benchmark_id="w-v1", preset="default", seed=1, agent="arena", agent_options={},
                    seats=seats)
    back = RunRecord.from_json(rec.to_json())
    assert seats == back.seats and "seats" not in back.summary
    assert None is RunRecord.from_json(rec.to_json().replace('"seats"', '"seats_"')).seats
    with pytest.raises(ConfigError, match=r"seats\[0\]"):
        RunRecord.from_json(rec.to_json().replace('"seats": [\n    {', '"seats": [3, {'))


def test_a_seats_agent_name_and_label_are_bounded():
    """A seat's agent name and label have a documented limit (MAX_SEAT_NAME_CHARS): past it, a ConfigError that
    names the limit, as text or as a table."""
    from bizsim.runs.roster import MAX_SEAT_NAME_CHARS, as_roster

    assert "a" * MAX_SEAT_NAME_CHARS == as_roster(["a" * MAX_SEAT_NAME_CHARS])[0].agent
    for seat in ("p" * (MAX_SEAT_NAME_CHARS + 1), {"name": "planner", "label": "x" * (MAX_SEAT_NAME_CHARS + 1)}):
        with pytest.raises(ConfigError, match=f"at most {MAX_SEAT_NAME_CHARS} characters"):
            as_roster([seat])
