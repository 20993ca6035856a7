"""An arena's replay and snapshots: (world, config, seed, seats, one timed command log per seat).

Seats act one at a time in the arena's turn order, and a seat takes commands
only in its turn, so the seats' logs interleave in one way only:
:func:`replay_arena` issues, for the seat that has the turn, its next logged
line, until that seat's log runs out while it has the turn (where the
record stopped). Lines of a seat that is over and never gets the turn again
(commands refused after its end) are issued last; they change nothing.

>>> from bizsim.models.vending.arena import VendingArena
>>> a = VendingArena("small", 3, seats=2)
>>> k = a.to_move; _ = a.seats[k].execute("products_research --query water")
>>> b = restore_arena(ArenaSnapshot.from_json(a.snapshot().to_json()))
>>> b.state() == a.state() and b.command_logs() == a.command_logs()
True
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import attrs
import simpy

from .errors import ConfigError, ReplayError
from .snapshot import _config_json, _log
from .world import World

if TYPE_CHECKING:
    from .arena import ArenaWorld

__all__ = ["ARENA_SNAPSHOT_FORMAT", "ArenaSnapshot", "arena_snapshot_of", "replay_arena", "restore_arena"]

#: The version of :meth:`ArenaSnapshot.to_dict`'s layout.
ARENA_SNAPSHOT_FORMAT = 1


def _logs(value: Any) -> tuple[tuple[tuple[int, str], ...], ...]:
    return tuple(_log(log) for log in value)


@attrs.frozen
class ArenaSnapshot:
    """Where an arena stands, as the inputs that rebuild it.

    Args:
        world: the registered arena name (``vending-arena``).
        version: its benchmark version.
        config: the arena's frozen config.
        seed: the episode seed.
        logs: one timed command log per seat, ``((t_us, line), ...)``, as ``arena.command_logs()`` gives them.
        preset: the preset label the arena showed.
    """

    world: str
    version: int
    config: Any = attrs.field(eq=False)
    seed: int
    logs: tuple[tuple[tuple[int, str], ...], ...] = attrs.field(converter=_logs)
    preset: str | None = None
    _config_data: Any = attrs.field(init=False, repr=False, eq=True)

    def __attrs_post_init__(self) -> None:
        if not self.logs:
            raise ConfigError("an arena snapshot holds one command log per seat; it has none")
        object.__setattr__(self, "_config_data", _config_json(self.config))

    @property
    def seats(self) -> int:
        """How many seats the arena has."""
        return len(self.logs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form; :meth:`from_dict` reads it back."""
        return {"format": ARENA_SNAPSHOT_FORMAT, "kind": "arena", "world": self.world, "version": self.version,
                "config": json.loads(self._config_data), "seed": self.seed,
                "logs": [[[t, line] for t, line in log] for log in self.logs], "preset": self.preset}

    def to_json(self) -> str:
        """The snapshot as canonical JSON text."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ArenaSnapshot:
        """Rebuild a snapshot from :meth:`to_dict` output.

        Raises:
            ConfigError: not an arena snapshot of this format, or damaged data.
        """
        from .config import config_from_dict
        from .registry import world_spec

        if not isinstance(data, Mapping) or data.get("format") != ARENA_SNAPSHOT_FORMAT or data.get("kind") != "arena":
            raise ConfigError(f"not a bizsim arena snapshot of format {ARENA_SNAPSHOT_FORMAT}")
        try:
            table = world_spec(str(data["world"])).preset_table()
            return cls(world=str(data["world"]), version=int(data["version"]),
                       config=config_from_dict(table.cls, data["config"]), seed=int(data["seed"]),
                       logs=[[tuple(item) for item in log] for log in data["logs"]], preset=data.get("preset"))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"an arena snapshot's data is damaged: {type(exc).__name__}: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> ArenaSnapshot:
        """Read :meth:`to_json` text back."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"an arena snapshot is not valid JSON: {exc}") from None
        return cls.from_dict(data)


def arena_snapshot_of(arena: ArenaWorld) -> ArenaSnapshot:
    """The snapshot of a live arena (what ``arena.snapshot()`` returns)."""
    if arena.snapshot_refusal:
        raise ConfigError(f"this {arena.name} arena cannot be snapshotted: {arena.snapshot_refusal}")
    return ArenaSnapshot(world=arena.name, version=arena.version, config=arena.config, seed=arena.seed,
                         logs=arena.command_logs(), preset=getattr(arena, "preset", None))


def restore_arena(snapshot: ArenaSnapshot) -> ArenaWorld:
    """Rebuild the live arena a snapshot describes, by replaying its seats' logs.

    Raises:
        ConfigError: the arena is not registered, or at another benchmark version.
        ReplayError: a log does not belong to this config, seed and seating.
    """
    from .registry import world_spec

    spec = world_spec(snapshot.world)
    if spec.version != snapshot.version:
        raise ConfigError(f"the snapshot is of {snapshot.world}-v{snapshot.version} but this install has "
                          f"{spec.benchmark_id}; restore it with the bizsim version that made it")
    cls = spec.world_class()

    def build() -> ArenaWorld:
        # the registry types a factory as a World class; an arena's takes ``seats``
        arena = cast("ArenaWorld", cls(snapshot.config, snapshot.seed, seats=snapshot.seats))  # type: ignore[call-arg]
        if snapshot.preset is not None and hasattr(arena, "preset"):
            setattr(arena, "preset", snapshot.preset)  # noqa: B010 - the label is not dynamics
        return arena

    return replay_arena(build, snapshot.logs)


def replay_arena(factory: Callable[[], ArenaWorld], logs: Sequence[Sequence[tuple[int, str]]], *,
                 turns: int | None = None, stopped: Mapping[int, str] | None = None) -> ArenaWorld:
    """Rebuild an arena by issuing each seat's logged lines in the arena's turn order.

    Args:
        turns: stop once this many turns have ended (advance commands, in turn order): the arena as it stood
            then, to fork from (``arena.run(agents)`` plays on; its ``snapshot()`` holds the cut logs).
        stopped: for runs recorded before a capped seat was retired (bizsim then ENDED a seat whose agent stopped
            it by its cap, status ``error``): such seats by index, with the detail. No command log carries that
            stop, so such a seat is ended where its log runs out in its turn, as it was when recorded. A run
            recorded now needs none: a capped seat with rivals is retired, and the turns the arena ended for it are
            in its log (:meth:`~bizsim.simcore.seat.DaySeat.abort`).

    Raises:
        ReplayError: not one log per seat, or a line falls at another instant than recorded.
    """
    arena = factory()
    if len(logs) != len(arena.seats):
        raise ReplayError(f"{len(logs)} command logs for an arena of {len(arena.seats)} seats")
    queues = [deque(log) for log in logs]
    ended = 0
    while (arena.to_move is not None or arena.turn_follows()) and (turns is None or ended < turns):
        if arena.to_move is None:  # event time: between turns, the next wake gives one
            _await_turn(arena)
            continue
        k = arena.to_move
        seat, queue = arena.seats[k], queues[k]
        if not queue:
            if not seat.done and k in (stopped or {}):
                # as the seat was ended when recorded (World.abort: a seat's own abort now retires it instead)
                World.abort(seat, (stopped or {})[k])
                arena.end_turn(k)
                _await_turn(arena)
                continue
            if not seat.done:
                break  # the record stops here, in this seat's turn
            arena.end_turn(k)  # a seat that is over leaves its last turn when its agent returns
            continue
        t_us, line = queue.popleft()
        if seat.now_us != t_us:
            raise ReplayError(f"seat {k}'s command {line!r} was recorded at t_us={t_us} but the replay is at "
                              f"t_us={seat.now_us}; the log belongs to another world, config, seed or seating")
        result = seat.execute(line, allow_hidden=True, driven=True)
        if isinstance(result, simpy.Event):
            ended += 1
            _await_turn(arena)
    if turns is not None:
        return arena
    for k, queue in enumerate(queues):
        while queue and arena.seats[k].done and arena.to_move != k:
            arena.seats[k].execute(queue.popleft()[1], allow_hidden=True, driven=True)
    if any(queues):
        left = [k for k, queue in enumerate(queues) if queue]
        if arena.to_move is None or any(k != arena.to_move for k in left):
            raise ReplayError(f"seats {left} have logged commands the turn order never reaches; the logs do not "
                              "belong to one arena")
    return arena


def _await_turn(arena: ArenaWorld) -> None:
    """Run the arena's environment until a seat has the turn (and its turn has begun), or the episode is over."""
    arena.await_turn()
