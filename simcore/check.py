"""``check_world``: the kernel's contract, executable against any world."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from typing import Any

import simpy

from .registry import WorldSpec, load_object
from .replay import replay
from .watch import watch
from .world import Agent, World

__all__ = ["check_registration", "check_world", "probe_agent"]


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
        bad = world.invariants()
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


def check_world(
    factory: Callable[[int], World],
    agent: Agent = probe_agent,
    seeds: Iterable[int] = (1, 2),
    extra_bad_lines: Iterable[str] = (),
) -> None:
    """Assert the kernel's contract for a world; raise ``AssertionError`` naming what broke.

    Checked for each seed: the same seed and agent give byte-identical
    trajectories and equal states; replaying the command log reproduces
    the final state; invariants hold at every decision point; refused
    commands return ``{"error": ...}`` and change nothing; every visible
    command has a well-formed tool schema.
    """
    for seed in seeds:
        problems: list[str] = []
        first = factory(seed)
        first.run(_checked(agent, problems))
        assert not problems, f"seed {seed}: invariants broken: {problems[:3]}"
        assert first.invariants() == [], f"seed {seed}: final invariants broken: {first.invariants()}"
        second = factory(seed)
        second.run(agent)
        assert first.trajectory.to_jsonl() == second.trajectory.to_jsonl(), f"seed {seed}: two runs differ"
        assert first.state() == second.state(), f"seed {seed}: two runs end in different states"
        replayed = replay(lambda: factory(seed), first.command_log())
        assert replayed.state() == first.state(), f"seed {seed}: replay does not reproduce the final state"

        fresh = factory(seed)
        for line in [*_bad_lines(fresh), *extra_bad_lines]:
            before = fresh.state()
            out = fresh.execute(line)
            if isinstance(out, simpy.Event):
                continue
            assert isinstance(out, dict), f"{line!r} returned {type(out).__name__}, not a dict"
            if "error" in out:
                assert fresh.state() == before, f"refused command {line!r} changed the state"
        for spec in fresh.commands.visible():
            schema = spec.json_schema()["function"]
            assert schema["name"] == spec.tool_name and schema["parameters"]["type"] == "object", spec.name
            assert set(schema["parameters"]["required"]) <= set(schema["parameters"]["properties"]), spec.name


def check_registration(spec: WorldSpec, seed: int = 1) -> None:
    """Assert that a world's registration holds together; raise ``AssertionError`` naming what broke.

    Checked: the class has the registered name and version; every preset
    builds a world and round-trips through TOML; a fresh world's summary names
    its metric and holds its value; every agent, role, hook and action
    reference imports; the default agent is one of the agents.
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
        world.close()
    for label, refs in (("agents", spec.agents), ("roles", spec.roles)):
        for key, ref in refs.items():
            assert callable(load_object(ref)), f"{label}[{key!r}] = {ref} is not callable"
    for hook in (spec.analysis, spec.discrete_actions):
        if hook is not None:
            load_object(hook)
