"""Where episodes begin and how long they last: start states and windows (RL training, counterfactuals).

A :class:`StartState` says which world an episode starts on:

- a fresh world (``StartState("startup")``);
- a recorded run at a point (``StartState.recorded(snapshot)``: every episode starts there);
- a policy played until a point (``StartState("startup", agent="planner", until={"day": 150})``: the planner's
  first five months), on the episode's seed; with several points, seed ``s`` starts at ``points[s % n]``;
  over a set of seeds this is a distribution of start states.

A :class:`Window` cuts an episode to a number of agent turns or simulated days from its start. The reward of a
step is the change in the world's metric it caused (as :class:`~bizsim.surfaces.textenv.TextEnv` defines it), so
the return over a window is the metric at the window's end minus the metric at its start (with
``reward="shaped"``, plus each sub-metric's weighted change: ``bizsim.runs.rewards``).

>>> start = StartState("operation", agent="round-robin", until={"day": 30})
>>> world = start.world(seed=4)
>>> world.day, world.seed
(30, 4)
>>> Window(turns=5).ends(turns=5, days=0.0), Window(days=7).ends(turns=1, days=6.0)
(True, False)
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from typing import Any

import attrs
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_INT, show
from bizsim.simcore.points import US_PER_DAY, fork_point, point_t_us
from bizsim.simcore.registry import world_spec
from bizsim.simcore.snapshot import Snapshot, restore
from bizsim.simcore.watch import watch
from bizsim.simcore.world import World

__all__ = ["StartState", "Window", "start_of"]


def _points(value: Any) -> tuple[tuple[str, Any], ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, (int, Mapping)) else list(value)
    out = []
    for item in items:
        point = fork_point(item)
        if "end" in point:
            raise ConfigError("a start state plays a policy until a turn, hour or day, not until the end")
        out.append(next(iter(point.items())))
    return tuple(out)


def _options(value: Any) -> tuple[tuple[str, Any], ...]:
    items = value.items() if isinstance(value, Mapping) else (value or ())
    return tuple(sorted((str(k), v) for k, v in items))


@attrs.frozen
class StartState:
    """Where an episode starts: a fresh world, a recorded snapshot, or a policy played until a point.

    Args:
        world: a registered world.
        preset: its preset name (for fresh and policy starts).
        agent: the policy played from the episode's start until ``until`` (a registered agent of the world).
        agent_options: the policy's options.
        until: one point or several (``30`` turns, ``{"day": 150}``, ``{"hours": 720}``); seed ``s`` starts at
            the point ``s % len(points)``.
        snapshot: a recorded start (:meth:`recorded`); every episode starts there, on the snapshot's seed.
    """

    world_name: str = attrs.field(alias="world")
    preset: str = "default"
    agent: str | None = None
    agent_options: tuple[tuple[str, Any], ...] = attrs.field(default=(), converter=_options)
    until: tuple[tuple[str, Any], ...] = attrs.field(default=(), converter=_points)
    snapshot: Snapshot | None = None
    _cache: dict[int, Snapshot] = attrs.field(factory=dict, init=False, eq=False, hash=False, repr=False)
    _lock: Any = attrs.field(factory=threading.Lock, init=False, eq=False, hash=False, repr=False)

    def __attrs_post_init__(self) -> None:
        spec = world_spec(self.world_name)
        object.__setattr__(self, "world_name", spec.name)
        if self.snapshot is not None and (self.agent is not None or self.until):
            raise ConfigError("a recorded start state takes no agent or until: it starts where its snapshot stands")
        if (self.agent is None) != (not self.until):
            raise ConfigError("a policy start state needs both agent and until (e.g. agent='planner', "
                              "until={'day': 150})")
        if self.agent is not None:
            spec.agent(self.agent)  # fail now on an unknown agent
        if self.preset not in spec.preset_table():
            spec.preset_table().preset(self.preset)  # raises, listing the presets

    @classmethod
    def recorded(cls, snapshot: Snapshot) -> StartState:
        """Every episode starts where ``snapshot`` stands (cut a run first: ``analysis.fork.load_parent(dir)``
        and :func:`bizsim.simcore.points.cut`, or ``world.snapshot()``)."""
        return cls(snapshot.world, preset=snapshot.preset or "default", snapshot=snapshot)

    def point_for(self, seed: int) -> dict[str, Any] | None:
        """The point a policy start plays until on ``seed`` (``None`` for other starts)."""
        return dict([self.until[int(seed) % len(self.until)]]) if self.until else None

    def snapshot_for(self, seed: int) -> Snapshot:
        """The snapshot an episode on ``seed`` starts from (a policy's play is computed once per seed)."""
        if self.snapshot is not None:
            return self.snapshot
        seed = int(seed)
        with self._lock:
            found = self._cache.get(seed)
        if found is None:
            found = self._play(seed).snapshot()
            with self._lock:
                self._cache[seed] = found
        return found

    def world(self, seed: int) -> World:
        """A live world to start an episode on ``seed`` (a recorded start ignores the seed: it has its own).

        Raises:
            ConfigError: the start is where the world has already ended (a policy that plays to the horizon, or
                goes bankrupt, before its point; a snapshot of a finished run): no episode can start there.
        """
        if self.snapshot is None and self.agent is None:
            return world_spec(self.world_name).make(self.preset, int(seed))
        world = restore(self.snapshot_for(seed))
        if world.done:
            # An episode started here would look live and refuse its first step: refused where it is made instead.
            where = (f"the policy {self.agent!r} reaches the world's end ({world.status.value}) before "
                     f"{self.point_for(seed)}" if self.agent is not None else
                     f"the snapshot is of a run that ended ({world.status.value})")
            raise ConfigError(f"no episode of {self.world_name} can start on seed {int(seed)}: {where}, with no "
                              "turn left to play; choose an earlier point (or another seed)")
        return world

    def _play(self, seed: int) -> World:
        from . import make_agent

        point = self.point_for(seed)
        assert point is not None and self.agent is not None
        target_t, target_turns = point_t_us(point), point.get("turn")
        world = world_spec(self.world_name).make(self.preset, seed)
        turns = [0]

        def reached(w: World) -> bool:
            return (target_turns is not None and turns[0] >= target_turns) or (
                target_t is not None and w.now_us >= target_t)

        def woken(w: World) -> bool:
            turns[0] += 1
            return reached(w)

        if not reached(world):
            world.run(watch(make_agent(self.world_name, self.agent, dict(self.agent_options)), after=woken))
        return world


#: The longest window in days: the simulated days 64-bit microseconds hold.
_MAX_WINDOW_DAYS = MAX_INT // US_PER_DAY


@attrs.frozen
class Window:
    """An episode cut to ``turns`` agent turns (advance commands) or ``days`` simulated days from its start.

    The episode also ends when the world does. Rewards are metric changes, so the return over a window is the
    world's metric at its end minus the metric at its start.
    """

    turns: int | None = None
    days: float | None = None

    def __attrs_post_init__(self) -> None:
        if (self.turns is None) == (self.days is None):
            raise ConfigError("a window is turns=N or days=D (one of them)")
        if self.turns is not None:
            # Past 64 bits a count cannot be recorded or compared as every other integer is (10**30 was taken).
            if isinstance(self.turns, bool) or not isinstance(self.turns, int) or not 1 <= self.turns <= MAX_INT:
                raise ConfigError(f"a window's turns(={show(self.turns)}) must be an integer >= 1 and at most "
                                  f"{MAX_INT} (2^63 - 1), e.g. turns=10")
        elif isinstance(self.days, bool) or not isinstance(self.days, (int, float)) or not (
                math.isfinite(self.days) and 0 < self.days <= _MAX_WINDOW_DAYS):  # NaN, infinity: never ending
            raise ConfigError(f"a window's days(={show(self.days)}) must be a finite number > 0 and at most "
                              f"{_MAX_WINDOW_DAYS:,} (the days 64-bit microseconds hold), e.g. days=7")

    @classmethod
    def of(cls, value: Any) -> Window | None:
        """A window from ``None``, a window, an int (turns) or a table ``{"turns": N}`` / ``{"days": D}``."""
        if value is None or isinstance(value, Window):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return cls(turns=value)
        if isinstance(value, Mapping) and set(value) <= {"turns", "days"}:
            return cls(**dict(value))
        raise ConfigError(f"window(={show(value)}) must be N turns or a table like {{'turns': 10}} or {{'days': 30}}")

    def ends(self, turns: int, days: float) -> bool:
        """Whether a window that has run ``turns`` agent turns and ``days`` simulated days is over."""
        if self.turns is not None:
            return turns >= self.turns
        assert self.days is not None
        return days >= self.days

    def days_since(self, start_us: int, now_us: int) -> float:
        """Simulated days between two instants."""
        return (now_us - start_us) / US_PER_DAY


def start_of(value: Any) -> StartState | None:
    """A start state from ``None`` (fresh worlds), a start state or a snapshot (a recorded start)."""
    if value is None or isinstance(value, StartState):
        return value
    if isinstance(value, Snapshot):
        return StartState.recorded(value)
    raise ConfigError(f"start(={value!r}) must be a StartState or a Snapshot")
