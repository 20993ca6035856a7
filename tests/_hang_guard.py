"""A guard that turns a hang into a test failure (not a speed assertion: the budget is generous)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

import pytest

#: Seconds a hostile input may take before the test calls it a hang; the fixed code needs well under a second.
HANG_BUDGET_S = 20.0
#: After the budget, the alarm repeats this often: an exception raised where Python swallows it (a gc callback,
#: a ``__del__``) is raised again until it lands where the test sees it.
_REPEAT_S = 0.25


@contextlib.contextmanager
def no_hang(what: str, budget_s: float = HANG_BUDGET_S) -> Iterator[None]:
    """Fail the test if the block runs longer than ``budget_s`` seconds (the regex engine checks signals)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield  # no timer signal here: run unguarded
        return

    def alarm(signum: int, frame: object) -> None:
        pytest.fail(f"{what} ran longer than {budget_s:g} s: a hang")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, budget_s, _REPEAT_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
