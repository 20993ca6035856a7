"""Points in a run: after N agent turns, or the first turn starting at or after a simulated hour or day.

A fork starts at one, a start state plays a policy until one, a window ends at one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import ConfigError
from .limits import MAX_INT, show
from .snapshot import Snapshot, turn_boundaries

__all__ = ["FORK_POINTS", "US_PER_DAY", "US_PER_HOUR", "cut", "fork_point", "point_t_us"]

#: The kinds of point: after N agent turns, at the first turn starting at or after a simulated hour or day.
FORK_POINTS = ("turn", "hours", "day")
US_PER_HOUR = 3_600_000_000
US_PER_DAY = 24 * US_PER_HOUR
#: The largest point of each kind: a turn count, and the hour and day whose instant 64-bit microseconds hold.
_LATEST = {"turn": MAX_INT, "hours": MAX_INT // US_PER_HOUR, "day": MAX_INT // US_PER_DAY}


def point_t_us(point: Mapping[str, Any]) -> int | None:
    """The simulated instant (microseconds) a time point names, or ``None`` for a turn point."""
    if "hours" in point:
        return round(float(point["hours"]) * US_PER_HOUR)
    if "day" in point:
        return round(float(point["day"]) * US_PER_DAY)
    return None


def fork_point(at: Any) -> dict[str, Any]:
    """A fork point as data: an int is a turn; a table names one of :data:`FORK_POINTS`; ``None`` is the end.

    >>> fork_point(30), fork_point({"day": 40}), fork_point(None)
    ({'turn': 30}, {'day': 40}, {'end': True})
    """
    if at is None:
        return {"end": True}
    if isinstance(at, bool):
        raise ConfigError(f"at(={at!r}) must be a turn number or a table like {{'turn': 30}}")
    if isinstance(at, int):
        at = {"turn": at}
    if not isinstance(at, Mapping) or len(at) != 1 or next(iter(at)) not in FORK_POINTS:
        raise ConfigError(f"at(={at!r}) must be a turn number or one of {{'turn': N}}, {{'hours': H}}, {{'day': D}}")
    kind, value = next(iter(at.items()))
    # The instant is counted in 64-bit microseconds: a later one (or inf, or 1e308) has no place in a run.
    top = _LATEST[kind]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= top:
        raise ConfigError(f"at {kind}(={show(value)}) must be a finite number from 0 to {top:,}")
    if kind == "turn" and not isinstance(value, int):
        raise ConfigError(f"at turn(={show(value)}) must be a whole number")
    return {kind: value}


def cut(snapshot: Snapshot, at: Any) -> tuple[int, int]:
    """Where a fork point falls in a snapshot's log: ``(commands before it, agent turns before it)``.

    Raises:
        ConfigError: the run never reaches that point (it has fewer turns, or ended before that time).
    """
    point = fork_point(at)
    bounds = [0, *turn_boundaries(snapshot.world, snapshot.log)]
    log = snapshot.log
    if "end" in point:
        return len(log), len(bounds) - 1
    if "turn" in point:
        n = point["turn"]
        if n >= len(bounds):
            raise ConfigError(f"the run has {len(bounds) - 1} turns; choose a turn from 0 to {len(bounds) - 1}")
        return bounds[n], n
    target = point_t_us(point)
    assert target is not None
    for n, b in enumerate(bounds):
        t = log[b][0] if b < len(log) else (log[-1][0] if log else 0)
        if t >= target:
            return b, n
    raise ConfigError(f"the run ends at hour {log[-1][0] / US_PER_HOUR if log else 0:.1f}, before "
                      f"{next(iter(point))} {point[next(iter(point))]}; choose an earlier point")
