"""Baseline agents for the operation world, written as SimPy processes.

They act only through the world's commands and learn the platform's state
from the ``task_done`` reports, as an LLM agent does.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

__all__ = ["OPERATION_ACTIONS", "always", "round_robin", "threshold", "OPERATION_AGENTS"]

OPERATION_ACTIONS = ("acquisition_boost", "engagement_tune", "creator_incentive", "moderation_tighten")


def always(action: str) -> Callable[[Any], Generator]:
    """An agent that takes ``action`` every day, then ends the day."""
    if action not in OPERATION_ACTIONS:
        raise ValueError(f"action(={action!r}) must be one of {', '.join(OPERATION_ACTIONS)}")

    def agent(world: Any) -> Generator:
        while not world.done:
            world.call(action)
            report = yield world.advance()
            if "error" in report:
                return

    agent.__name__ = f"always_{action}"
    agent.__doc__ = f"Take ``{action}`` every day, then ``task_done``."
    return agent


def round_robin(world: Any) -> Generator:
    """Cycle through the four actions, one a day, in the order the tools are listed."""
    day = 0
    while not world.done:
        world.call(OPERATION_ACTIONS[day % len(OPERATION_ACTIONS)])
        day += 1
        report = yield world.advance()
        if "error" in report:
            return


def threshold(
    world: Any, threshold: float = 0.45, low: str = "moderation_tighten", high: str = "creator_incentive"
) -> Generator:
    """``low`` while the last reported content quality is below ``threshold``, else ``high``.

    Before the first report the quality is unknown and it plays ``high``.

    Args:
        threshold: the quality below which it moderates.
        low: the action taken below the threshold.
        high: the action taken at or above it.
    """
    _check_threshold(threshold, low, high)
    quality: float | None = None
    while not world.done:
        world.call(low if quality is not None and quality < threshold else high)
        report = yield world.advance()
        if "error" in report:
            return
        quality = report["current_state"]["content_quality"]


def _check_threshold(threshold: float, low: str, high: str) -> None:
    for option, name in (("low", low), ("high", high)):
        if name not in OPERATION_ACTIONS:
            raise ValueError(f"{option}(={name!r}) must be one of {', '.join(OPERATION_ACTIONS)}")


threshold.check_options = _check_threshold  # type: ignore[attr-defined]

#: The registry entries: CLI name -> agent function.
OPERATION_AGENTS: dict[str, Callable] = {
    **{f"always-{a}": always(a) for a in OPERATION_ACTIONS},
    "round-robin": round_robin,
    "threshold": threshold,
}
