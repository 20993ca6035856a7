"""Vending: identical action scripts into EcoGym's supplier, seller and timer tools and bizsim's ``reference``
preset on the reference's own catalog files.

Noise is fed identically (both take the day's normal draws from one sequence, in the same order) or is off in
both. Research is the reference's keyword search (its embedding search needs a paid API and is not compared).
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import attrs
import numpy as np
from bizsim.models.vending import PRESETS, VendingWorld

from ._common import Tally, call_reference, load_yaml, parse, play, quiet, use_checkout

WORDS = ("water", "soda", "cola", "milk", "chips", "candy", "rice", "pasta", "sauce", "oil", "tea", "coffee",
         "shampoo", "batteries", "snack", "juice", "soap", "bread", "zzz", "")
#: Quantities a script sends: mostly sound, some the reference and bizsim must both refuse or treat alike.
QUANTITIES = (1, 2, 3, 5, 8, 10, 12, 20, 30, 50, 80, 0, -1, 2.5, "7", None, True, False, [1], 2_000_000, 10**9)


class _Normals:
    """bizsim's demand noise source, reading a shared sequence of standard normals."""

    def __init__(self, seq: list[float]) -> None:
        self.seq, self.i = seq, 0

    def normals(self, n: int) -> list[float]:
        self.i += n
        return self.seq[self.i - n:self.i]


class _Gauss:
    """The reference's demand generator, reading the same sequence: ``gauss(mu, sigma)`` is ``mu + z * sigma``."""

    def __init__(self, seq: list[float]) -> None:
        self.seq, self.i = seq, 0

    def gauss(self, mu: float, sigma: float) -> float:
        self.i += 1
        return mu + self.seq[self.i - 1] * sigma


def _reference(path: str) -> dict:
    use_checkout(os.path.join(path, "libs", "agno"), os.path.join(path, "config"))
    from agno.tools.vending.seller import SalesModel, SalesTools
    from agno.tools.vending.supplier import SupplierCommunicationTools
    from agno.tools.vending.timer import TimerTools

    data = os.path.join(path, "data", "vending")
    products, demand = os.path.join(data, "products.jsonl"), os.path.join(data, "demand_structure.json")
    config = load_yaml(os.path.join(path, "config", "vending_config.yaml"))
    return {"SalesModel": SalesModel, "SalesTools": SalesTools, "Supplier": SupplierCommunicationTools,
            "Timer": TimerTools, "products": products, "demand": demand, "initial": config["initial_state"]}


def _deliberate(name: str, args: dict) -> str | None:
    """Why a call is one of bizsim's listed deliberate differences, else ``None``."""
    price = args.get("price")
    if name == "price_set" and type(price) in (int, float) and price > 1_000_000:
        return "price_set above $1,000,000 (bizsim refuses it)"
    if name == "order_place" and '"note": NaN' in str(args.get("items")):
        return "a NaN in an extra key of an order line (bizsim refuses it)"
    return None


def _action(rng: np.random.Generator, world: VendingWorld, catalog: list[str]) -> tuple[str, Any]:
    """One call of a mixed script: mostly sound, some wrong."""
    known = world.researched_names()
    pick = rng.integers(100)
    if pick < 30 or not known:
        if rng.integers(3) == 0:
            words = catalog[rng.integers(len(catalog))].split()
            query = " ".join(words[: 1 + rng.integers(len(words))])
        else:
            query = " ".join(WORDS[i] for i in rng.integers(len(WORDS), size=1 + rng.integers(2)))
        return "products_research", {"query": query}
    if pick < 55:
        name = known[rng.integers(len(known))] if rng.integers(8) else catalog[rng.integers(len(catalog))]
        q = QUANTITIES[rng.integers(len(QUANTITIES))] if rng.integers(4) == 0 else int(rng.integers(1, 60))
        shape = rng.integers(14)
        if shape == 0:
            return "order_place", {"items": []}
        if shape == 1:
            return "order_place", {"items": [{"name": name, "quantity": 1}, {"name": known[0], "quantity": 1}]}
        if shape == 2:
            return "order_place", {"items": "[{broken"}
        if shape == 3:
            return "order_place", {"items": [name]}
        if shape == 4:
            return "order_place", {"items": json.dumps([{"name": name, "quantity": q}])}
        if shape == 12:  # a NaN literal where the quantity goes: both read it, both refuse it (invalid_quantity)
            return "order_place", {"items": '[{"name": %s, "quantity": NaN}]' % json.dumps(name)}
        if shape == 13:  # a NaN in an extra key: a listed deliberate difference (bizsim refuses, invalid_number)
            return "order_place", {"items": '[{"name": %s, "quantity": 1, "note": NaN}]' % json.dumps(name)}
        if shape == 5 and world.known_index(name) is not None:  # all the cash can buy: where float drift bites
            q = max(1, world.money_cents // world.catalog.products[world.known_index(name)].wholesale_cents)
        return "order_place", {"items": [{"name": name, "quantity": q}]}
    if pick < 80:
        where = rng.integers(10)
        name = known[rng.integers(len(known))] if where < 7 else (
            catalog[rng.integers(len(catalog))] if where < 9 else "No Such Product")
        price = round(float(rng.uniform(0.3, 9.0)), 2) if rng.integers(10) else [0, -1.5, True, "2.50", 2_500_000.0][
            rng.integers(5)]
        return "price_set", {"product_name": name, "price": price}
    if pick < 92:
        name = known[rng.integers(len(known))] if rng.integers(3) else "No Such Product"
        return "price_query", {"product_name": name}
    return ["inventory_check", "help", "order_place"][rng.integers(3)], {}


def _state(world: VendingWorld) -> dict:
    """bizsim's state in the reference's session-state fields."""
    p = world.catalog.products
    prices = {p[i].name: world.price_cents[i] / 100 for i in world.priced}
    prices |= {n: c / 100 for n, c in world.foreign_prices.items()}
    return {"money": world.cash_float, "day": world.day,
            "product_quantities": {p[i].name: world.stock[i] for i in world.stocked},
            "product_prices": prices, "products": world.researched_names(),
            "wholesale_prices": {n: p[world.catalog_index(n)].wholesale_cents / 100 for n in world.researched_names()},
            "orders": [o.as_dict(world.config.delivery_days) for o in world.orders]}


def run(path: str, runs: int, seed: int, noise: bool, days: int | None = None) -> dict:
    """``runs`` scripts from ``seed``; returns the tally as data."""
    ref = _reference(path)
    cfg = attrs.evolve(PRESETS["reference"], products_path=ref["products"], demand_path=ref["demand"], noise=noise)
    tally = Tally()
    with quiet():
        supplier = ref["Supplier"](product_db_path=ref["products"], use_embeddings=False)
        model = ref["SalesModel"](demand_structure_path=ref["demand"], product_catalog_path=ref["products"])
    sales = ref["SalesTools"](model)
    catalog = [row["name"] for row in supplier.product_db.products]
    horizon = days or cfg.horizon_days
    for r in range(runs):
        rng = np.random.default_rng([seed, r])
        world = VendingWorld(cfg, seed * 100_000 + r)
        state = copy.deepcopy(ref["initial"])
        supplier.orders = []
        timer = ref["Timer"](sales_tools=sales, supplier_tools=supplier)
        seq = rng.standard_normal(200_000).tolist()
        if noise:
            world._rng = _Normals(seq)
            model._rng = _Gauss(seq)
        else:  # bizsim draws nothing; the reference's generator answers its mean
            model._rng = _Gauss([0.0] * len(seq))
        tools = {"products_research": supplier.products_research, "order_place": supplier.order_place,
                 "price_set": sales.price_set, "price_query": sales.price_query, "task_done": timer.task_done}
        tally.runs += 1
        for day in range(horizon):
            for _ in range(rng.integers(0, world.config.daily_budget + 1)):
                name, args = _action(rng, world, catalog)
                if name == "help":  # bizsim's free help tool; the reference has none
                    tally.skip("help (bizsim's own tool)")
                    play(world, name, args)
                    continue
                why = _deliberate(name, args)
                if why:  # a listed deliberate difference (docs/worlds/vending.md): sent to neither
                    tally.skip(why)
                    continue
                theirs = parse(call_reference(tools, state, name, args))
                ours = play(world, name, args)
                if isinstance(ours, dict) and ours.get("error_type") == "insufficient_funds" and not ours["shortfall"]:
                    tally.compared["orders refused for float drift alone"] += 1
                tally.check("action result", theirs, ours, f"run {r} day {day} {name} {args}")
            theirs = parse(call_reference(tools, state, "task_done", {}))
            ours = play(world, "task_done", {})
            tally.check("day report", theirs, ours, f"run {r} day {day}")
            if tally.check("day state", {k: state.get(k) for k in _state(world)}, _state(world), f"run {r} day {day}"):
                tally.diverge(f"run {r} day {day}")
                break
            if world.done:
                break
        tally.compared["units sold"] += world.units_sold
        tally.compared["orders delivered"] += sum(o.status == "delivered" for o in world.orders)
    return tally.report()
