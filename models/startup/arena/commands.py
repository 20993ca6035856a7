"""The commands a company in a startup arena has beyond the startup world's: rivals, messages, payments."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from bizsim.simcore.commands import Arg, CommandSet
from bizsim.simcore.errors import CommandError

if TYPE_CHECKING:
    from .seat import StartupSeat

__all__ = ["INBOX_PAGE", "MAX_FROM_ONE", "MAX_INBOX", "MAX_MEMO", "MAX_MESSAGE", "arena_commands"]

#: The longest message, in characters.
MAX_MESSAGE = 2_000
#: The longest note on a payment, in characters.
MAX_MEMO = 200
#: The most messages and payments one company's inbox holds from one rival; more are refused. A bound per rival, not
#: one for the whole inbox, so that no rival can fill it and shut the others out.
MAX_FROM_ONE = 166
#: The most one inbox holds: an arena has at most three rivals for a company.
MAX_INBOX = 3 * MAX_FROM_ONE
#: The most messages and payments one ``message inbox`` answer lists (``--offset`` pages on), so an answer stays
#: readable in a model's context whatever the inbox holds.
INBOX_PAGE = 50

_TO = Arg("The rival's seat number, as `arena companies` lists it (e.g. 1)")
_CACHE: dict[int, CommandSet] = {}


def arena_commands(base: CommandSet) -> CommandSet:
    """``base`` (the startup world's commands, or the ``reference`` preset's) plus the arena's."""
    out = _CACHE.get(id(base))
    if out is None:
        out = _CACHE[id(base)] = _build(base)
    return out


def _help(_func: Callable[..., Any]) -> Callable[..., Any]:
    def help_(world: StartupSeat, command: str | None = None) -> dict:
        commands = world.commands
        if command is not None:
            return {"help": commands.help_text(command)}
        return {"help": commands.help_text(), "commands": [s.usage() for s in commands.visible()]}

    return help_


def _rival(world: StartupSeat, to: int) -> StartupSeat:
    """Seat ``to``, if ``world`` may send to it."""
    seats = world.arena.seats
    if not 0 <= to < len(seats):
        raise CommandError(f"There is no seat {to}: the seats are 0 to {len(seats) - 1}; nothing was sent.",
                           "Give a rival's seat number from `arena companies`.")
    rival = seats[to]
    if rival is world:
        raise CommandError(f"Seat {to} is you; nothing was sent.", "Give a rival's seat number from `arena companies`.")
    if rival.done:
        raise CommandError(f"Seat {to} ({rival.company_name}) has left the market ({rival.status.value}); nothing "
                           "was sent.", "Send to a rival that is still running (`arena companies`).")
    if sum(1 for item in rival.inbox if item["from"] == world.seat) >= MAX_FROM_ONE:
        raise CommandError(f"You have sent seat {to} {MAX_FROM_ONE} messages and payments, the most one company may "
                           "hold from one rival; nothing was sent.", "Nothing more from you can reach that company.")
    return rival


def _build(base: CommandSet) -> CommandSet:
    out = base.variant(wrap={"help": _help} if "help" in base else None)
    command = out.command

    @command("arena companies", "List the companies sharing this market (yours marked) and whether each still runs.")
    def arena_companies(world: StartupSeat) -> dict:
        rows = [{"seat": s.seat, "company_name": s.company_name, "you": s is world, "running": not s.done}
                for s in world.arena.seats]
        return {"count": len(rows), "companies": rows}

    @command("message send", f"Send a rival company a message (at most {MAX_MESSAGE:,} characters).")
    def message_send(
        world: StartupSeat,
        to: Annotated[int, _TO],
        text: Annotated[str, Arg("The message", max_length=MAX_MESSAGE)],
    ) -> dict:
        if not text.strip():
            raise CommandError("The message is empty; nothing was sent.", "Write some text with --text.")
        rival = _rival(world, to)
        world.arena.deliver(world, rival, "message", {"text": text})
        return {"ok": True, "to": to, "sent_at": world.now_iso, "characters": len(text)}

    @command("message inbox", f"Show the messages and payments rival companies sent you, oldest first "
             f"({INBOX_PAGE} at a time).")
    def message_inbox(
        world: StartupSeat,
        offset: Annotated[int, Arg("Skip this many (the ones already read)", minimum=0)] = 0,
    ) -> dict:
        rows = world.inbox[offset:offset + INBOX_PAGE]
        return {"total": len(world.inbox), "offset": offset, "messages": [dict(r) for r in rows]}

    @command("finance transfer", "Pay a rival company from your funds (whole cents, never more than you hold).",
             marked=True)
    def finance_transfer(
        world: StartupSeat,
        to: Annotated[int, _TO],
        amount_cents: Annotated[int, Arg("Amount in cents", minimum=1)],
        memo: Annotated[str, Arg("A note the rival sees with the payment", max_length=MAX_MEMO)] = "",
    ) -> dict:
        rival = _rival(world, to)
        if amount_cents > world.funds_cents:
            raise CommandError(f"amount_cents(={amount_cents}) exceeds your funds ({world.funds_cents} cents); "
                               "nothing was paid.", "Pay at most your funds.")
        world.arena.pay(world, rival, amount_cents, memo)
        return {"ok": True, "to": to, "amount_cents": amount_cents, "funds_cents": world.funds_cents}

    @command("arena leave", "The seat's agent has stopped: its company leaves its turns to the arena (it lives on).",
             hidden=True)
    def arena_leave(world: StartupSeat) -> dict:
        world.arena.leave(world.seat)
        return {"ok": True}

    return out
