"""The vending world's commands: the reference's tool names, arguments and result fields.

Money in results is in dollars, as the reference reports it (exact: every
amount is a whole number of cents), with ``*_cents`` companions. Refusals
are ``{"error", "hint"}``; ``order_place`` refusals also carry the
reference's ``status: "error"`` and ``error_type``. Refused commands change
nothing and do not use an action.

``help`` is bizsim's (free: it uses no action). There is no tool to look at
cash or inventory: as in the reference, the agent learns them from order
results and ``task_done`` reports (scripts may read ``world.observation()``).
"""

from __future__ import annotations

import json
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING, Annotated, Any

from bizsim.simcore.commands import Arg, CommandSet, RowField
from bizsim.simcore.errors import CommandError
from bizsim.simcore.limits import show
from bizsim.simcore.untrusted_json import loads_untrusted, non_finite_at

if TYPE_CHECKING:
    from .world import VendingWorld

__all__ = ["COMMANDS", "OrderError", "dollars_to_cents"]

COMMANDS = CommandSet(programs=("bizsim",))
command = COMMANDS.command

_LIST_LIMIT = 20
#: The most units one order may hold (the reference sets no limit; cash limits it long before this).
_MAX_UNITS = 1_000_000
#: Line items per order: one product per order, as in the reference.
_MAX_ITEMS = 1
#: An order's line item, as a person's form asks for it.
_ORDER_ROW = (RowField("name", str, "exact product name, as products_research returned it"),
              RowField("quantity", int, "units", minimum=1))


class OrderError(CommandError):
    """An ``order_place`` refusal with the reference's ``error_type`` and details."""

    def __init__(self, error_type: str, message: str, hint: str | None = None, **details: Any) -> None:
        super().__init__(message, hint)
        self.error_type = error_type
        self.details = details

    def to_dict(self) -> dict:
        # "message" is the reference's field for the text; "error" and "hint" are every bizsim refusal's.
        return {"status": "error", "error_type": self.error_type, **self.details, "message": self.message,
                **super().to_dict()}


def dollars_to_cents(dollars: float) -> int:
    """A dollar amount as whole cents, rounded half to even on the decimal value as written.

    >>> dollars_to_cents(1.5), dollars_to_cents(0.125), dollars_to_cents(2.675)
    (150, 12, 268)
    """
    return int((Decimal(repr(float(dollars))) * 100).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def _names(names: list[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:_LIST_LIMIT])
    more = f" and {len(names) - _LIST_LIMIT} more" if len(names) > _LIST_LIMIT else ""
    return (shown + more) or "none"


@command("products_research", "Search the supplier's catalog; returns the best 3 matches with wholesale prices. "
         "Only products returned by a search can be ordered or priced.")
def products_research(
    world: VendingWorld, query: Annotated[str, Arg("Search query, e.g. 'sparkling water'", max_length=1000)]
) -> dict:
    products = world.research(query)
    return {"query": query, "products": products, "total_products_found": len(products)}


@command("order_place", "Order one product from the supplier; paid now, delivered 7 days later. "
         "items: a JSON list with exactly one {\"name\": exact product name, \"quantity\": positive integer}.",
         marked=True)
def order_place(world: VendingWorld, items: Annotated[str, Arg(
        'JSON list with one item, e.g. [{"name": "Product Name", "quantity": 10}]', max_length=10_000,
        rows=_ORDER_ROW, max_rows=_MAX_ITEMS)]) -> dict:
    index, quantity, raw = _parse_items(world, items)
    order = world.place_order(index, quantity, raw)
    return {"status": "success", "delivery_days": world.config.delivery_days, "order": order}


def _parse_items(world: VendingWorld, text: str) -> tuple[int, int, list[dict]]:
    example = 'order_place --items \'[{"name": "Product Name", "quantity": 10}]\''
    raw = world.config.reference_outputs
    try:
        items = loads_untrusted(text)
    except ValueError:  # bad JSON, nested too deep, or an integer too long to read
        raise OrderError("invalid_json", "Invalid JSON format for items parameter.", f"Example: {example}",
                         items_preview=_clip(text) if raw else text[:100]) from None
    if not isinstance(items, list):
        raise OrderError("invalid_type", f"items must be a list, got {_json_type(items)}.", f"Example: {example}")
    if not items:
        raise OrderError("empty_items", "items list cannot be empty: give one item with 'name' and 'quantity'.",
                         f"Example: {example}")
    limit = _MAX_ITEMS
    if len(items) > limit:
        raise OrderError("too_many_items", f"Cannot order more than {limit} different product in a single order; "
                         f"you gave {len(items)}.", "Place one order per product.", max_allowed=limit,
                         items_provided=len(items))
    for item in items:
        if not isinstance(item, dict):
            raise OrderError("invalid_item_type", f"Each item must be an object, got {_json_type(item)}.",
                             f"Example: {example}", item_preview=_clip(str(item)) if raw else _preview(item))
        name, quantity = item.get("name", ""), item.get("quantity", 0)
        if raw:
            # The reference's test: any int, bool included (true is 1), above 0; no upper limit: cash decides.
            plain = isinstance(quantity, int) and quantity > 0
            info = {"name": name, "quantity": quantity}
        else:
            plain = _plain_int(quantity) and 0 < quantity <= _MAX_UNITS
            info = _item_info(name, quantity, _plain_int(quantity))
        if not isinstance(name, str) or not name:
            raise OrderError("missing_name", "Each item must have a non-empty 'name'.", f"Example: {example}",
                             item_info=info)
        if not plain:
            rule = "a positive whole number" if raw else f"a whole number from 1 to {_MAX_UNITS:,}"
            raise OrderError("invalid_quantity", f"'quantity' must be {rule}, got {info['quantity']!r}.",
                             f"Example: {example}", item_info=info)
    missing = [item["name"] for item in items if world.known_index(item["name"]) is None]
    if missing:
        known = world.researched_names()
        raise OrderError("missing_prices", "Product names must match EXACTLY (case-sensitive) names returned by "
                         "products_research.", "Research the product first, then copy its name.",
                         missing_products=missing, available_products_sample=known[:5], total_available=len(known))
    where = non_finite_at(items)
    if where is not None:
        # Checked after every refusal the reference makes, so only what it would accept is refused here: a NaN in
        # an extra key of the line, which the order's record (strict JSON) could not hold.
        raise OrderError("invalid_number", f"items{where} is not a finite number (NaN or Infinity cannot be "
                         "recorded).", f"Give only finite numbers. Example: {example}")
    (item,) = items
    index = world.known_index(item["name"])
    assert index is not None
    if raw:  # the order records the line as given (true stays true; stock grows by 1)
        return index, int(item["quantity"]), [dict(item)]
    return index, item["quantity"], [{"name": item["name"], "quantity": item["quantity"]}]


def _clip(text: str) -> str:
    """The reference's preview of a text: its first 100 characters, then "..." if there were more."""
    return text[:100] + "..." if len(text) > 100 else text


def _item_info(name: Any, quantity: Any, plain: bool) -> dict:
    """An order line as a refusal shows it (anything but text or a plain integer as a JSON preview)."""
    return {"name": name if isinstance(name, str) else _preview(name),
            "quantity": quantity if plain else _preview(quantity)}


def _plain_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**15


def _preview(value: Any) -> str:
    """Up to 100 characters of a JSON value, as text (never NaN or infinity, which JSON results cannot hold)."""
    return json.dumps(value, ensure_ascii=False)[:100]


def _json_type(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


@command("price_set", "Set the retail price (dollars) of a researched product; unit sales happen only at a set price.",
         marked=True)
def price_set(
    world: VendingWorld,
    product_name: Annotated[str, Arg("Exact product name (case-sensitive), as products_research returned it",
                                     max_length=1000)],
    price: Annotated[float, Arg("Retail price per unit in dollars, e.g. 2.49 (rounded to the cent)")],
) -> dict:
    index = world.known_index(product_name)
    if index is None and world.config.price_unresearched:
        index = world.catalog_index(product_name)  # None: a name the catalog lacks, priced all the same
    elif index is None:
        raise CommandError(f"Unknown product {show(product_name)}: only products returned by products_research can be "
                           "priced.",
                           f"Researched products: {_names(world.researched_names())}.")
    if price <= 0:
        raise CommandError(f"Price must be positive, got {price!r}.", "Give a price in dollars, e.g. 2.49.")
    cents = dollars_to_cents(price) if price < 1e15 else world.config.max_price_cents + 1
    if cents < 1:
        raise CommandError(f"Price {price!r} rounds to $0.00; the lowest price is $0.01.")
    if cents > world.config.max_price_cents:
        raise CommandError(f"Price {price!r} is above the limit of ${world.config.max_price_cents / 100:,.2f}.")
    if index is None:
        world.set_foreign_price(product_name, cents)
    else:
        world.set_price(index, cents)
    return {"status": "success", "product_name": product_name, "price": cents / 100, "price_cents": cents}


@command("price_query", "Show the retail price currently set for a product.")
def price_query(
    world: VendingWorld,
    product_name: Annotated[str, Arg("Exact product name (case-sensitive)", max_length=1000)],
) -> dict:
    cents = world.price_of(product_name)
    if cents is None:
        raise CommandError(
            f"Product {show(product_name)} has no price set. Products with prices: {_names(world.priced_names())}.",
            "Workflow: products_research, order_place, price_set (prices may be set before the stock arrives), "
            "task_done; products sell only once they have both stock and a price.",
        )
    return {"product_name": product_name, "price": cents / 100, "price_cents": cents}


@command("task_done",
         "Finish today: today's sales happen, the day advances, deliveries arrive, and you get the day's report.",
         advances=True)
def task_done(world: VendingWorld):
    return world.request_day_end()


@command("help", "List the commands, or show one command's arguments (free: uses no action).", counted=False)
def help_(
    world: VendingWorld, command: Annotated[str | None, Arg("A command name, e.g. 'order_place'")] = None
) -> dict:
    if command is not None:
        return {"help": COMMANDS.help_text(command)}
    return {"help": COMMANDS.help_text(), "commands": [s.usage() for s in COMMANDS.visible()],
            "free": ["help", "task_done"], "actions_per_day": world.daily_budget}
