"""The operation world's commands: the reference's tool names and result fields.

The four interventions and ``task_done`` are the reference's tools. ``help``
is bizsim's (free: it uses no action, and tells only what the tool schemas
say). There is no tool to look at the platform's state: as in the
reference, the agent learns it from action results and ``task_done``
reports (scripts may read ``world.observation()``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from bizsim.simcore.commands import Arg, CommandSet

if TYPE_CHECKING:
    from .world import OperationWorld

__all__ = ["COMMANDS"]

COMMANDS = CommandSet(programs=("bizsim",))
command = COMMANDS.command


@command("acquisition_boost", "Invest in a user acquisition campaign; its size grows with content quality.",
         marked=True)
def acquisition_boost(world: OperationWorld) -> dict:
    return world.acquisition_boost()


@command("engagement_tune",
         "Tune the recommendation algorithm: higher engagement and retention now, lower content quality.", marked=True)
def engagement_tune(world: OperationWorld) -> dict:
    return world.engagement_tune()


@command("creator_incentive", "Fund creator programs: more creator activity and more content at once.", marked=True)
def creator_incentive(world: OperationWorld) -> dict:
    return world.creator_incentive()


@command("moderation_tighten",
         "Tighten moderation: higher content quality, some content removed, creators discouraged.", marked=True)
def moderation_tighten(world: OperationWorld) -> dict:
    return world.moderation_tighten()


@command("task_done", "Finish today's operations: the platform evolves for a day and you get the day's report.",
         advances=True)
def task_done(world: OperationWorld):
    return world.request_day_end()


@command("help", "List the commands, or show one command's arguments (free: uses no action).", counted=False)
def help_(
    world: OperationWorld, command: Annotated[str | None, Arg("A command name, e.g. 'creator_incentive'")] = None
) -> dict:
    if command is not None:
        return {"help": COMMANDS.help_text(command)}
    return {"help": COMMANDS.help_text(), "commands": [s.usage() for s in COMMANDS.visible()],
            "free": ["help", "task_done"], "actions_per_day": world.daily_budget}
