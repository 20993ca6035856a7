"""What a live arena episode plays: an arena, a preset, a seed and a roster with exactly one seat played from outside,
checked once (:class:`ArenaLiveSpec`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import show

from bizsim.runs.resolve import ResolvedRun, resolve
from bizsim.runs.roster import OUTSIDE_AGENTS, Seat
from bizsim.runs.runspec import RunSpec

if TYPE_CHECKING:
    from bizsim.simcore.arena import ArenaWorld

__all__ = ["ArenaLiveSpec", "is_arena"]


def is_arena(world: str) -> bool:
    """Whether ``world`` names a registered arena (a live surface then opens an :class:`ArenaLiveSpec` episode);
    ``False`` for an unknown name, which the episode refuses by name."""
    from bizsim.simcore.registry import world_spec

    try:
        return world_spec(world).is_arena
    except ConfigError:
        return False


@attrs.frozen
class ArenaLiveSpec:
    """What a live arena episode plays, resolved once (build it with :meth:`of`).

    Args:
        run: the arena run as ``result.json`` names it (world, preset, seed, overrides, the roster).
        surface: who drives the outside seat (``play``, ``mcp``...).
        outside: the index of the seat played from outside.
        resolved: the roster resolved (the outside seat's entry holds no agent of its own).
    """

    run: RunSpec
    surface: str
    outside: int
    resolved: ResolvedRun = attrs.field(repr=False)

    @classmethod
    def of(cls, world: str, preset: Any = "default", seed: int = 1, *, roster: Sequence[Any],
           overrides: Mapping[str, Any] | None = None, surface: str = "python", agent: str | None = None) -> ArenaLiveSpec:
        """Check a live arena episode's arguments: an arena world, a roster in its seat range with exactly one
        seat named ``agent`` (default the surface's name), every other a built-in agent whose options it takes.

        Raises:
            ConfigError: not an arena, no outside seat or two of them, an outside seat of another surface, a roster
                out of the world's seat range, an LLM rival, an unknown agent or option.
        """
        from bizsim.simcore.registry import world_spec

        name = agent or surface
        if not isinstance(preset, (str, Path)):
            raise ConfigError("a live arena episode takes a preset name or a .toml file; give overrides=... for "
                              "other values")
        spec = RunSpec(world, str(preset), seed=seed, roster=roster, overrides=dict(overrides or {}))
        marked = [k for k, s in enumerate(spec.roster) if s.agent in OUTSIDE_AGENTS or s.agent == name]
        for k in marked:
            if spec.roster[k].agent != name:
                other = spec.roster[k].agent
                raise ConfigError(f"seat {k} is {other!r}, a seat {OUTSIDE_AGENTS[other]} plays; this surface "
                                  f"({surface}) plays the seat given as --seat {name}")
            if spec.roster[k].options:
                raise ConfigError(f"seat {k} ({name}) is played from outside and takes no options; got "
                                  f"{show(spec.roster[k].options)}")
        if not marked:
            raise ConfigError(f"no seat of the roster is played from outside: give exactly one --seat {name} among "
                              f"the seats (e.g. --seat {name} --seat planner)")
        if len(marked) > 1:
            raise ConfigError(f"seats {marked} are all {name!r}: one seat of an arena is played from outside; give "
                              "the others built-in agents")
        k = marked[0]
        base = world_spec(str(spec.world_spec.base))
        stand_in = [Seat(base.default_agent) if i == k else s for i, s in enumerate(spec.roster)]
        resolved = resolve(attrs.evolve(spec, roster=stand_in))
        llm = [s.seat for s in resolved.seats if s.records_calls]
        if llm:
            raise ConfigError(f"seats {llm} are LLM agents: a live arena episode seats built-in agents (baselines, "
                              "planners) beside the outside seat, since an LLM rival's calls would need their own "
                              "record and resume; run LLM seats with bizsim run")
        seats = list(resolved.seats)
        seats[k] = attrs.evolve(seats[k], entry=spec.roster[k], agent_options={})
        return cls(spec, str(surface), k, attrs.evolve(resolved, seats=tuple(seats)))

    @property
    def preset_label(self) -> str:
        """The preset as ``result.json`` names it: its name, or ``custom`` with overrides."""
        return self.run.preset if not self.run.overrides else "custom"

    def reseeded(self, seed: int) -> ArenaLiveSpec:
        """The same episode on another seed (an unrecorded episode's reset)."""
        return attrs.evolve(self, run=attrs.evolve(self.run, seed=int(seed)),
                            resolved=attrs.evolve(self.resolved, spec=attrs.evolve(self.resolved.spec, seed=int(seed))))

    def new_arena(self) -> ArenaWorld:
        """A fresh arena of the spec."""
        cls: Any = self.run.world_spec.world_class()  # an arena's class: it takes seats=
        return cls(self.resolved.preset, self.run.seed, seats=len(self.run.roster))
