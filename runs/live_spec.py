"""What a live episode opens: a registered world on a preset (or a config), a seed and a start, checked once."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import attrs
from bizsim.simcore.errors import ConfigError

from bizsim.runs.runspec import RunSpec, world_config

if TYPE_CHECKING:
    from bizsim.agents.start import StartState
    from bizsim.simcore.world import World

__all__ = ["LiveSpec"]


@attrs.frozen
class LiveSpec:
    """What a live episode plays, resolved once (build it with :meth:`of`).

    Args:
        run: the run as ``result.json`` names it: world, preset, agent (default the surface's name), seed, overrides.
        surface: who drives the episode (``mcp``, ``shell``, ``inspect``...), recorded in ``result.json``.
        config: a config object given instead of a preset (not recorded: the preset is named ``custom``).
        start: where the episode starts (:class:`~bizsim.agents.start.StartState`); ``None`` is a fresh world.
    """

    run: RunSpec
    surface: str = "python"
    config: Any = attrs.field(default=None, repr=False)
    start: StartState | None = attrs.field(default=None, repr=False)

    @classmethod
    def of(cls, world: str, preset: Any = "default", seed: int = 1, *, overrides: Mapping[str, Any] | None = None,
           surface: str = "python", agent: str | None = None, start: Any = None, recorded: bool = False) -> LiveSpec:
        """Check today's arguments of :class:`~bizsim.runs.live.Episode` (see there) into a spec.

        Raises:
            ConfigError: an unknown world or preset, bad overrides, a config object for a ``recorded`` episode, or a
                start state of another world.
        """
        from bizsim.agents.start import start_of

        config = None if isinstance(preset, (str, PurePath)) else preset
        if config is not None and recorded:
            raise ConfigError("a recorded episode takes a preset name or a .toml file (its run directory names it); "
                              "give overrides=... for other values")
        run = RunSpec(world, "default" if config is not None else preset, agent or surface, seed,
                      overrides=dict(overrides or {}))
        begin = start_of(start)
        if begin is not None and begin.world_name != run.world_spec.world_class().name:
            raise ConfigError(f"start is a start state of {begin.world_name}, not {run.world}")
        return cls(run, str(surface), config, begin)

    @property
    def preset_label(self) -> str:
        """The preset as ``result.json`` names it: its name, or ``custom`` with overrides or a config object."""
        return self.run.preset if not self.run.overrides and self.config is None else "custom"

    def new_world(self) -> World:
        """A fresh world of the spec: its start state's, else the preset's (or config's) on its seed."""
        if self.start is not None:
            return self.start.world(self.run.seed)
        config = self.config if self.config is not None else world_config(self.run)
        return self.run.world_spec.make(config, self.run.seed)

    def reseeded(self, seed: int) -> LiveSpec:
        """The same spec on another seed (an unrecorded episode's :meth:`reset`)."""
        return attrs.evolve(self, run=attrs.evolve(self.run, seed=int(seed)))
