"""The lemonade stand: a small bizsim world whose mechanics are SimPy processes on ``world.env``.

A day, at absolute instants (``env.fire_at``), same-instant ties broken by the priorities below:

- 00:00  the owner acts: ``order`` lemons, set the ``price``, look at the ``status``; then ``run_day``.
- 07:00  each order due today is delivered (one delivery process per order, started when it is placed).
- 18:00  the day's customers come (the market process): as many as weather and price bring, each buying
         one cup while lemons last, the oldest lemons first.
- 20:00  lemons past their shelf life spoil (one spoilage process per delivered batch).
- 24:00  the day ends (:class:`~bizsim.simcore.dayworld.DayWorld`): rent is paid, the report is written, and the
         stand is bankrupt if its cash is below zero.

Every random draw comes from a named stream of the episode seed (``self.streams``), drawn for the whole
season up front so that what the owner does never changes what the weather or the crowds do:
``weather`` (each day's weather), ``forecast`` (whether tomorrow's forecast is right) and ``customers``
(each day's log-normal demand factor).
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import simpy
from bizsim.simcore import CommandError, Ledger, Status
from bizsim.simcore.calendar import US_PER_DAY, US_PER_HOUR
from bizsim.simcore.dayworld import PRIO_DAY_END, DayWorld

from .commands import COMMANDS
from .config import WEATHERS, LemonadeConfig, parse_start_date
from .presets import PRESETS

__all__ = ["PRIO_DELIVERY", "PRIO_SPOIL", "PRIO_TRADE", "ROLE", "LemonadeWorld"]

#: When things happen within a day (microseconds after midnight).
DELIVERY_AT, CLOSE_AT, SPOIL_AT = 7 * US_PER_HOUR, 18 * US_PER_HOUR, 20 * US_PER_HOUR
#: Same-instant order: deliveries, then trade, then spoilage, all before the day's end (``PRIO_DAY_END``).
PRIO_DELIVERY, PRIO_TRADE, PRIO_SPOIL = 1, 2, 3
assert PRIO_SPOIL < PRIO_DAY_END

#: The role line an LLM harness puts at the top of its system prompt.
ROLE = (
    "You run a lemonade stand for one summer month. Each morning, order lemons (they arrive after a lead time "
    "and spoil after a few days) and set the price of a cup; the weather and your price decide how many "
    "customers come. You are judged on your cash at the end of the season, in cents."
)

_TALLY = ("delivered", "customers", "cups_sold", "lost_customers", "revenue_cents", "supplies_cents", "spoiled")


def _money(cents: int) -> str:
    return f"{'-' if cents < 0 else ''}${abs(cents) / 100:,.2f}"


class LemonadeWorld(DayWorld):
    """Run a lemonade stand for a month; metric: the final cash in cents.

    Args:
        config: a preset name (``"default"``, ``"heatwave"``), a ``.toml`` path, or a :class:`LemonadeConfig`.
        seed: the episode seed.
    """

    name = "lemonade"
    version = 1
    commands = COMMANDS
    advance_command = "run_day"
    agent_role = ROLE
    #: ``price --cents`` holds money though its name does not end in ``_cents``: the shell and the play page show
    #: it, and ask for it, in dollars.
    money_fields = {"cents": "cents"}

    def __init__(self, config: LemonadeConfig | str = "default", seed: int = 1) -> None:
        cfg = PRESETS.resolve(config)
        super().__init__(cfg, seed, start=parse_start_date(cfg.start_date), daily_budget=cfg.daily_budget,
                         horizon_days=cfg.horizon_days)
        self.config: LemonadeConfig = cfg
        self.preset = config if isinstance(config, str) else "custom"
        self.ledger = Ledger(cfg.initial_cash_cents)
        self.price_cents = cfg.initial_price_cents
        days = cfg.horizon_days
        kinds = len(WEATHERS)
        self.weather: list[int] = self.streams.get("weather").choice(kinds, size=days, p=cfg.weather_odds).tolist()
        fc = self.streams.get("forecast")
        right, other = fc.random(days).tolist(), fc.integers(0, kinds - 1, days).tolist()
        # A wrong forecast names one of the other kinds, each as likely.
        self.forecast: list[int] = [w if u < cfg.forecast_accuracy else (o if o < w else o + 1)
                                    for w, u, o in zip(self.weather, right, other)]
        self._demand: list[float] = self.streams.get("customers").lognormal(0.0, cfg.customer_noise, days).tolist()
        #: Lemons in stock, oldest first: ``[batch_id, lemons, last_day]`` (they spoil at 20:00 of ``last_day``).
        self.batches: list[list[int]] = []
        #: Every order placed: ``{order_id, lemons, cost_cents, placed_day, arrives_day, delivered}``.
        self.orders: list[dict[str, Any]] = []
        self.totals: dict[str, int] = dict.fromkeys(
            ("lemons_ordered", "lemons_delivered", "lemons_spoiled", "cups_sold", "customers", "lost_customers",
             "revenue_cents", "supplies_cents", "lemon_spend_cents", "rent_cents"), 0)
        self._today: dict[str, int] = dict.fromkeys(_TALLY, 0)
        #: One row per day that ended: the day's report facts.
        self.history: list[dict[str, Any]] = []
        self._next_batch = 0
        if cfg.initial_lemons:
            self._stock_batch(cfg.initial_lemons, 0)
        self.env.process(self._market())

    # money ----------------------------------------------------------------------------
    @property
    def cash_cents(self) -> int:
        """Cash now: the initial cash plus every ledger entry."""
        return self.ledger.funds_cents

    @property
    def stock_lemons(self) -> int:
        """Lemons in stock now."""
        return sum(b[1] for b in self.batches)

    @property
    def pending_lemons(self) -> int:
        """Lemons ordered and not yet delivered."""
        return sum(o["lemons"] for o in self.orders if not o["delivered"])

    def expected_customers(self, weather: int, price_cents: int) -> float:
        """Customers a day of ``weather`` brings at ``price_cents``, before the day's random factor."""
        cfg = self.config
        return cfg.base_customers[weather] * math.pow(cfg.reference_price_cents / price_cents, cfg.price_elasticity)

    # commands (validate everything first: a refusal changes nothing) ----------------------------
    def place_order(self, lemons: int) -> dict:
        """Pay for ``lemons`` now and start their delivery process."""
        cfg = self.config
        arrives = self.day + cfg.lead_days
        if arrives >= self.horizon_days:
            raise CommandError(f"An order placed on day {self.day} would arrive on day {arrives}, after the season's "
                               f"last day ({self.horizon_days - 1}).", "Sell the lemons you have; the season ends.")
        cost = lemons * cfg.lemon_cost_cents + cfg.order_fee_cents
        if cost > self.cash_cents:
            most = (self.cash_cents - cfg.order_fee_cents) // cfg.lemon_cost_cents if cfg.lemon_cost_cents else 0
            raise CommandError(f"{lemons} lemons cost {_money(cost)} with the delivery fee; you have "
                               f"{_money(self.cash_cents)}.", f"Order at most {max(0, most)} lemons.")
        room = cfg.storage_lemons - self.stock_lemons - self.pending_lemons
        if lemons > room:
            raise CommandError(f"{lemons} lemons do not fit: the storage holds {cfg.storage_lemons}, counting lemons "
                               f"in stock and on the way; room for {room}.", f"Order at most {room} lemons.")
        order = {"order_id": len(self.orders) + 1, "lemons": lemons, "cost_cents": cost, "placed_day": self.day,
                 "arrives_day": arrives, "delivered": False}
        self.orders.append(order)
        self.ledger.post(self._now_us, "lemons", -cost, f"order-{order['order_id']}")
        self.totals["lemons_ordered"] += lemons
        self.totals["lemon_spend_cents"] += cost
        self.env.process(self._deliver(order))
        return {"order_id": order["order_id"], "lemons": lemons, "cost_cents": cost, "arrives_day": arrives,
                "arrives": self.calendar.iso(arrives * US_PER_DAY + DELIVERY_AT), "cash_cents": self.cash_cents}

    def set_price(self, cents: int) -> dict:
        """Charge ``cents`` a cup from today's trade on."""
        if cents > self.config.max_price_cents:
            raise CommandError(f"A cup at {_money(cents)} is above the stand's licence limit of "
                               f"{_money(self.config.max_price_cents)}.",
                               f"Set at most {self.config.max_price_cents} cents.")
        self.price_cents = cents
        today = self.weather[self.day] if self.day < self.horizon_days else None
        expected = None if today is None else round(self.expected_customers(today, cents), 1)
        return {"price_cents": cents, "expected_customers_today": expected}

    # processes ------------------------------------------------------------------------------
    def _event(self, t_us: int, name: str, data: dict) -> None:
        # Stamped with the instant it happens: the world's clock (now_us) moves a whole day at a time.
        self.trajectory.add(t_us, "event", name, data)

    def _stock_batch(self, lemons: int, day: int) -> list[int]:
        self._next_batch += 1
        batch = [self._next_batch, lemons, day + self.config.shelf_life_days - 1]
        self.batches.append(batch)
        self.env.process(self._spoil(batch))
        return batch

    def _deliver(self, order: dict) -> Generator[simpy.Event, Any, None]:
        """One order: wait for its delivery instant, then stock its lemons."""
        t_us = order["arrives_day"] * US_PER_DAY + DELIVERY_AT
        yield self.env.fire_at(t_us, PRIO_DELIVERY)
        if self.done:
            return
        order["delivered"] = True
        batch = self._stock_batch(order["lemons"], order["arrives_day"])
        self.totals["lemons_delivered"] += order["lemons"]
        self._today["delivered"] += order["lemons"]
        self._event(t_us, "delivery", {"order_id": order["order_id"], "lemons": order["lemons"],
                                       "last_day": batch[2]})

    def _spoil(self, batch: list[int]) -> Generator[simpy.Event, Any, None]:
        """One batch: at 20:00 of its last day, whatever is left of it goes in the bin."""
        t_us = batch[2] * US_PER_DAY + SPOIL_AT
        yield self.env.fire_at(t_us, PRIO_SPOIL)
        if self.done or batch[1] == 0:
            return
        lemons, batch[1] = batch[1], 0
        self.batches = [b for b in self.batches if b is not batch]
        self.totals["lemons_spoiled"] += lemons
        self._today["spoiled"] += lemons
        self._event(t_us, "spoilage", {"batch": batch[0], "lemons": lemons})

    def _market(self) -> Generator[simpy.Event, Any, None]:
        """The customers: once a day at closing time, for the whole season."""
        for day in range(self.horizon_days):
            t_us = day * US_PER_DAY + CLOSE_AT
            yield self.env.fire_at(t_us, PRIO_TRADE)
            if self.done:
                return
            self._trade(day, t_us)

    def _trade(self, day: int, t_us: int) -> None:
        cfg = self.config
        expected = self.expected_customers(self.weather[day], self.price_cents)
        customers = min(cfg.max_customers, int(expected * self._demand[day] + 0.5))
        cups = min(customers, self.stock_lemons)
        left = cups
        for batch in self.batches:  # oldest first
            take = min(left, batch[1])
            batch[1] -= take
            left -= take
        self.batches = [b for b in self.batches if b[1] > 0]
        revenue, supplies = cups * self.price_cents, cups * cfg.supplies_cents_per_cup
        if revenue:
            self.ledger.post(t_us, "sales", revenue)
        if supplies:
            self.ledger.post(t_us, "supplies", -supplies)
        tally, totals = self._today, self.totals
        for key, value in (("customers", customers), ("cups_sold", cups), ("lost_customers", customers - cups),
                           ("revenue_cents", revenue), ("supplies_cents", supplies)):
            tally[key] += value
            totals[key] += value
        self._event(t_us, "trade", {"day": day, "weather": WEATHERS[self.weather[day]], "price_cents": self.price_cents,
                                    "customers": customers, "cups_sold": cups, "amount_cents": revenue - supplies})

    # the day ----------------------------------------------------------------------------------
    def end_day(self, day: int) -> dict:
        """Midnight after ``day``: pay the rent and report the day."""
        rent = self.config.daily_rent_cents
        if rent:
            self.ledger.post(self._now_us, "rent", -rent)
        self.totals["rent_cents"] += rent
        row = {"day": day, "weather": WEATHERS[self.weather[day]], "price_cents": self.price_cents, **self._today,
               "rent_cents": rent, "cash_cents": self.cash_cents, "stock_lemons": self.stock_lemons}
        self.history.append(row)
        self._today = dict.fromkeys(_TALLY, 0)
        report = {**row, **self._outlook()}
        report["summary"] = (f"Day {day} ({row['weather']}): {row['cups_sold']} of {row['customers']} customers served "
                             f"at {_money(row['price_cents'])}, {row['spoiled']} lemons spoiled; "
                             f"cash {_money(row['cash_cents'])}.")
        return report

    def finished_status(self) -> Status | None:
        """Bankrupt when the rent leaves the cash below zero, else over at the season's end."""
        if self.cash_cents < 0:
            return Status.BANKRUPT
        return Status.HORIZON if self.day >= self.horizon_days else None

    def _outlook(self) -> dict:
        """Today's weather and tomorrow's forecast, with the customers each brings at the current price."""
        day, price = self.day, self.price_cents
        today = self.weather[day] if day < self.horizon_days else None
        ahead = self.forecast[day + 1] if day + 1 < self.horizon_days else None
        return {
            "weather_today": None if today is None else WEATHERS[today],
            "expected_customers_today": None if today is None else round(self.expected_customers(today, price), 1),
            "forecast_tomorrow": None if ahead is None else WEATHERS[ahead],
            "expected_customers_tomorrow": None if ahead is None else round(self.expected_customers(ahead, price), 1),
        }

    # what agents, tests and analysis read -----------------------------------------------------------
    def observation(self) -> dict:
        """What the owner sees at the start of the day (the ``status`` command's answer)."""
        cfg = self.config
        return {
            "day": self.day, "date": self.now_iso[:10], "status": self.status.value, "days_left": self.horizon_days - self.day,
            "cash_cents": self.cash_cents, "price_cents": self.price_cents,
            "stock_lemons": self.stock_lemons,
            "stock": [{"lemons": b[1], "last_day": b[2]} for b in self.batches],
            "spoiling_tonight": sum(b[1] for b in self.batches if b[2] <= self.day),
            "orders_on_the_way": [{"order_id": o["order_id"], "lemons": o["lemons"], "arrives_day": o["arrives_day"]}
                                  for o in self.orders if not o["delivered"]],
            "lemon_cost_cents": cfg.lemon_cost_cents, "order_fee_cents": cfg.order_fee_cents,
            "an_order_today_arrives_day": self.day + cfg.lead_days, "shelf_life_days": cfg.shelf_life_days,
            "storage_room": cfg.storage_lemons - self.stock_lemons - self.pending_lemons,
            **self._outlook(),
            "actions_left": self.actions_left,
        }

    def state(self) -> dict:
        """The complete state as JSON-able data (equal states, equal states)."""
        return {
            "day": self.day, "time": self.now_iso, "status": self.status.value, "actions_today": self.actions_today,
            "day_ending": self.day_ending, "price_cents": self.price_cents,
            "ledger": [list(e) for e in self.ledger], "batches": [list(b) for b in self.batches],
            "orders": [dict(o) for o in self.orders], "totals": dict(self.totals), "today": dict(self._today),
            "history": [dict(r) for r in self.history], "next_batch": self._next_batch,
        }

    def invariants(self) -> list[str]:
        """Broken rules, described (empty when the state is sound)."""
        bad: list[str] = []
        cfg, t = self.config, self.totals
        if not self.ledger.balanced():
            bad.append("cash differs from the initial cash plus the ledger")
        flows = (cfg.initial_cash_cents + t["revenue_cents"] - t["supplies_cents"] - t["lemon_spend_cents"]
                 - t["rent_cents"])
        if flows != self.cash_cents:
            bad.append(f"cash {self.cash_cents} differs from the money flows' {flows}")
        if any(b[1] <= 0 for b in self.batches):
            bad.append(f"an empty batch is kept in stock: {self.batches}")
        if any(b[2] < self.day for b in self.batches):
            bad.append(f"lemons past their last day are still in stock on day {self.day}: {self.batches}")
        if cfg.initial_lemons + t["lemons_delivered"] != t["cups_sold"] + t["lemons_spoiled"] + self.stock_lemons:
            bad.append("lemons do not add up: initial + delivered != sold + spoiled + in stock")
        if t["lemons_ordered"] != t["lemons_delivered"] + self.pending_lemons:
            bad.append("orders do not add up: ordered != delivered + on the way")
        if self.stock_lemons + self.pending_lemons > cfg.storage_lemons:
            bad.append(f"{self.stock_lemons} lemons in stock and {self.pending_lemons} on the way overflow the storage")
        if not 1 <= self.price_cents <= cfg.max_price_cents:
            bad.append(f"price {self.price_cents} outside [1, {cfg.max_price_cents}]")
        if self.daily_budget is not None and self.actions_today > self.daily_budget:
            bad.append(f"{self.actions_today} actions today, over the budget of {self.daily_budget}")
        if len(self.history) != self.day:
            bad.append(f"{len(self.history)} days reported on day {self.day}")
        if self.status is Status.RUNNING and self.cash_cents < 0:
            bad.append(f"cash {self.cash_cents} below zero but the stand trades on")
        return bad

    def summary(self) -> dict:
        """The season's figures; ``metric_value`` is the final cash in cents."""
        t = self.totals
        return {
            "metric": "final_cash_cents",
            "metric_value": self.cash_cents,
            "final_cash_cents": self.cash_cents,
            "profit_cents": self.cash_cents - self.config.initial_cash_cents,
            **t,
            "orders": len(self.orders),
            "service_rate": t["cups_sold"] / t["customers"] if t["customers"] else None,
            "days": self.day,
            "daily_cash_cents": [r["cash_cents"] for r in self.history],
            "daily_cups_sold": [r["cups_sold"] for r in self.history],
        }
