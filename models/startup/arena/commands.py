"""The commands a company in a startup arena has beyond the startup world's: rivals, messages, payments."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Callable

from bizsim.simcore.commands import Arg, CommandSet
from bizsim.simcore.errors import CommandError
from bizsim.simcore.limits import clip

if TYPE_CHECKING:
    from .seat import StartupSeat

__all__ = ["MAX_INBOX", "MAX_MEMO", "MAX_MESSAGE", "arena_commands"]

#: The longest message, in characters.
MAX_MESSAGE = 2_000
#: The longest note on a payment, in characters.
MAX_MEMO = 200
#: The most messages and payments one company's inbox holds; a full inbox refuses more.
MAX_INBOX = 500

_TO = Arg("The company's name, as `arena companies` lists it (e.g. BenchCo-B)")
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


def _rival(world: StartupSeat, name: str, verb: str) -> StartupSeat:
    for seat in world.arena.seats:
        if seat.company_name == name:
            if seat is world:
                raise CommandError(f"You cannot {verb} your own company.", "Name a rival from `arena companies`.")
            if seat.done:
                raise CommandError(f"{name} has left the market ({seat.status.value}); nothing was sent.",
                                   "Name a rival that is still running (`arena companies`).")
            if len(seat.inbox) >= MAX_INBOX:
                raise CommandError(f"{name}'s inbox is full ({MAX_INBOX} messages and payments); nothing was sent.",
                                   "Nothing more can reach that company.")
            return seat
    names = [s.company_name for s in world.arena.seats if s is not world]
    raise CommandError(f"No company named '{clip(name)}'.", f"Rivals: {', '.join(names)}.")


def _build(base: CommandSet) -> CommandSet:
    out = base.variant(wrap={"help": _help} if "help" in base else None)
    command = out.command

    @command("arena companies", "List the companies sharing this market (yours marked) and whether each still runs.")
    def arena_companies(world: StartupSeat) -> dict:
        rows = [{"company_name": s.company_name, "you": s is world, "running": not s.done} for s in world.arena.seats]
        return {"count": len(rows), "companies": rows}

    @command("message send", f"Send a rival company a message (at most {MAX_MESSAGE:,} characters).")
    def message_send(
        world: StartupSeat,
        to: Annotated[str, _TO],
        text: Annotated[str, Arg("The message", max_length=MAX_MESSAGE)],
    ) -> dict:
        if not text.strip():
            raise CommandError("The message is empty; nothing was sent.", "Write some text with --text.")
        rival = _rival(world, to, "message")
        sent_at = world.now_iso
        rival.receive(world.now_us, "message_received",
                      {"kind": "message", "from": world.company_name, "sent_at": sent_at, "text": text})
        return {"ok": True, "to": rival.company_name, "sent_at": sent_at}

    @command("message inbox", "Show the messages and payments rival companies sent you, oldest first.")
    def message_inbox(
        world: StartupSeat,
        offset: Annotated[int, Arg("Skip this many (the ones already read)", minimum=0)] = 0,
    ) -> dict:
        rows = world.inbox[offset:]
        return {"total": len(world.inbox), "offset": offset, "messages": [dict(r) for r in rows]}

    @command("finance transfer", "Pay a rival company from your funds (whole cents, never more than you hold).",
             marked=True)
    def finance_transfer(
        world: StartupSeat,
        to: Annotated[str, _TO],
        amount_cents: Annotated[int, Arg("Amount in cents", minimum=1)],
        memo: Annotated[str, Arg("A note the rival sees with the payment", max_length=MAX_MEMO)] = "",
    ) -> dict:
        if amount_cents > world.funds_cents:
            raise CommandError(f"amount_cents(={amount_cents}) exceeds your funds ({world.funds_cents} cents); "
                               "nothing was paid.", "Pay at most your funds.")
        rival = _rival(world, to, "pay")
        now = world.now_us
        world.ledger.post(now, "transfer_out", -amount_cents, rival.company_uid)
        rival.ledger.post(now, "transfer_in", amount_cents, world.company_uid)
        sent_at = world.now_iso
        rival.receive(now, "payment_received", {"kind": "payment", "from": world.company_name, "sent_at": sent_at,
                                                "amount_cents": amount_cents, "text": memo})
        return {"ok": True, "to": rival.company_name, "amount_cents": amount_cents, "funds_cents": world.funds_cents}

    return out
