"""What the checks need to read a world safely: its state by value, and its invariants within a time bound.

A world under test may be wrong in any way, including ways that would fool or stall a check: a ``state()`` that
hands out its own lists (a later change edits the "before" value too), a NaN in the state (``nan != nan``), an
``invariants()`` that returns a string or never returns.
"""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..world import World

__all__ = ["CHECK_SECONDS", "broken_invariants", "state_text", "time_bound"]

#: Seconds one call of a world's ``invariants()`` (or ``state()``) may take before the kit calls it a hang.
CHECK_SECONDS = 30.0


def state_text(world: World) -> str:
    """``world.state()`` as canonical JSON text: a copy by value, in which NaN equals NaN (both read ``NaN``)."""
    with time_bound(CHECK_SECONDS, "state()"):
        state = world.state()
    return json.dumps(state, sort_keys=True, allow_nan=True, default=repr, separators=(",", ":"))


def broken_invariants(world: World) -> list[str]:
    """The invariants ``world`` reports broken (empty: all hold), read within :data:`CHECK_SECONDS`.

    Raises:
        AssertionError: ``invariants()`` hung, or returned something other than a list of strings.
    """
    with time_bound(CHECK_SECONDS, "invariants()"):
        found: Any = world.invariants()
    if not isinstance(found, (list, tuple)) or not all(isinstance(item, str) for item in found):
        raise AssertionError(f"invariants() must return a list of strings (the broken ones, described); it returned "
                             f"{type(found).__name__} {str(found)[:200]!r}")
    return list(found)


@contextlib.contextmanager
def time_bound(seconds: float, what: str) -> Iterator[None]:
    """Turn a block that runs past ``seconds`` into an ``AssertionError`` naming ``what``.

    A timer signal interrupts the block between bytecodes, so a loop in the world's Python code is stopped. Off the
    main thread (no timer signal there) the block runs unbounded.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def alarm(signum: int, frame: object) -> None:
        raise _Overrun

    previous = signal.signal(signal.SIGALRM, alarm)
    started = time.monotonic()
    outer = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _Overrun:
        raise AssertionError(f"{what} did not return within {seconds:g} s: a check that hangs") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer[0] > 0:  # an outer timer (a test's own hang guard) goes on, less the time spent here
            signal.setitimer(signal.ITIMER_REAL, max(0.001, outer[0] - (time.monotonic() - started)), outer[1])


class _Overrun(BaseException):
    """Raised by the timer inside the bounded block (a BaseException: the world's ``except Exception`` lets it by)."""
