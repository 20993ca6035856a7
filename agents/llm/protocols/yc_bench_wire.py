"""What YC-Bench's own harness puts in a tool message (preset ``reference``): its executor's result object.

The reference runs each command line as a ``yc-bench`` subprocess and sends
the model ``{"ok", "exit_code", "stdout", "stderr", "sim_time", "command"}``
as JSON text (specs/startup.md §13-14): a result is printed on stdout with
two-space indents, a refused command prints ``{"error": ...}`` and exits 1,
and a line the command-line parser rejects exits 2 with a usage message on
stderr. Lines not starting with ``yc-bench`` are refused without running.
The usage text of the reference's parser is not reproduced: stderr holds
``Error: `` and bizsim's message.
"""

from __future__ import annotations

import json
from typing import Any

from bizsim.simcore.commands import split_line

__all__ = ["REFERENCE_RUN_COMMAND_TOOL", "refusal", "tool_message"]

REFERENCE_RUN_COMMAND_TOOL = {
    "type": "function",
    "function": {
        "name": "run_command",
        "description": "Execute one benchmark CLI command inside the sandbox and return structured execution output.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The full yc-bench CLI command to execute."}},
            "required": ["command"],
        },
    },
}

_EMPTY = "command must be a non-empty string"


def refusal(command: Any) -> str | None:
    """Why the reference's command policy refuses ``command`` before running it (``None``: it runs)."""
    if not isinstance(command, str) or not command.strip():
        return _EMPTY
    try:
        argv = split_line(command)
    except ValueError:
        return f"invalid command syntax: {command}"
    if not argv:
        return _EMPTY
    if argv[0] != "yc-bench":
        return "only top-level `yc-bench` commands are allowed"
    return None


def tool_message(
    command: Any, result: Any = None, *, exit_code: int, stderr: str = "", stdout: str | None = None
) -> str:
    """The tool message text for a command: ``exit_code`` 0 (``result`` printed, or ``stdout`` as given: help
    text), 1 (its error) or 2 (usage)."""
    if stdout is not None:
        pass
    elif exit_code == 0:
        stdout = json.dumps(result, indent=2) + "\n"
    elif exit_code == 1:
        stdout = json.dumps({"error": result["error"]}) + "\n"
    else:
        stdout = ""
    return json.dumps({
        "ok": exit_code == 0, "exit_code": exit_code, "stdout": stdout, "stderr": stderr, "sim_time": None,
        "command": command if isinstance(command, str) else str(command),
    })
