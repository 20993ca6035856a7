"""``check_world``: the kernel's contract, executable against any world."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable

import simpy

from .replay import replay
from .watch import watch
from .world import World

__all__ = ["check_world", "probe_agent"]


def probe_agent(world: World, max_stops: int = 50) -> Generator:
    """A generic agent: issues every visible command bare, then advances."""
    for _ in range(max_stops):
        for spec in world.commands.visible():
            if not spec.advances:
                world.execute(spec.name)
        report = yield world.advance()
        if world.done or (isinstance(report, dict) and "error" in report):
            return


def _checked(agent: Callable, problems: list[str]) -> Callable:
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
    agent: Callable[[World], Generator] = probe_agent,
    seeds: Iterable[int] = (1, 2),
    extra_bad_lines: Iterable[str] = (),
) -> None:
    """Assert the kernel's contract for a world; raise ``AssertionError`` naming what broke.

    Checked for each seed: the same seed and agent give byte-identical
    trajectories and equal snapshots; replaying the command log reproduces
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
        assert first.snapshot() == second.snapshot(), f"seed {seed}: two runs end in different states"
        replayed = replay(lambda: factory(seed), first.command_log())
        assert replayed.snapshot() == first.snapshot(), f"seed {seed}: replay does not reproduce the final state"

        fresh = factory(seed)
        for line in [*_bad_lines(fresh), *extra_bad_lines]:
            before = fresh.snapshot()
            out = fresh.execute(line)
            if isinstance(out, simpy.Event):
                continue
            assert isinstance(out, dict), f"{line!r} returned {type(out).__name__}, not a dict"
            if "error" in out:
                assert fresh.snapshot() == before, f"refused command {line!r} changed the state"
        for spec in fresh.commands.visible():
            schema = spec.json_schema()["function"]
            assert schema["name"] == spec.tool_name and schema["parameters"]["type"] == "object", spec.name
            assert set(schema["parameters"]["required"]) <= set(schema["parameters"]["properties"]), spec.name
