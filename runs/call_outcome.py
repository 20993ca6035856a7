"""One answered call of a live episode, and its exit status as YC-Bench's command line exits."""

from __future__ import annotations

import json
from typing import Any

import attrs

__all__ = ["EXIT_OK", "EXIT_REFUSED", "EXIT_USAGE", "CallOutcome"]

#: A call that ran (exit status 0, as the reference's CLI exits).
EXIT_OK = 0
#: A command the world refused (``{"error", "hint"}``; exit status 1, as the reference's CLI prints an error).
EXIT_REFUSED = 1
#: A call that ran nothing: not a command, bad arguments, too long, or the episode is over (exit status 2, usage).
EXIT_USAGE = 2


@attrs.frozen
class CallOutcome:
    """One answered call.

    Attributes:
        result: the JSON object answered: the command's result, the advance command's report, a help text as
            ``{"help": ...}``, or ``{"error", "hint"?}``; the same objects every other surface answers.
        status: :data:`EXIT_OK` (it ran), :data:`EXIT_REFUSED` (the world refused it) or :data:`EXIT_USAGE`
            (nothing ran), as the reference's command line exits.
        command: the command's name (``task accept``) when the line or tool named one, else ``None``.
        advanced: the call was the advance command and moved the clock.
        done: the episode has ended (after this call).
    """

    result: dict[str, Any]
    status: int
    command: str | None
    advanced: bool
    done: bool

    @property
    def ok(self) -> bool:
        """True when the call ran (status 0)."""
        return self.status == EXIT_OK

    def text(self) -> str:
        """The result as compact JSON text, as the LLM harness puts it in a tool message."""
        return json.dumps(self.result, ensure_ascii=False, separators=(",", ":"), default=str)
