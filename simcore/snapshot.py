"""Snapshots: a live world as a small immutable value, and back by replay.

A run is fully determined by (world, config, seed, timed command log), so a
:class:`Snapshot` holds exactly that, plus the world's constructor options
that are plain data (the startup world's carried-over scratchpad) and its
preset label. It pickles, goes through JSON (:meth:`Snapshot.to_json`), and
:func:`restore` rebuilds the live world with :func:`bizsim.simcore.replay.replay`.
``pickle`` and ``copy.deepcopy`` of a world go through it.

>>> from bizsim.models import make_world
>>> w = make_world("operation", "default", 1)
>>> _ = w.execute("content_incentive"); _ = w.env.run(until=w.advance())
>>> again = restore(Snapshot.from_json(w.snapshot().to_json()))
>>> (again.state(), again.now_us) == (w.state(), w.now_us)
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .errors import ConfigError

if TYPE_CHECKING:
    from .world import World

__all__ = ["SNAPSHOT_FORMAT", "Snapshot", "restore", "snapshot_of", "turn_boundaries"]

#: The version of :meth:`Snapshot.to_dict`'s layout (not the world's benchmark version).
SNAPSHOT_FORMAT = 1


def _log(value: Any) -> tuple[tuple[int, str], ...]:
    out = []
    for item in value:
        t_us, line = item
        if isinstance(t_us, bool) or not isinstance(t_us, int) or not isinstance(line, str):
            raise ConfigError(f"snapshot log entry {item!r} must be (t_us: int, line: str)")
        out.append((t_us, line))
    return tuple(out)


def _options(value: Any) -> tuple[tuple[str, Any], ...]:
    items = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted((str(k), v) for k, v in items))


@attrs.frozen
class Snapshot:
    """Where a world stands, as the inputs that rebuild it: world, version, config, seed, command log.

    Args:
        world: the registered world name (``startup``).
        version: its benchmark version; :func:`restore` refuses a snapshot of another version.
        config: the world's frozen config object.
        seed: the world seed.
        log: the timed command log so far, ``((t_us, line), ...)`` as :meth:`World.command_log` gives it.
        options: constructor keyword options that are plain data (``(("scratchpad", "..."),)``).
        preset: the preset label the world showed (``default``, ``custom``).
    """

    world: str
    version: int
    config: Any = attrs.field(eq=False)
    seed: int
    log: tuple[tuple[int, str], ...] = attrs.field(converter=_log)
    options: tuple[tuple[str, Any], ...] = attrs.field(default=(), converter=_options)
    preset: str | None = None
    # Configs compare by value; their data form is the comparison (attrs eq on a config would do, but a config
    # class of a third-party world may not define it).
    _config_data: Any = attrs.field(init=False, repr=False, eq=True)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_config_data", _config_json(self.config))

    @property
    def benchmark_id(self) -> str:
        """The versioned id, e.g. ``startup-v1``."""
        from .registry import benchmark_id

        return benchmark_id(self.world, self.version)

    @property
    def t_us(self) -> int:
        """The instant of the last command in the log (0 for an empty log)."""
        return self.log[-1][0] if self.log else 0

    def prefix(self, n: int) -> Snapshot:
        """The same world after only the first ``n`` commands of the log."""
        if n < 0 or n > len(self.log):
            raise ConfigError(f"n(={n}) must be between 0 and the log's {len(self.log)} commands")
        return attrs.evolve(self, log=self.log[:n])

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form; :meth:`from_dict` reads it back."""
        return {
            "format": SNAPSHOT_FORMAT, "world": self.world, "version": self.version,
            "config": json.loads(self._config_data), "seed": self.seed,
            "log": [[t, line] for t, line in self.log], "options": dict(self.options), "preset": self.preset,
        }

    def to_json(self) -> str:
        """The snapshot as JSON text."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Snapshot:
        """Rebuild a snapshot from :meth:`to_dict` output; the config is rebuilt with the world's config class.

        Raises:
            ConfigError: the data is not a snapshot of this format, or names an unknown world.
        """
        from .config import config_from_dict
        from .registry import world_spec

        if not isinstance(data, Mapping) or data.get("format") != SNAPSHOT_FORMAT:
            raise ConfigError(f"not a bizsim snapshot of format {SNAPSHOT_FORMAT} (a 'format' key of that value)")
        try:
            table = world_spec(str(data["world"])).preset_table()
            return cls(world=str(data["world"]), version=int(data["version"]),
                       config=config_from_dict(table.cls, data["config"]), seed=int(data["seed"]),
                       log=[tuple(item) for item in data["log"]], options=data.get("options") or {},
                       preset=data.get("preset"))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"a snapshot's data is damaged: {type(exc).__name__}: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> Snapshot:
        """Read :meth:`to_json` text back."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"a snapshot is not valid JSON: {exc}") from None
        return cls.from_dict(data)


def _config_json(config: Any) -> str:
    from .config import config_to_dict

    try:
        return json.dumps(config_to_dict(config), sort_keys=True, separators=(",", ":"), default=str)
    except Exception as exc:  # noqa: BLE001 - an unusual third-party config: say which
        raise ConfigError(f"config {config!r} cannot be written as data: {exc}") from None


def snapshot_of(world: World) -> Snapshot:
    """The snapshot of a live world (what :meth:`World.snapshot` returns).

    Raises:
        ConfigError: the world was built with objects no snapshot can carry (a freelance auditor of your
            own, a task bank or catalog object); build it from its config alone to snapshot it.
    """
    refusal = getattr(world, "snapshot_refusal", None)
    if refusal:
        raise ConfigError(f"this {world.name} world cannot be snapshotted: {refusal}")
    return Snapshot(world=world.name, version=world.version, config=world.config, seed=world.seed,
                    log=world.command_log(), options=dict(world.restore_options), preset=getattr(world, "preset", None))


def restore(snapshot: Snapshot) -> World:
    """Rebuild the live world a snapshot describes, by replaying its command log.

    The rebuilt world equals the original in every observable: its state, summary, observation, clock, status
    and trajectory (a refused tool call whose name was no command is logged as a command line, ``?tool NAME``,
    as in a run directory).

    Raises:
        ConfigError: the snapshot's world is not registered, or is registered at another benchmark version.
        ReplayError: the log does not belong to this config and seed.
    """
    from .registry import world_spec
    from .replay import replay

    spec = world_spec(snapshot.world)
    if spec.version != snapshot.version:
        raise ConfigError(f"the snapshot is of {snapshot.benchmark_id} but this install has {spec.benchmark_id}; "
                          "restore it with the bizsim version that made it")
    cls = spec.world_class()
    options = dict(snapshot.options)

    def build() -> World:
        world = cls(snapshot.config, snapshot.seed, **options)
        if snapshot.preset is not None and hasattr(world, "preset"):
            # Built from the config object a world labels itself "custom"; the label is not dynamics.
            setattr(world, "preset", snapshot.preset)  # noqa: B010 - not every world declares it
        return world

    return replay(build, snapshot.log)


def turn_boundaries(world: str, log: Sequence[tuple[int, str]]) -> list[int]:
    """Where each agent turn of a command log ends: the length of the log after each advance command.

    A log cut at ``turn_boundaries(...)[n - 1]`` is the world at the start of the agent's turn ``n + 1`` (its
    ``n`` first turns played); a cut at 0 is the fresh world.

    >>> turn_boundaries("startup", [(0, "company status"), (0, "sim resume"), (9, "sim resume")])
    [2, 3]
    """
    from .errors import CommandError
    from .registry import world_spec

    commands = world_spec(world).world_class().commands
    out = []
    for i, (_t, line) in enumerate(log, 1):
        try:
            advances = commands.parse(line)[0].advances
        except CommandError:
            continue
        if advances:
            out.append(i)
    return out
