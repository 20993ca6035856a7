"""The lemonade stand's commands, declared once: parser, validation, help text and LLM tool schemas come from here.

``order`` and ``price`` each spend one of the day's actions; ``status`` and ``help`` are free;
``run_day`` (the advance command) lets the day happen and answers with its report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from bizsim.simcore.commands import Arg, CommandSet

if TYPE_CHECKING:
    import simpy

    from .world import LemonadeWorld

__all__ = ["COMMANDS"]

COMMANDS = CommandSet(programs=("bizsim", "lemonade"))
command = COMMANDS.command


@command("order", "Order lemons from the grocer: paid now, delivered at 07:00 after the lead time.", marked=True)
def order(
    world: LemonadeWorld,
    lemons: Annotated[int, Arg("How many lemons (one lemon makes one cup)", minimum=1, maximum=100_000)],
) -> dict:
    return world.place_order(lemons)


@command("price", "Set the price of a cup of lemonade, in cents, from today on.", marked=True)
def price(world: LemonadeWorld, cents: Annotated[int, Arg("Price of one cup in cents", minimum=1, maximum=100_000)]) -> dict:
    return world.set_price(cents)


@command("status", "Show the stand: cash, stock and when it spoils, orders on the way, today's weather and "
                   "tomorrow's forecast with expected customers (free: uses no action).", counted=False)
def status(world: LemonadeWorld) -> dict:
    return world.observation()


@command("run_day", "Open the stand for today: deliveries, customers and spoilage happen, and you get the day's "
                    "report at midnight.", advances=True)
def run_day(world: LemonadeWorld) -> simpy.Event:
    return world.request_day_end()


@command("help", "List the commands, or show one command's arguments (free: uses no action).", counted=False)
def help_(world: LemonadeWorld, command: Annotated[str | None, Arg("A command name, e.g. 'order'")] = None) -> dict:
    if command is not None:
        return {"help": COMMANDS.help_text(command)}
    return {"help": COMMANDS.help_text(), "commands": [s.usage() for s in COMMANDS.visible()],
            "free": ["status", "help", "run_day"], "actions_per_day": world.daily_budget}
