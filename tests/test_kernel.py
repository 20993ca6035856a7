"""The rest of simcore: ledger, random streams, the SimPy environment, trajectory, config helpers, World."""

from __future__ import annotations

import doctest
import math
from typing import Annotated

import attrs
import numpy as np
import pytest
import simpy
from hypothesis import given
from hypothesis import strategies as st

import bizsim.simcore.calendar
import bizsim.simcore.ledger
import bizsim.simcore.streams
import bizsim.simcore.summation
import bizsim.simcore.digests
import bizsim.simcore.untrusted_json
import bizsim.simcore.submetrics
from bizsim.simcore import (
    Arg, BizSimError, Calendar, CommandError, CommandSet, ConfigError, Ledger, RandomStreams, SimEnvironment, Status,
    Trajectory, World, stable_hash, to_json,
)
from bizsim.simcore.calendar import US_PER_HOUR
from bizsim.simcore.config import config_from_dict, deep_merge, dump_toml, in_range, load_toml, nested_config


@pytest.mark.parametrize("module", [
    bizsim.simcore.calendar, bizsim.simcore.ledger, bizsim.simcore.streams, bizsim.simcore.summation,
    bizsim.simcore.untrusted_json, bizsim.simcore.digests, bizsim.simcore.submetrics,
])
def test_doctests(module):
    """The examples in the kernel's docstrings run and hold."""
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert (0, True) == (failed, tried > 0)


def test_error_hierarchy():
    """Every deliberate error derives from BizSimError; ConfigError is also a ValueError."""
    assert issubclass(CommandError, BizSimError)
    assert issubclass(ConfigError, BizSimError) and issubclass(ConfigError, ValueError)
    assert {"error": "No."} == CommandError("No.").to_dict()
    assert {"error": "No.", "hint": "Try yes."} == CommandError("No.", "Try yes.").to_dict()


# ---------------------------------------------------------------------------
# ledger


def test_ledger_books_every_movement():
    """Funds are initial funds plus every entry, in order."""
    book = Ledger(1_000)
    book.post(5, "sale", 250, "order-1")
    book.post(9, "rent", -400)
    assert 850 == book.funds_cents
    assert 2 == len(book)
    assert [(5, "sale", 250, "order-1"), (9, "rent", -400, None)] == [tuple(e) for e in book]
    assert book.balanced()


@pytest.mark.parametrize("amount", [1.5, 2.0, True, "3", None])
def test_ledger_refuses_non_integer_cents(amount):
    """Money is integer cents: floats, bools and text are refused and nothing is booked."""
    book = Ledger(0)
    with pytest.raises(TypeError, match="must be an int"):
        book.post(0, "x", amount)
    assert (0, 0) == (book.funds_cents, len(book))


def test_ledger_refuses_non_integer_initial_funds():
    """Initial funds are integer cents too."""
    with pytest.raises(TypeError, match="initial_cents"):
        Ledger(10.0)  # type: ignore[arg-type]


@given(amounts=st.lists(st.integers(-10**9, 10**9), max_size=50), initial=st.integers(0, 10**10))
def test_ledger_funds_equal_initial_plus_sum(amounts, initial):
    """After any bookings funds equal initial funds plus the sum of the entries."""
    book = Ledger(initial)
    for i, a in enumerate(amounts):
        book.post(i, "x", a)
    assert initial + sum(amounts) == book.funds_cents
    assert book.balanced()


# ---------------------------------------------------------------------------
# random streams


def test_stable_hash_is_the_sha256_prefix():
    """The stable hash is the big-endian first 8 bytes of SHA-256, the reference's stream seed (spec §3)."""
    assert 14155287016879943281 == stable_hash("1:task_1")


def test_streams_are_reproducible_and_independent():
    """A stream's draws depend only on (seed, name), not on which other streams were used first."""
    alone = RandomStreams(7).get("market").integers(0, 10**9, size=5)
    busy = RandomStreams(7)
    busy.get("noise").random(100)
    busy.get("world_gen")
    assert alone.tolist() == busy.get("market").integers(0, 10**9, size=5).tolist()
    other = RandomStreams(7).get("noise").integers(0, 10**9, size=5)
    reseeded = RandomStreams(8).get("market").integers(0, 10**9, size=5)
    assert alone.tolist() != other.tolist()
    assert alone.tolist() != reseeded.tolist()


def test_streams_return_the_same_generator_for_a_name():
    """Asking twice for a name continues the same generator."""
    streams = RandomStreams(1)
    assert streams.get("a") is streams.get("a")
    assert isinstance(streams.get("a"), np.random.Generator)


@pytest.mark.parametrize("seed", [-1, True, 1.5, "1", None])
def test_streams_refuse_bad_seeds(seed):
    """A seed is a non-negative integer."""
    with pytest.raises(ValueError, match="non-negative integer"):
        RandomStreams(seed)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# the SimPy environment


def test_same_instant_events_run_by_priority_then_schedule_order():
    """Events at one instant run in ascending priority, ties in the order they were scheduled."""
    env = SimEnvironment()
    order = []
    for name, prio in [("c", 20), ("a", 10), ("d", 20), ("b", 10), ("e", 5)]:
        env.fire_at(3 * US_PER_HOUR, prio, name).callbacks.append(lambda ev: order.append(ev.value))
    env.fire_at(US_PER_HOUR, 99, "first").callbacks.append(lambda ev: order.append(ev.value))
    env.run()
    assert ["first", "e", "a", "b", "c", "d"] == order
    assert 3.0 == env.now


def test_equal_instants_stay_equal_whatever_the_path():
    """An instant scheduled from different current times is the same float hour (no drift)."""
    env = SimEnvironment()
    t_us = 10 * US_PER_HOUR + 1
    seen = []

    def proc(env):
        yield env.fire_at(3_333_333_333, 0)  # an awkward intermediate instant
        ev = env.fire_at(t_us, 0)
        ev.callbacks.append(lambda _: seen.append(env.now))
        yield ev

    env.process(proc(env))
    env.fire_at(t_us, 1).callbacks.append(lambda _: seen.append(env.now))
    env.run()
    assert [t_us / US_PER_HOUR] * 2 == seen


def test_scheduling_in_the_past_or_twice_is_refused():
    """An instant before now, or an event already triggered, is refused."""
    env = SimEnvironment()
    env.run(until=env.fire_at(2 * US_PER_HOUR, 0))
    with pytest.raises(ValueError, match="lies before now"):
        env.fire_at(US_PER_HOUR, 0)
    ev = env.event()
    env.succeed_at(ev, 3 * US_PER_HOUR, 0, "v")
    with pytest.raises(RuntimeError, match="already been triggered"):
        env.succeed_at(ev, 4 * US_PER_HOUR, 0)
    env.run()
    assert ("v", 3.0) == (ev.value, env.now)


# ---------------------------------------------------------------------------
# trajectory and canonical JSON


def test_trajectory_records_and_canonical_jsonl():
    """Records keep their order; JSONL is one canonical (sorted, compact) object a line."""
    traj = Trajectory()
    traj.add(0, "cmd", "ping", {"b": 1, "a": "é"})
    traj.add(5, "event", "tick", {"n": 1})
    assert 2 == len(traj)
    assert 1 == traj.count("cmd")
    assert (
        '{"data":{"a":"é","b":1},"kind":"cmd","name":"ping","t_us":0}\n'
        '{"data":{"n":1},"kind":"event","name":"tick","t_us":5}\n'
    ) == traj.to_jsonl()
    assert [{"t_us": 0, "kind": "cmd", "name": "ping", "data": {"b": 1, "a": "é"}}] == traj.as_dicts()[:1]


def test_to_json_refuses_nan():
    """Canonical JSON never carries NaN or infinity."""
    with pytest.raises(ValueError):
        to_json({"x": math.nan})


# ---------------------------------------------------------------------------
# config helpers


@nested_config
@attrs.frozen
class Inner:
    """A nested test config."""

    depth: int = attrs.field(default=1, validator=in_range(0, 5))


@attrs.frozen
class Outer:
    """A test config with a sub-table."""

    name: str = "x"
    inner: Inner = Inner()
    sizes: tuple[int, ...] = ()


def test_deep_merge_merges_tables_key_by_key():
    """Tables merge recursively; other values are replaced."""
    base = {"a": 1, "t": {"x": 1, "y": {"z": 1}}, "l": [1]}
    assert {"a": 1, "t": {"x": 2, "y": {"z": 1, "w": 3}}, "l": [2]} == deep_merge(
        base, {"t": {"x": 2, "y": {"w": 3}}, "l": [2]}
    )
    assert {"a": 1, "t": {"x": 1, "y": {"z": 1}}, "l": [1]} == base


def test_config_from_dict_builds_nested_and_refuses_unknown_keys():
    """Nested tables become nested configs, lists become tuples, unknown keys are refused by name."""
    data = {"name": "y", "inner": {"depth": 3}, "sizes": [1, 2]}
    assert Outer("y", Inner(3), (1, 2)) == config_from_dict(Outer, data)
    with pytest.raises(ConfigError, match=r"unknown Outer key\(s\): colour, size; known keys: inner, name, sizes"):
        config_from_dict(Outer, {"size": 1, "colour": 2})
    with pytest.raises(ConfigError, match=r"unknown Inner key\(s\): deep"):
        config_from_dict(Outer, {"inner": {"deep": 1}})
    with pytest.raises(ConfigError, match=r"depth\(=9\) must lie in \[0, 5\]"):
        config_from_dict(Outer, {"inner": {"depth": 9}})
    with pytest.raises(ConfigError, match="needs a table"):
        config_from_dict(Outer, [1])  # type: ignore[arg-type]


def test_dump_toml_leaves_out_none_inside_lists():
    """None values are left out of TOML everywhere, list items included (as the docstring promises)."""
    assert "d = [\n    1,\n]\n" == dump_toml({"d": [1, None]})


def test_toml_helpers(tmp_path):
    """TOML dumps drop None values; loading a missing or malformed file raises ConfigError."""
    text = dump_toml({"a": 1, "b": None, "t": {"c": None, "d": [1, 2]}})
    assert "a = 1\n\n[t]\nd = [\n    1,\n    2,\n]\n" == text
    path = tmp_path / "c.toml"
    path.write_text(text)
    assert {"a": 1, "t": {"d": [1, 2]}} == load_toml(path)
    with pytest.raises(ConfigError, match="does not exist"):
        load_toml(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("a = = 1")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_toml(bad)


# ---------------------------------------------------------------------------
# World: a toy world on the base class

TOY_COMMANDS = CommandSet(programs=("toy",))


@TOY_COMMANDS.command("note", "Keep a note.")
def _note(world: ToyWorld, text: Annotated[str, Arg("Text")]) -> dict:
    world.notes.append(text)
    return {"notes": len(world.notes)}


@TOY_COMMANDS.command("refuse", "Always refuses.")
def _refuse(world: ToyWorld) -> dict:
    raise CommandError("Refused.", "Do something else.")


@TOY_COMMANDS.command("crash", "Ends the episode as bankrupt.")
def _crash(world: ToyWorld) -> dict:
    world._end(Status.BANKRUPT, "test")
    return {"ok": True}


@TOY_COMMANDS.command("wait", "Advance a number of hours.", advances=True)
def _wait(world: ToyWorld, hours: Annotated[int, Arg("Hours", minimum=0)] = 1):
    if hours == 0:
        raise CommandError("Cannot wait zero hours.")
    t = world.now_us + hours * US_PER_HOUR
    world.env.fire_at(t, 0).callbacks.append(lambda _ev: world.tick(t))
    return world._await_stop()


class ToyWorld(World):
    """A world with notes and a clock, to test the base class."""

    name = "toy"
    version = 3
    commands = TOY_COMMANDS
    advance_command = "wait"

    def __init__(self) -> None:
        super().__init__(None, 5, Calendar(__import__("datetime").datetime(2025, 1, 1, 9)))
        self.notes: list[str] = []

    def tick(self, t_us: int) -> None:
        self._now_us = t_us
        self._deliver_stop({"now": self.now_iso}, 0)

    def state(self) -> dict:
        return {"notes": list(self.notes), "t": self.now_us}


def test_world_execute_results_and_refusals():
    """Commands return dicts; refusals and parse errors come back as {"error", "hint"} and change nothing."""
    w = ToyWorld()
    assert {"notes": 1} == w.execute("toy note --text hi", driven=True)
    before = w.state()
    assert {"error": "Refused.", "hint": "Do something else."} == w.execute("refuse", driven=True)
    assert "Unknown command 'nope'." == w.execute("nope", driven=True)["error"]
    hint = "Commands: note, refuse, crash, wait. Try 'help'."
    assert {"error": "Unknown tool 'nope'.", "hint": hint} == w.execute_tool("nope", {}, driven=True)
    assert before == w.state()
    assert {"notes": 2} == w.execute_tool("note", {"text": "again"}, driven=True)
    assert ["cmd"] * 5 == [r[1] for r in w.trajectory]
    assert ["note", "refuse", "?", "?", "note"] == [r[2] for r in w.trajectory]


def test_world_call_raises_refusals():
    """From Python, a refusal raises CommandError."""
    w = ToyWorld()
    assert {"notes": 1} == w.call("note", text="x")
    with pytest.raises(CommandError, match="Refused."):
        w.call("refuse")


def test_world_advance_and_run():
    """An agent process yields advance() and wakes at the stop with its report; stops are recorded."""
    w = ToyWorld()
    reports = []

    def agent(world):
        for _ in range(3):
            reports.append((yield world.advance()))

    proc = w.run(agent)
    assert proc.ok
    assert [{"now": "2025-01-01T10:00:00"}, {"now": "2025-01-01T11:00:00"}, {"now": "2025-01-01T12:00:00"}] == reports
    assert 3 == w.trajectory.count("stop")
    assert 3.0 == w.env.now


def test_world_advance_refused_returns_a_fired_event():
    """A refused advance still gives an event to yield, carrying the error."""
    w = ToyWorld()
    w.advance_command = "refuse"
    ev = w.advance()
    assert isinstance(ev, simpy.Event) and ev.triggered
    assert {"error": "Refused.", "hint": "Do something else."} == ev.value


def test_world_end_refuses_further_commands():
    """After the episode ends every command is refused, and ``finished`` fires with the status."""
    w = ToyWorld()
    assert {"ok": True} == w.execute("crash", driven=True)
    assert (True, Status.BANKRUPT, "test") == (w.done, w.status, w.terminal_detail)
    assert {"error": "The episode has ended (bankrupt).", "hint": "Start a new episode."} == w.execute("note --text x", driven=True)
    assert [] == w.notes
    w.env.run(until=w.finished)
    assert Status.BANKRUPT == w.finished.value


def test_world_run_reraises_agent_errors():
    """An exception inside the agent process surfaces from run()."""

    def agent(world):
        yield world.advance()
        raise RuntimeError("agent bug")

    with pytest.raises(RuntimeError, match="agent bug"):
        ToyWorld().run(agent)


def test_world_command_log_and_identity():
    """The command log holds canonical lines with their instants; the benchmark id is versioned."""
    w = ToyWorld()
    w.execute("toy note --text 'a b'", driven=True)

    def one_step(world):
        yield world.advance()

    w.run(one_step)
    w.execute("note --text=c", driven=True)
    w.execute("bogus line", driven=True)
    expected = [(0, "note --text 'a b'"), (0, "wait"), (US_PER_HOUR, "note --text c"), (US_PER_HOUR, "bogus line")]
    assert expected == w.command_log()
    assert "toy-v3" == w.benchmark_id
    assert {"time": "2025-01-01T10:00:00", "status": "running"} == w.observation()


@pytest.mark.parametrize(("world", "preset", "agent"), [
    ("startup", "default", "greedy"), ("vending", "small", "markup"), ("freelance", "default", "cautious"),
    ("operation", "default", "threshold"),
])
def test_close_frees_a_finished_world_without_the_cyclic_collector(world, preset, agent):
    import gc
    import weakref

    from bizsim.agents import make_agent
    from bizsim.models import world_class

    world_class(world)(preset, 2).run(make_agent(world, agent))  # first use imports and builds classes: garbage
    gc.collect()
    gc.disable()
    try:
        w = world_class(world)(preset, 3)
        w.run(make_agent(world, agent))
        refs = [weakref.ref(w), weakref.ref(w.env)]
        w.close()
        assert w.closed
        with pytest.raises(AttributeError):
            w.trajectory  # noqa: B018
        del w
        assert [r() for r in refs] == [None, None]
        # Nothing of the world was left to the collector. Other libraries' threads (an earlier test's event loop
        # in the same worker, a loopback server still closing) may leave garbage of their own meanwhile: only the
        # world's, its agent's and SimPy's objects count.
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        mine = ("bizsim.models", "bizsim.simcore", f"bizsim.agents.{world}", "simpy")
        ours = [type(o).__module__ for o in gc.garbage if type(o).__module__.startswith(mine)]
        assert [] == ours
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_close_from_inside_an_agent_is_refused_and_changes_nothing():
    from bizsim.models.startup import StartupWorld

    def closer(world):
        yield world.advance()
        world.close()

    w = StartupWorld("tutorial", 1)
    with pytest.raises(RuntimeError, match="inside a running process"):
        w.run(closer)
    assert w.status.value == "running" and w.env.processes
    w.close()
    assert w.closed


def test_an_agent_that_forgets_to_yield_is_told_so():
    """An agent function without a ``yield`` returns None: the error says to add the yield (it was
    ``'NoneType' object has no attribute 'send'``), through run_episode and World.run alike."""
    from bizsim.models.startup import StartupWorld
    from bizsim.runs import run_episode
    from bizsim.simcore.errors import ConfigError

    def forgetful(world):
        world.execute("company status")

    with pytest.raises(ConfigError, match="agent 'forgetful' returned NoneType, not a generator.*add the yield"):
        run_episode("startup", "default", forgetful, 1)
    with pytest.raises(ConfigError, match="not a generator"):
        StartupWorld("default", 1).run(forgetful)
