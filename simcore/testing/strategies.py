"""Hypothesis strategies for any registered world, drawn from its own declarations (presets, commands).

Importing this module imports Hypothesis (the ``testing`` extra).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from ..commands import CommandSpec, Param
from ..registry import world_spec

__all__ = ["ODD_VALUES", "cut_scripts", "presets", "rosters", "script_lines", "seeds", "world_lines", "world_scripts"]

#: Values any argument may be sent: empty, blank, signs, non-finite, huge, boolean-ish, dates, plain text.
ODD_VALUES = ("", " ", "0", "-1", "5", "100000", "1e9", "nan", "inf", "true", "false", "2025-13", "text")


def seeds(max_value: int = 100_000) -> st.SearchStrategy[int]:
    """A world seed."""
    return st.integers(min_value=0, max_value=max_value)


def presets(world_name: str) -> st.SearchStrategy[str]:
    """A preset name of a registered world."""
    return st.sampled_from(world_spec(world_name).preset_names())


def world_lines(world_name: str, values: Sequence[str] = ()) -> st.SearchStrategy[str]:
    """Command lines for a registered world, made from its command declarations: each visible command (the
    advance command aside) with some of its flags; values from what each parameter accepts (its choices, numbers
    of its type), from :data:`ODD_VALUES` and from ``values`` (the world's own words, e.g. ids it shows)."""
    spec = world_spec(world_name)
    cls: Any = spec.world_class()
    commands = cls.seat_commands if spec.is_arena else cls.commands  # an arena's lines are its seats'
    visible = [spec for spec in commands.visible() if not spec.advances]
    words = (*ODD_VALUES, *values)

    def value(param: Param) -> st.SearchStrategy[str]:
        picks: list[st.SearchStrategy[str]] = [st.sampled_from(words)]
        if param.choices:
            picks.append(st.sampled_from([str(c) for c in param.choices]))
        if param.type is int:
            picks.append(st.integers(-5, 200).map(str))
        if param.type is float:
            picks.append(st.floats(-10, 500, allow_nan=False).map(lambda x: f"{x:.2f}"))
        return st.one_of(picks)

    def line(spec: CommandSpec) -> st.SearchStrategy[str]:
        if not spec.params:
            return st.just(spec.name)
        flags = st.lists(st.sampled_from(spec.params), max_size=len(spec.params), unique_by=lambda p: p.name)

        def with_values(ps: list[Param]) -> st.SearchStrategy[str]:
            return st.tuples(*[value(p) for p in ps]).map(
                lambda vals: " ".join([spec.name, *(f"{p.flag} {shlex.quote(v)}" for p, v in zip(ps, vals))]))

        return flags.flatmap(with_values)

    return st.sampled_from(visible).flatmap(line) if visible else st.just("help")


def world_scripts(world_name: str, max_turns: int = 8, values: Sequence[str] = ()) -> st.SearchStrategy[list[list[str]]]:
    """A script for a registered world: for each turn, a few command lines before the advance command."""
    return st.lists(st.lists(world_lines(world_name, values), max_size=4), min_size=1, max_size=max_turns)


def script_lines(world_name: str, script: list[list[str]]) -> list[str]:
    """A script as the flat list of command lines a driver sends: each turn's lines, then the advance command."""
    spec = world_spec(world_name)
    cls: Any = spec.world_class()
    advance = next(c.name for c in cls.seat_commands if c.advances) if spec.is_arena else cls.advance_command
    return [line for turn in script for line in [*turn, advance]]


def cut_scripts(world_name: str, max_turns: int = 8,
                values: Sequence[str] = ()) -> st.SearchStrategy[tuple[list[str], int]]:
    """A flat script for a registered world (see :func:`script_lines`) and a point in it, from 0 to its end:
    where a snapshot is taken, a fork starts or a window opens."""

    def cut(lines: list[str]) -> st.SearchStrategy[tuple[list[str], int]]:
        return st.tuples(st.just(lines), st.integers(0, len(lines)))

    return world_scripts(world_name, max_turns, values).map(lambda s: script_lines(world_name, s)).flatmap(cut)


def rosters(world_name: str, min_seats: int | None = None, max_seats: int | None = None) -> st.SearchStrategy[list[str]]:
    """A roster for a registered arena: one agent name per seat, among its agents that need no model, between the
    arena's fewest and most seats (or the bounds given)."""
    spec = world_spec(world_name)
    if spec.seats is None:
        raise ValueError(f"{world_name!r} is not an arena (it declares no seats)")
    low, high = spec.seats
    names = [name for name in spec.agents if not getattr(spec.agent(name), "capabilities", frozenset())]
    return st.lists(st.sampled_from(names), min_size=min_seats or low, max_size=max_seats or high)
