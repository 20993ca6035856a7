"""The greedy baseline written as an outside client: it sees only the JSON its calls return.

:func:`greedy_calls` is the policy as a generator: it yields ``(command, arguments)`` (a command's name, such as
``task accept``, and its keyword arguments) and is sent each call's result. Each surface's test drives it with its
own calls (an MCP tool call, a ``yc-bench`` argv). It decides exactly as ``bizsim.agents.startup.baselines.greedy``
does, so a surface that answers as the world does ends the year with the same funds.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any

Request = tuple[str, dict[str, Any]]


def greedy_calls() -> Generator[Request, dict[str, Any], None]:
    """The greedy policy: stops when the episode ends or a call is refused."""
    names = [e["name"] for e in (yield "employee list", {})["employees"]]
    current = None
    while True:
        if current is None:
            listing = yield "market browse", {"limit": 1}
            if "error" in listing or not listing["tasks"]:
                return
            task_id = listing["tasks"][0]["task_id"]
            for command, arguments in (("task accept", {}), ("task assign", {"employees": ",".join(names)}),
                                       ("task dispatch", {})):
                if "error" in (yield command, {"task_id": task_id, **arguments}):
                    return
            current = task_id
        report = yield "sim resume", {}
        if "error" in report:
            return
        if any(e["type"] == "task_completed" and e["task_title"] == current for e in report["wake_events"]):
            current = None


def play_greedy(call: Callable[[str, dict[str, Any]], dict[str, Any]], limit: int | None = None) -> int:
    """Play with ``call(command, arguments) -> result``, at most ``limit`` calls; return how many were made."""
    policy, made = greedy_calls(), 0
    try:
        request = next(policy)
        while limit is None or made < limit:
            made += 1
            request = policy.send(call(*request))
    except StopIteration:
        pass
    return made


async def play_greedy_async(call: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]],
                            limit: int | None = None) -> int:
    """:func:`play_greedy` for an asynchronous ``call``."""
    policy, made = greedy_calls(), 0
    try:
        request = next(policy)
        while limit is None or made < limit:
            made += 1
            request = policy.send(await call(*request))
    except StopIteration:
        pass
    return made


def argv_of(command: str, arguments: dict[str, Any]) -> list[str]:
    """The words of a command line for ``command`` and its arguments (``--task-id X``)."""
    words = command.split(" ")
    for key, value in arguments.items():
        words += [f"--{key.replace('_', '-')}", str(value)]
    return words
