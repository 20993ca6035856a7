"""The hostile-input tests' hang guard: a hang fails the test even when the first alarm is swallowed."""

from __future__ import annotations

import gc
import sys
import time

import pytest

from ._hang_guard import no_hang


def test_an_alarm_swallowed_by_a_gc_callback_fires_again(monkeypatch):
    """Python swallows what a gc callback raises: the guard's alarm repeats until the test sees it."""
    # What Python swallows goes to sys.unraisablehook; pytest's formats it (slowly, under load), and a repeated
    # alarm landing in there would fail the hook instead of this test's loop.
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)

    def slow_callback(phase: str, info: dict) -> None:
        time.sleep(0.3)  # the first alarm lands here

    gc.callbacks.append(slow_callback)
    try:
        with pytest.raises(pytest.fail.Exception, match="a hang"), no_hang("a loop", 0.1):
            gc.collect()
            while True:
                time.sleep(0.01)
    finally:
        gc.callbacks.remove(slow_callback)
