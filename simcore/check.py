"""``check_world``: the kernel's contract, executable against any world."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterable
from typing import Any

import attrs
import simpy

from .errors import BizSimError
from .registry import WorldSpec, load_object
from .replay import replay
from .testing._guards import broken_invariants, state_text
from .watch import watch
from .world import Agent, World

__all__ = ["WorldCheck", "check_registration", "check_world", "probe_agent"]


def probe_agent(world: World, max_stops: int = 50) -> Generator[simpy.Event, Any, None]:
    """A generic agent: issues every visible command bare, then advances."""
    for _ in range(max_stops):
        for spec in world.commands.visible():
            if not spec.advances:
                world.execute(spec.name)
        report = yield world.advance()
        if world.done or (isinstance(report, dict) and "error" in report):
            return


def _checked(agent: Agent, problems: list[str]) -> Agent:
    def check(world: World) -> None:
        bad = broken_invariants(world)
        if bad:
            problems.append(f"at t_us={world.now_us}: " + "; ".join(bad))

    return watch(agent, before=check)


def _bad_lines(world: World) -> list[str]:
    lines = ["", "   ", "no-such-command", "--help", "'unclosed", "help --command 'no such'"]
    for spec in world.commands.visible():
        lines.append(f"{spec.name} --no-such-flag 1")
        for p in spec.params:
            lines.append(f"{spec.name} {p.flag}")
            if p.type in (int, float):
                lines.append(f"{spec.name} {p.flag} not-a-number")
    return lines


@attrs.frozen
class WorldCheck:
    """What :func:`check_world` checked and found sound; ``str()`` says it in a few lines."""

    world: str
    seeds: tuple[int, ...]
    #: Per seed: decision points, commands run, trajectory records (the first of the two identical runs).
    turns: tuple[int, ...]
    commands: tuple[int, ...]
    records: tuple[int, ...]
    refusals: int
    tools: int

    def __str__(self) -> str:
        per_seed = ", ".join(f"seed {s}: {t} decision points, {c} commands, {r} records"
                             for s, t, c, r in zip(self.seeds, self.turns, self.commands, self.records, strict=True))
        return (f"check_world({self.world}): passed\n"
                f"  two runs of each seed recorded the same trajectory and ended in the same state ({per_seed})\n"
                f"  replaying each command log reproduced the final state; invariants held at every decision point\n"
                f"  {self.refusals} malformed command lines refused, the state unchanged; {self.tools} tool schemas "
                "well formed")


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit:,} more characters)"


def _parting(first: World, second: World) -> str:
    """Where two runs of the same seed parted: the first record that differs, both versions, and the command
    before it."""
    a, b = first.trajectory.to_jsonl().splitlines(), second.trajectory.to_jsonl().splitlines()
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    last_cmd = next((json.loads(x) for x in reversed(a[:k]) if '"kind":"cmd"' in x.replace(" ", "")), None)
    before = (f"; the last command both ran before it: {last_cmd.get('name')!r} at t_us={last_cmd.get('t_us')}"
              if isinstance(last_cmd, dict) else "")
    first_rec = _clip(a[k]) if k < len(a) else f"nothing (it ended after {len(a)} records)"
    second_rec = _clip(b[k]) if k < len(b) else f"nothing (it ended after {len(b)} records)"
    return (f"two runs of the same seed and agent part at trajectory record {k}{before}.\n"
            f"    first run:  {first_rec}\n    second run: {second_rec}\n"
            "  A world draws every random number from its named streams (world.streams), never from global random "
            "state, the wall clock or the order of a set.")


def _state_difference(first: dict[str, Any], second: dict[str, Any]) -> str:
    keys = sorted(k for k in set(first) | set(second) if first.get(k) != second.get(k))
    return "; ".join(f"{k}: {_clip(repr(first.get(k)), 120)} vs {_clip(repr(second.get(k)), 120)}" for k in keys[:5])


def check_world(
    factory: Callable[[int], World],
    agent: Agent = probe_agent,
    seeds: Iterable[int] = (1, 2),
    extra_bad_lines: Iterable[str] = (),
) -> WorldCheck:
    """Assert the kernel's contract for a world; raise ``AssertionError`` naming what broke.

    Checked for each seed: the same seed and agent give byte-identical
    trajectories and equal states; replaying the command log reproduces
    the final state; invariants hold at every decision point; refused
    commands return ``{"error": ...}`` and change nothing; every visible
    command has a well-formed tool schema.

    Returns:
        what was checked (``print`` it for a summary).

    Raises:
        AssertionError: the first broken rule; for two runs that differ, the record where they parted, both
            versions of it, and the command before it.
    """
    seeds = tuple(seeds)
    turns: list[int] = []
    counts: list[int] = []
    records: list[int] = []
    refusals = tools = 0
    name = "?"
    for seed in seeds:
        problems: list[str] = []
        decisions = [0]

        def count(world: World) -> None:
            decisions[0] += 1

        first = factory(seed)
        name = first.benchmark_id
        first.run(watch(_checked(agent, problems), before=count))
        assert not problems, f"seed {seed}: invariants broken: {problems[:3]}"
        final = broken_invariants(first)
        assert final == [], f"seed {seed}: final invariants broken: {final[:3]}"
        second = factory(seed)
        second.run(agent)
        assert first.trajectory.to_jsonl() == second.trajectory.to_jsonl(), f"seed {seed}: {_parting(first, second)}"
        assert state_text(first) == state_text(second), (
            f"seed {seed}: two runs recorded the same trajectory but end in different states: "
            f"{_state_difference(first.state(), second.state())}")
        replayed = replay(lambda: factory(seed), first.command_log())
        assert state_text(replayed) == state_text(first), (
            f"seed {seed}: replay does not reproduce the final state (the command log replayed): "
            f"{_state_difference(first.state(), replayed.state())} (first run vs replay)")
        turns.append(decisions[0])
        counts.append(len(first.command_log()))
        records.append(len(first.trajectory.to_jsonl().splitlines()))

        fresh = factory(seed)
        for line in [*_bad_lines(fresh), *extra_bad_lines]:
            before = state_text(fresh)  # by value: a state() that hands out its own lists cannot hide a change
            out = fresh.execute(line, driven=True)
            if isinstance(out, simpy.Event):
                continue
            assert isinstance(out, dict), f"{line!r} returned {type(out).__name__}, not a dict"
            if "error" in out:
                assert state_text(fresh) == before, f"refused command {line!r} changed the state"
                refusals += 1
        for spec in fresh.commands.visible():
            schema = spec.json_schema()["function"]
            assert schema["name"] == spec.tool_name and schema["parameters"]["type"] == "object", spec.name
            assert set(schema["parameters"]["required"]) <= set(schema["parameters"]["properties"]), spec.name
            tools += 1
    return WorldCheck(world=name, seeds=seeds, turns=tuple(turns), commands=tuple(counts), records=tuple(records),
                      refusals=refusals, tools=tools)


def check_registration(spec: WorldSpec, seed: int = 1) -> None:
    """Assert that a world's registration holds together; raise ``AssertionError`` naming what broke.

    Checked: the class has the registered name and version; every preset
    builds a world and round-trips through TOML; a fresh world's summary names
    its metric and holds its value, and every declared sub-metric reads a
    finite number on it; every agent, role, hook and action reference
    imports; the default agent is one of the agents.
    """
    cls = spec.world_class()
    assert isinstance(cls, type) and issubclass(cls, World), f"{spec.factory} is not a World subclass"
    assert (cls.name, cls.version) == (spec.name, spec.version), (
        f"{spec.factory} says {cls.name}-v{cls.version}, the registration {spec.benchmark_id}")
    table = spec.preset_table()
    assert len(table) > 0 and "default" in table, f"{spec.presets} has no 'default' preset"
    for name in table:
        config = table.preset(name)
        assert table.cls is type(config), f"preset {name!r} is a {type(config).__name__}, not a {table.cls.__name__}"
        world = spec.make(config, seed)
        assert world.config == config, f"preset {name!r}: the world does not hold the config it was given"
        summary = world.summary()
        assert "metric" in summary and summary["metric"] in summary and "metric_value" in summary, (
            f"preset {name!r}: summary() must name its metric and hold metric_value; it has {sorted(summary)[:12]}")
        assert world.invariants() == [], f"preset {name!r}: a fresh world breaks {world.invariants()}"
        for sub in spec.sub_metrics:
            try:
                sub.read(world, summary)
            except BizSimError as exc:
                raise AssertionError(f"preset {name!r}: {exc}") from None
        world.close()
    for label, refs in (("agents", spec.agents), ("roles", spec.roles)):
        for key, ref in refs.items():
            assert callable(load_object(ref)), f"{label}[{key!r}] = {ref} is not callable"
    for hook in (spec.analysis, spec.discrete_actions):
        if hook is not None:
            load_object(hook)
