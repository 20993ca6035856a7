"""Baseline agents for the operation world, written as SimPy processes.

They act only through the world's commands and learn the platform's state
from the ``task_done`` reports, as an LLM agent does.
"""

from __future__ import annotations

from collections.abc import Callable

from bizsim.agents.declare import Process, agent
from bizsim.models.operation import OperationWorld

__all__ = ["OPERATION_ACTIONS", "always", "round_robin", "threshold", "always_acquisition_boost",
           "always_engagement_tune", "always_creator_incentive", "always_moderation_tighten"]

OPERATION_ACTIONS = ("acquisition_boost", "engagement_tune", "creator_incentive", "moderation_tighten")


def always(action: str) -> Callable[[OperationWorld], Process]:
    """An agent that takes ``action`` every day, then ends the day."""
    if action not in OPERATION_ACTIONS:
        raise ValueError(f"action(={action!r}) must be one of {', '.join(OPERATION_ACTIONS)}")

    def play(world: OperationWorld) -> Process:
        while not world.done:
            world.call(action)
            report = yield world.advance()
            if "error" in report:
                return

    play.__name__ = f"always_{action}"
    play.__doc__ = f"Take ``{action}`` every day, then ``task_done``."
    return agent(play, name=f"always-{action}")


@agent
def round_robin(world: OperationWorld) -> Process:
    """Cycle through the four actions, one a day, in the order the tools are listed."""
    day = 0
    while not world.done:
        world.call(OPERATION_ACTIONS[day % len(OPERATION_ACTIONS)])
        day += 1
        report = yield world.advance()
        if "error" in report:
            return


def threshold(
    world: OperationWorld, threshold: float = 0.45, low: str = "moderation_tighten", high: str = "creator_incentive"
) -> Process:
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
    if not 0 <= threshold <= 1:
        raise ValueError(f"threshold(={threshold}) must be in [0, 1]: content quality is a share")
    for option, name in (("low", low), ("high", high)):
        if name not in OPERATION_ACTIONS:
            raise ValueError(f"{option}(={name!r}) must be one of {', '.join(OPERATION_ACTIONS)}")


threshold = agent(threshold, check=_check_threshold)

always_acquisition_boost = always("acquisition_boost")
always_engagement_tune = always("engagement_tune")
always_creator_incentive = always("creator_incentive")
always_moderation_tighten = always("moderation_tighten")
