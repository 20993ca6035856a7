"""The greedy baseline written as an outside client: it sees only the JSON its calls return.

``play_greedy(call)`` takes ``call(command, arguments) -> dict``, where ``command`` is a command's name
(``task accept``) and ``arguments`` its keyword arguments; each surface's test adapts it to its own calls (an MCP
tool call, a ``yc-bench`` argv). It decides exactly as ``bizsim.agents.startup.baselines.greedy`` does, so a
surface that answers as the world does ends the year with the same funds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[[str, dict[str, Any]], dict[str, Any]]


def play_greedy(call: Call) -> int:
    """Play until the episode ends or a call is refused; return how many calls were made."""
    made = 0

    def ask(command: str, **arguments: Any) -> dict[str, Any]:
        nonlocal made
        made += 1
        return call(command, arguments)

    names = [e["name"] for e in ask("employee list")["employees"]]
    current = None
    while True:
        if current is None:
            listing = ask("market browse", limit=1)
            if "error" in listing or not listing["tasks"]:
                return made
            task_id = listing["tasks"][0]["task_id"]
            for command, arguments in (("task accept", {}), ("task assign", {"employees": ",".join(names)}),
                                       ("task dispatch", {})):
                if "error" in ask(command, task_id=task_id, **arguments):
                    return made
            current = task_id
        report = ask("sim resume")
        if "error" in report:
            return made
        if any(e["type"] == "task_completed" and e["task_title"] == current for e in report["wake_events"]):
            current = None


def argv_of(command: str, arguments: dict[str, Any]) -> list[str]:
    """The words of a command line for ``command`` and its arguments (``--task-id X``)."""
    words = command.split(" ")
    for key, value in arguments.items():
        words += [f"--{key.replace('_', '-')}", str(value)]
    return words
