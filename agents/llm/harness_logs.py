"""Where an LLM run keeps what it did, as the harness sees it: handed in by the run's owner, never a path.

The run directory's owner (:class:`bizsim.runs.rundir.RunDir`) decides where the call log and the command log
live; the harness only appends to them, and on a resume reads back the calls already made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from bizsim.simcore.jsonl import JsonlWriter

__all__ = ["HarnessLogs"]


class HarnessLogs(Protocol):
    """The call log and command log of one LLM run."""

    def recorded_calls(self) -> list[dict]:
        """Every model call recorded so far (to replay before going live), oldest first."""
        ...

    def holds_calls(self) -> bool:
        """Whether a model call is recorded already (a fresh run must not append to another run's)."""
        ...

    def open_calls(self, *, fsync: bool, redact: Callable[[str], str] | None) -> JsonlWriter:
        """The call log, opened for appending."""
        ...

    def open_commands(self, *, fsync: bool, redact: Callable[[str], str] | None) -> JsonlWriter:
        """The command log, opened empty (a resumed run re-executes every command and writes it anew)."""
        ...
