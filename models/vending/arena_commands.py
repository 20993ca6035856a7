"""A vending arena seat's commands: the vending world's, plus messages, transfers and the public market view.

What a seat may learn of a rival is what the arena declares public: the
rival's shelf (products with a price and stock, and their prices) through
``market_view``; the competition reports (every seat's units sold, revenue
and shelf size over the last period); messages and transfers addressed to
it. A rival's cash, stock counts, orders, research and unpriced products
are private: no command shows them (a test tries every command).

Limits: a message is 1 to ``message_max_chars`` characters (500 by default,
4000 at most) and a seat sends at most ``messages_per_day`` a day; money
goes in whole cents up to the sender's cash; goods go from stock on hand.
One ``messages_read`` answer holds at most ``MESSAGES_PER_READ`` items
(oldest first; the rest stay unread and the answer says how many), so an
answer is bounded however many rivals write and however long a seat waits.
Refusals change nothing and use no action. ``message_send``,
``messages_read`` and ``market_view`` are free; ``money_send`` and
``goods_send`` use an action, as any business decision does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from bizsim.simcore.commands import Arg, CommandSet
from bizsim.simcore.errors import CommandError
from bizsim.simcore.limits import show

from .commands import COMMANDS, dollars_to_cents

if TYPE_CHECKING:
    from .arena import VendingSeat

__all__ = ["ARENA_COMMANDS", "MESSAGES_PER_READ", "MESSAGE_HARD_LIMIT"]

#: The longest message any config allows (the parser's bound; the config's ``message_max_chars`` is the rule).
MESSAGE_HARD_LIMIT = 4000
#: The most inbox items one ``messages_read`` answer holds (at most ~50 x 4,000 characters of text; seven rivals
#: a year could otherwise put millions in one answer).
MESSAGES_PER_READ = 50


def _help(_func: Any) -> Any:
    def help_(world: VendingSeat, command: str | None = None) -> dict:
        if command is not None:
            return {"help": ARENA_COMMANDS.help_text(command)}
        return {"help": ARENA_COMMANDS.help_text(), "commands": [s.usage() for s in ARENA_COMMANDS.visible()],
                "free": ["help", "task_done", "message_send", "messages_read", "market_view"],
                "actions_per_day": world.daily_budget}

    return help_


ARENA_COMMANDS: CommandSet = COMMANDS.variant(wrap={"help": _help})
command = ARENA_COMMANDS.command


def _rival(world: VendingSeat, to: int) -> VendingSeat:
    """The seat ``to``, if the sender may send to it."""
    seats = world.arena.seats
    if not 0 <= to < len(seats):
        raise CommandError(f"There is no seat {to}: the seats are 0 to {len(seats) - 1}.",
                           f"You are seat {world.seat}; give another seat's number.")
    if to == world.seat:
        raise CommandError(f"Seat {to} is you.", "Give another seat's number.")
    rival: VendingSeat = seats[to]  # type: ignore[assignment]
    if rival.done:
        raise CommandError(f"Seat {to} has left the market ({rival.status.value}).", "Send to a seat still trading.")
    return rival


@command("message_send", "Send a text message to another seat (free; at most a few a day, text bounded).",
         counted=False)
def message_send(
    world: VendingSeat,
    to: Annotated[int, Arg("The seat to write to, e.g. 1")],
    text: Annotated[str, Arg("The message", max_length=MESSAGE_HARD_LIMIT)],
) -> dict:
    cfg = world.config
    _rival(world, to)
    if not text.strip():
        raise CommandError("The message is empty.", "Write some text.")
    if len(text) > cfg.message_max_chars:
        raise CommandError(f"The message has {len(text):,} characters; the limit is {cfg.message_max_chars:,}.",
                           "Shorten it.")
    if world.messages_today >= cfg.messages_per_day:
        raise CommandError(f"You have sent {world.messages_today} messages today, the daily limit.",
                           "Send more tomorrow.")
    world.arena.deliver(world.seat, to, "message", {"text": text})
    world.messages_today += 1
    return {"status": "success", "to": to, "characters": len(text),
            "messages_left_today": cfg.messages_per_day - world.messages_today}


@command("messages_read", "Read the messages, money and goods other seats sent you since you last read (free).",
         counted=False)
def messages_read(world: VendingSeat) -> dict:
    items = world.arena.read_inbox(world.seat, MESSAGES_PER_READ)
    answer: dict[str, Any] = {"messages": items, "count": len(items)}
    left = world.arena.unread(world.seat)
    if left:  # only then, so an answer that holds every unread item is as before
        answer["unread"] = left
    return answer


@command("money_send", "Send money (dollars) from your cash to another seat.", marked=True)
def money_send(
    world: VendingSeat,
    to: Annotated[int, Arg("The seat to pay, e.g. 1")],
    amount: Annotated[float, Arg("Dollars, e.g. 25.00 (rounded to the cent)")],
) -> dict:
    rival = _rival(world, to)
    if not amount > 0:
        raise CommandError(f"The amount must be positive, got {amount!r}.", "Give dollars, e.g. 25.00.")
    cents = dollars_to_cents(amount) if amount < 1e15 else None  # past it, more than any seat can hold
    if cents is not None and cents < 1:
        raise CommandError(f"Amount {amount!r} rounds to $0.00.", "Send at least $0.01.")
    if cents is None or cents > world.money_cents:
        asked = f"${cents / 100:,.2f}" if cents is not None else f"{amount:g} dollars"
        raise CommandError(f"Insufficient funds: sending {asked}, available ${world.money_cents / 100:,.2f}.",
                           "Send less.")
    world.send_money(rival, cents)
    world.arena.deliver(world.seat, to, "money", {"amount": cents / 100, "amount_cents": cents})
    return {"status": "success", "to": to, "amount": cents / 100, "amount_cents": cents,
            "money": world.money_cents / 100, "money_cents": world.money_cents}


@command("goods_send", "Send units of a product you have in stock to another seat.", marked=True)
def goods_send(
    world: VendingSeat,
    to: Annotated[int, Arg("The seat to send to, e.g. 1")],
    product_name: Annotated[str, Arg("Exact product name of stock you hold", max_length=1000)],
    quantity: Annotated[int, Arg("Units to send", minimum=1, maximum=1_000_000)],
) -> dict:
    rival = _rival(world, to)
    index = world.catalog_index(product_name)
    held = world.stock[index] if index is not None else 0
    if held < quantity:
        raise CommandError(f"You hold {held} units of {show(product_name)} in stock; cannot send {quantity}.",
                           "Send at most what is in stock (goods on order cannot be sent).")
    assert index is not None
    world.send_goods(rival, index, quantity)
    world.arena.deliver(world.seat, to, "goods", {"product_name": product_name, "quantity": quantity})
    return {"status": "success", "to": to, "product_name": product_name, "quantity": quantity,
            "left_in_stock": world.stock[index]}


@command("market_view", "See every machine's shelf at this location (products on sale and prices) and the latest "
         "competition report (free).", counted=False)
def market_view(world: VendingSeat) -> dict:
    arena = world.arena
    return {"day": world.day, "you": world.seat, "machines": [arena.shelf(k) for k in range(len(arena.seats))],
            "latest_report": arena.reports[-1] if arena.reports else None}
