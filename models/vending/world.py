"""The vending world: a retail business run four actions a day (EcoGym "Vending")."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import Any

import simpy

from bizsim.simcore import Ledger, Status
from bizsim.simcore.dayworld import DayWorld
from bizsim.simcore.untrusted_json import loads_untrusted, nested_deeper

from .._ecogym import parse_start_date, system_prompt
from .catalog import Catalog, ProductSearch, load_reference_catalog
from .commands import COMMANDS, OrderError
from .config import VendingConfig
from .demand import DemandModel, NormalStream
from .generate import generate_catalog
from .presets import resolve_config
from .prompt import ROLE

__all__ = ["VendingWorld", "Order"]


class Order:
    """A prepaid supplier order of one product."""

    __slots__ = ("product", "quantity", "items", "created_day", "delivery_day", "cost_cents", "status", "delivered_day")

    def __init__(self, product: int, quantity: int, items: list[dict], created_day: int, delivery_day: int,
                 cost_cents: int) -> None:
        self.product, self.quantity, self.items = product, quantity, items
        self.created_day, self.delivery_day, self.cost_cents = created_day, delivery_day, cost_cents
        self.status = "processing"
        self.delivered_day: int | None = None

    def as_dict(self, delivery_days: int) -> dict:
        """The reference's order record."""
        out = {"items": list(map(dict, self.items)), "status": self.status, "created_day": self.created_day,
               "delivery_day": self.delivery_day, "delivery_days": delivery_days,
               "total_cost": self.cost_cents / 100, "total_cost_cents": self.cost_cents}
        if self.delivered_day is not None:
            out["delivered_day"] = self.delivered_day
        return out


@functools.lru_cache(maxsize=16)
def _load_files(products_path: str, demand_path: str) -> Catalog:
    return load_reference_catalog(products_path, demand_path)


_Compiled = tuple[DemandModel, ProductSearch, dict[str, int], list[str], list[int]]
#: (id of the catalog, horizon, noise, top k) -> (the catalog, its compiled parts); oldest dropped first
_COMPILED: dict[tuple[int, int, float, int], tuple[Catalog, _Compiled]] = {}


def _compiled(catalog: Catalog, horizon_days: int, noise_std: float, top_k: int) -> _Compiled:
    """The demand model, the search index, the name index, the names and the wholesale prices of a catalog.

    Shared between worlds: all are read-only. Keyed by the catalog's
    identity, not its value: hashing a catalog hashes every product (about
    as much work as a few days of trading), and catalogs come from caches
    that hand out the same object. An entry keeps its catalog alive, so
    the id is not reused while the entry exists.
    """
    key = (id(catalog), horizon_days, noise_std, top_k)
    hit = _COMPILED.get(key)
    if hit is not None and hit[0] is catalog:
        return hit[1]
    names = [p.name for p in catalog.products]
    index = {name: i for i, name in enumerate(names)}
    wholesale = [p.wholesale_cents for p in catalog.products]
    parts = (DemandModel(catalog, horizon_days, noise_std), ProductSearch(catalog, top_k), index, names, wholesale)
    if len(_COMPILED) >= 64:
        del _COMPILED[next(iter(_COMPILED))]
    _COMPILED[key] = (catalog, parts)
    return parts


class VendingWorld(DayWorld):
    """Run a shop for a year: research products, order stock, set prices.

    Each day the agent has four actions; ``task_done`` then sells the day's
    demand (spec §2.4), moves to the next day and receives due deliveries.
    Money is integer cents. 366 sales days (t = 0..365). Metric: net worth =
    cash + stock at wholesale + prepaid pending orders.

    Randomness: the catalog comes from the episode seed (or the config's
    ``catalog_seed``); the demand noise from the named stream ``demand``.

    Args:
        config: a preset name (``"default"``, ``"small"``, ``"medium"``,
            ``"large"``, ``"reference"``), a ``.toml`` path, or a :class:`VendingConfig`.
        seed: the episode seed.
        catalog: a catalog to use instead of the configured one (tests, custom worlds).
    """

    name = "vending"
    version = 1
    commands = COMMANDS

    def __init__(self, config: VendingConfig | str = "default", seed: int = 1, *,
                 catalog: Catalog | None = None) -> None:
        cfg = resolve_config(config)
        super().__init__(cfg, seed, start=parse_start_date(cfg.start_date), daily_budget=cfg.daily_budget,
                         horizon_days=cfg.horizon_days)
        self.preset = config if isinstance(config, str) else "custom"
        if catalog is not None:
            self.snapshot_refusal = "it was built with its own catalog object, which a snapshot cannot carry"
        if catalog is None:
            if cfg.products_path is not None and cfg.demand_path is not None:
                catalog = _load_files(cfg.products_path, cfg.demand_path)
            else:
                catalog_seed = self.seed if cfg.catalog_seed is None else cfg.catalog_seed
                catalog = generate_catalog(cfg.catalog_size, catalog_seed)
        self.catalog = catalog
        self.demand, self._search, self._index, self._names, self._wholesale = _compiled(
            catalog, cfg.horizon_days, cfg.noise_std, cfg.search_results)
        n = len(catalog.products)
        self.ledger = Ledger(cfg.initial_money_cents)
        self.stock: list[int] = [0] * n
        self.price_cents: list[int] = [0] * n
        self.priced: list[int] = []  # products in the order they were first priced
        self._priced_names: list[str] = []
        self._by_group: dict[int, list[int]] = {}
        self.researched: list[int] = []  # products in the order searches first returned them
        self._researched: set[int] = set()
        self.stocked: list[int] = []  # products ever delivered, in order (the reference's inventory keys)
        self._stocked: set[int] = set()
        self.orders: list[Order] = []
        self._due: dict[int, list[Order]] = {}
        self._open_orders = 0  # orders in ``_due``
        self.pending_cents = 0
        self._stock_value = 0  # stock on hand at wholesale, kept up to date
        self.purchases_cents = 0
        self.sales_cents = 0
        self.units_delivered = 0
        self.units_sold = 0
        #: One row per sales day: (day, revenue cents, units sold, net worth cents after the transition).
        self.daily: list[tuple[int, int, int, int]] = []
        self.last_sales_day: int | None = None
        self._dry_days = 0
        self._rng = NormalStream(self.streams.get("demand")) if cfg.noise else None
        #: Cash as the reference keeps it, float dollars (``float_cash``), else ``None``. Only the cash check reads
        #: it; the ledger's integer cents stay the money. The two differ by float drift, far below a cent.
        #: Whole dollars start as an integer, as the reference's config writes them (a refusal on day 0 says 100).
        self.cash_float: float | int | None = None
        if cfg.float_cash:
            cents = cfg.initial_money_cents
            self.cash_float = cents // 100 if cents % 100 == 0 else cents / 100
        #: Prices of names the catalog lacks (``price_unresearched``): they never sell, but are listed as priced.
        self.foreign_prices: dict[str, int] = {}
        #: Money and units received from other machines less those sent (an arena's seats; 0 alone).
        self.transferred_cents = 0
        self.units_transferred = 0

    #: The role line of the agent's system prompt.
    agent_role = ROLE
    #: EcoGym's amounts in dollars (see :attr:`World.money_fields`); each has a ``*_cents`` twin where it is exact.
    money_fields = {"money": "dollars", "price": "dollars", "wholesale_price": "dollars", "total_cost": "dollars",
                    "revenue": "dollars"}

    def system_prompt(self) -> str:
        """The agent's system prompt: the role line and the shared rules, with this world's daily budget."""
        return system_prompt(ROLE, self.config.daily_budget)

    # tool calls: ``items`` may arrive as a JSON list, as LLMs send it --------------
    def execute_tool(
        self, tool_name: str, arguments: Mapping[str, Any] | None, *, driven: bool = False
    ) -> dict | simpy.Event:
        """Run a tool call; a list or object given for ``order_place.items`` is taken as its JSON text."""
        arguments = _items_as_text(tool_name, arguments)
        if self.config.reference_outputs:
            arguments = _true_price(tool_name, arguments)
        return super().execute_tool(tool_name, arguments, driven=driven)

    def call(self, name: str, **kwargs: Any) -> Any:
        """Run a command from Python (``items`` may be a list); a refusal raises :class:`CommandError`."""
        if name == "order_place":
            kwargs = _items_as_text(name, kwargs)  # type: ignore[assignment]
        elif self.config.reference_outputs:
            kwargs = _true_price(name, kwargs)
        return super().call(name, **kwargs)

    # lookups -----------------------------------------------------------------------
    @property
    def money_cents(self) -> int:
        """Cash on hand."""
        return self.ledger.funds_cents

    def known_index(self, name: str) -> int | None:
        """The catalog index of a researched product, else ``None``."""
        i = self._index.get(name)
        return i if i is not None and i in self._researched else None

    def catalog_index(self, name: str) -> int | None:
        """The catalog index of a product, researched or not, else ``None``."""
        return self._index.get(name)

    def researched_names(self) -> list[str]:
        """Names of the products searches have returned, in order."""
        products = self.catalog.products
        return [products[i].name for i in self.researched]

    def priced_names(self) -> list[str]:
        """Names of the products with a price, in pricing order."""
        products = self.catalog.products
        return [products[i].name for i in self.priced]

    def price_of(self, name: str) -> int | None:
        """The price in cents set for a product, else ``None``."""
        i = self._index.get(name)
        if i is None:
            return self.foreign_prices.get(name)
        return self.price_cents[i] or None

    # actions (commands validate; these only mutate) ----------------------------------------
    def research(self, query: str) -> list[dict]:
        """Search the catalog; remember every product returned."""
        products = self.catalog.products
        out = []
        for i in self._search.search_indices(query):
            p = products[i]
            if i not in self._researched:
                self._researched.add(i)
                self.researched.append(i)
                if self.price_cents[i]:  # priced before its research (``price_unresearched``): it joins its group now
                    self._regroup(i)
            out.append({"name": p.name, "category": p.category, "wholesale_price": p.wholesale_cents / 100})
        return out

    def place_order(self, index: int, quantity: int, items: list[dict]) -> dict:
        """Pay for an order now; it arrives ``delivery_days`` later."""
        cfg = self.config
        cost = self._wholesale[index] * quantity
        money = self.money_cents
        cash_float = self.cash_float
        if cash_float is not None:
            try:
                cost_float = self._wholesale[index] / 100 * quantity  # the reference's float price times units
            except OverflowError:  # more units than a float holds: the reference fails with a Python error
                raise OrderError("invalid_quantity", f"'quantity' {quantity} is too large to price.",
                                 "Order fewer units.") from None
            if cash_float < cost_float or cost > money:
                raise OrderError("insufficient_funds", f"Insufficient funds. Order cost: ${cost_float:.2f}, "
                                 f"available: ${cash_float:.2f}.", "Order fewer units, or wait for sales.",
                                 order_cost=round(cost_float, 2), available_money=round(cash_float, 2),
                                 shortfall=round(cost_float - cash_float, 2))
            self.cash_float = cash_float - cost_float
        elif cost > money:
            raise OrderError("insufficient_funds", f"Insufficient funds. Order cost: ${cost / 100:.2f}, available: "
                             f"${money / 100:.2f}.", "Order fewer units, or wait for sales.", order_cost=cost / 100,
                             available_money=money / 100, shortfall=(cost - money) / 100)
        order = Order(index, quantity, items, self.day, self.day + cfg.delivery_days, cost)
        self.ledger.post(self._now_us, "purchase", -cost, self._names[index])
        self.purchases_cents += cost
        self.pending_cents += cost
        self.orders.append(order)
        self._due.setdefault(order.delivery_day, []).append(order)
        self._open_orders += 1
        return order.as_dict(cfg.delivery_days)

    def set_price(self, index: int, cents: int) -> None:
        """Set a product's retail price (it then takes part in the demand model)."""
        if not self.price_cents[index]:
            self.priced.append(index)
            self._priced_names.append(self._names[index])
            g = self.demand.product_group[index]
            if g >= 0:
                members = self._by_group.setdefault(g, [])
                # The reference's demand knows a product's wholesale price only once a search returned it: an
                # unresearched product places its group in the order but takes part from its research on.
                if index in self._researched:
                    members.append(index)
        self.price_cents[index] = cents

    def _regroup(self, index: int) -> None:
        """Rebuild a priced product's group list in pricing order, researched members only."""
        group = self.demand.product_group
        g = group[index]
        if g >= 0:
            self._by_group[g] = [j for j in self.priced if group[j] == g and j in self._researched]

    def set_foreign_price(self, name: str, cents: int) -> None:
        """Price a name the catalog lacks (``price_unresearched``): listed among the priced, never sold."""
        if name not in self.foreign_prices:
            self._priced_names.append(name)
        self.foreign_prices[name] = cents

    # the day -------------------------------------------------------------------------------
    def end_day(self, day: int) -> dict:
        """Sales of ``day``, then the next day's deliveries; the reference's ``task_done`` report."""
        return self.settle_day(day, self.demand.sales(day, self._by_group, self.price_cents, self.stock, self._rng))

    def settle_day(self, day: int, sold: list[tuple[int, int]]) -> dict:
        """Book ``day``'s sales (``(product index, units)`` in draw order), then the next day's deliveries.

        The machine's own half of the day: the market decides ``sold`` (this world's demand model alone, or an
        arena's choice between machines). Returns the reference's ``task_done`` report.
        """
        stock, prices = self.stock, self.price_cents
        if self.cash_float is not None:
            # The reference adds each line's float revenue in this order, then the day's (0.0 too) to its cash.
            day_float = 0.0
            for i, n in sold:
                day_float += n * (prices[i] / 100)
            self.cash_float = self.cash_float + day_float
        events: dict[str, Any] = {"sales": {}, "deliveries": [], "replies": 0, "errors": []}
        if sold:  # every line sells at least one unit
            names, wholesale = self._names, self._wholesale
            revenue = units = value = 0
            # every priced product, in pricing order; only priced products sell
            details = dict.fromkeys(self._priced_names, 0)
            for i, n in sold:
                stock[i] -= n
                revenue += n * prices[i]
                units += n
                value += n * wholesale[i]
                details[names[i]] = n
            self._stock_value -= value
            self.ledger.post(self._now_us, "sales", revenue)
            self.sales_cents += revenue
            self.units_sold += units
            self.last_sales_day = day
            self._dry_days = 0
            events["sales"] = {"items_sold": units, "revenue": revenue / 100, "revenue_cents": revenue,
                               "details": details}
        else:
            revenue = units = 0
            self._dry_days += 1
        due = self._due.pop(self.day, None)
        if due:
            cost = 0
            for order in due:
                i = order.product
                if i not in self._stocked:
                    self._stocked.add(i)
                    self.stocked.append(i)
                stock[i] += order.quantity
                self.units_delivered += order.quantity
                self._stock_value += order.cost_cents
                order.status = "delivered"
                order.delivered_day = self.day
                cost += order.cost_cents
            self.pending_cents -= cost
            self._open_orders -= len(due)
            dd = self.config.delivery_days
            events["deliveries"] = [{"order_count": len(due), "total_cost": cost / 100, "total_cost_cents": cost,
                                     "orders": [o.as_dict(dd) for o in due]}]
        worth = self.net_worth_cents()
        self.daily.append((day, revenue, units, worth))
        money = self.money_cents
        parts = [f"Day {self.day}"]
        if units:
            parts.append(f"Sales: {units} items, ${revenue / 100:.2f} revenue")
        if due:
            # The reference counts its one-element list of delivery groups, not the orders.
            parts.append(f"Deliveries: {1 if self.config.reference_outputs else len(due)} orders received")
        return {
            "status": "success",
            "current_day": self.day,
            "events": events,
            "current_state": {"money": money / 100, "money_cents": money,
                              "total_inventory_items": self.units_delivered - self.units_sold + self.units_transferred,
                              "product_types_count": len(self.stocked),
                              "pending_orders": self._open_orders},
            "summary": " | ".join(parts),
        }

    def finished_status(self) -> Status | None:
        """The horizon; or, with no cash left, ``stagnation_days`` days without a sale."""
        if self.money_cents <= 0 and self._dry_days >= self.config.stagnation_days:
            return Status.BANKRUPT
        return Status.HORIZON if self.day >= self.horizon_days else None

    # figures -------------------------------------------------------------------------------
    def inventory_value_cents(self) -> int:
        """Stock on hand at wholesale."""
        return self._stock_value

    def net_worth_cents(self) -> int:
        """Cash + stock at wholesale + prepaid orders not yet delivered (spec §2.6)."""
        return self.money_cents + self.inventory_value_cents() + self.pending_cents

    def observation(self) -> dict:
        """Cash, inventory, prices and orders (the reference shows agents only tool results)."""
        products = self.catalog.products
        money = self.money_cents
        return {
            "day": self.day,
            "money": money / 100,
            "funds_cents": money,
            "inventory": {products[i].name: self.stock[i] for i in self.stocked if self.stock[i]},
            "prices": {products[i].name: self.price_cents[i] / 100 for i in self.priced},
            "pending_orders": [o.as_dict(self.config.delivery_days) for o in self.orders if o.status == "processing"],
            "net_worth_cents": self.net_worth_cents(),
            "actions_left": self.actions_left,
            "status": self.status.value,
        }

    def daily_net_worth(self) -> list[int]:
        """Net worth in cents after each sales day so far."""
        return [row[3] for row in self.daily]

    def summary(self) -> dict:
        """The episode's headline figures; ``metric_value`` is the net worth in cents."""
        worth = self.net_worth_cents()
        days = len(self.daily)
        return {
            "metric": "net_worth_cents",
            "metric_value": worth,
            "net_worth_cents": worth,
            "final_money_cents": self.money_cents,
            "inventory_value_cents": self.inventory_value_cents(),
            "pending_value_cents": self.pending_cents,
            "total_revenue_cents": self.sales_cents,
            "total_purchases_cents": self.purchases_cents,
            "avg_daily_revenue_cents": self.sales_cents / days if days else 0.0,
            "units_sold": self.units_sold,
            "units_in_stock": sum(self.stock),
            "last_sales_day": self.last_sales_day or 0,  # 0 when nothing sold, as the reference's metric says
            "products_priced": len(self.priced),
            "orders_placed": len(self.orders),
            "days": days,
            "catalog": self.catalog.name,
            "daily_net_worth_cents": self.daily_net_worth(),
            "daily_revenue_cents": [row[1] for row in self.daily],
        }

    # state for tests, replay and analysis ---------------------------------------------------
    def state(self) -> dict:
        """Complete state as JSON-able data."""
        products = self.catalog.products
        return {
            "day": self.day,
            "time": self.now_iso,
            "status": self.status.value,
            "money_cents": self.money_cents,
            "ledger": [(e.t_us, e.category, e.amount_cents, e.ref) for e in self.ledger],
            "stock": {products[i].name: self.stock[i] for i in self.stocked},
            "prices": [(products[i].name, self.price_cents[i]) for i in self.priced],
            "researched": self.researched_names(),
            "orders": [o.as_dict(self.config.delivery_days) for o in self.orders],
            "daily": [list(r) for r in self.daily],
            "actions_today": self.actions_today,
            "day_ending": self.day_ending,
            **({"cash_float": self.cash_float} if self.cash_float is not None else {}),
            **({"foreign_prices": sorted(self.foreign_prices.items())} if self.foreign_prices else {}),
        }

    def invariants(self) -> list[str]:
        """Broken rules, described (empty when the state is sound)."""
        bad = []
        money = self.money_cents
        if money < 0:
            bad.append(f"cash {money} cents is negative")
        if not self.ledger.balanced():
            bad.append("cash differs from initial cash plus the ledger")
        if money != self.ledger.initial_cents - self.purchases_cents + self.sales_cents + self.transferred_cents:
            bad.append(f"cash {money} != start {self.ledger.initial_cents} - purchases {self.purchases_cents} "
                       f"+ sales {self.sales_cents} + transfers {self.transferred_cents}")
        negative = [self.catalog.products[i].name for i, q in enumerate(self.stock) if q < 0]
        if negative:
            bad.append(f"negative stock: {negative[:3]}")
        products = self.catalog.products
        if self._stock_value != sum(products[i].wholesale_cents * q for i, q in enumerate(self.stock)):
            bad.append(f"stock value {self._stock_value} differs from the stock at wholesale")
        if sum(self.stock) != self.units_delivered - self.units_sold + self.units_transferred:
            bad.append(f"stock {sum(self.stock)} != delivered {self.units_delivered} - sold {self.units_sold} "
                       f"+ transferred {self.units_transferred}")
        processing = [o for o in self.orders if o.status == "processing"]
        if self.pending_cents != sum(o.cost_cents for o in processing):
            bad.append(f"pending value {self.pending_cents} does not match the processing orders")
        if any(o.delivery_day <= self.day for o in processing):
            bad.append("an order is overdue")
        priced = sum(1 for c in self.price_cents if c)
        if any(self.price_cents[i] <= 0 for i in self.priced) or len(self.priced) != priced:
            bad.append("the priced list and the prices disagree")
        if self.daily_budget is not None and self.actions_today > self.daily_budget:
            bad.append(f"{self.actions_today} actions today, over the budget of {self.daily_budget}")
        if len(self.daily) != self.day:
            bad.append(f"{len(self.daily)} sales days recorded on day {self.day}")
        return bad


def _items_as_text(name: str, arguments: Mapping[str, Any] | str | bytes | None) -> Any:
    if name == "order_place" and isinstance(arguments, (str, bytes)):
        # Arguments as JSON text, the usual shape of a tool call; what does not parse is left to the kernel's error.
        try:
            parsed = loads_untrusted(arguments)
        except (ValueError, UnicodeDecodeError):
            return arguments
        if type(parsed) is not dict:
            return arguments
        arguments = parsed
    if (name == "order_place" and (type(arguments) is dict or isinstance(arguments, Mapping))
            and isinstance(arguments.get("items"), (list, dict))):
        if nested_deeper(arguments["items"]):
            # Deeper than any JSON an agent's text can hold: left for the kernel to refuse (json.dumps recursed out).
            return arguments
        try:
            return {**arguments, "items": _items_json(arguments["items"])}
        except ValueError:  # NaN or Infinity inside: written as the text form holds them, refused as that is
            try:            # (invalid_number), not as "expects text"
                return {**arguments, "items": json.dumps(arguments["items"], ensure_ascii=False)}
            except (TypeError, ValueError):
                return arguments
        except TypeError:
            return arguments
    return arguments


def _true_price(name: str, arguments: Any) -> Any:
    """``price_set`` arguments with a JSON ``true`` price read as 1, as the reference's ``float(price)`` reads it."""
    if name != "price_set":
        return arguments
    parsed = arguments
    if isinstance(arguments, (str, bytes)):
        try:
            parsed = loads_untrusted(arguments)
        except (ValueError, UnicodeDecodeError):
            return arguments
    if isinstance(parsed, Mapping) and parsed.get("price") is True:
        return {**parsed, "price": 1.0}
    return arguments


def _items_json(items: Any) -> str:
    """``json.dumps(items, ensure_ascii=False, allow_nan=False)``.

    Agents order one plain ``{"name": str, "quantity": int}`` line almost
    every day; that shape is written directly, with json's own string
    encoder, as the same text.
    """
    if type(items) is list and len(items) == 1:
        item = items[0]
        if type(item) is dict and len(item) == 2 and next(iter(item)) == "name" and "quantity" in item:
            name, quantity = item["name"], item["quantity"]
            if type(name) is str and type(quantity) is int:
                return f'[{{"name": {encode_basestring(name)}, "quantity": {int.__repr__(quantity)}}}]'
    return json.dumps(items, ensure_ascii=False, allow_nan=False)
