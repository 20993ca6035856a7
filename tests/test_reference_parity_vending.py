"""Vending preset ``reference``: the reference code's cash check, pricing and result details (issue 23, items 1-4)."""

from __future__ import annotations

import json

import attrs
import pytest
from bizsim.models.vending import PRESETS, VendingWorld

from ._ecogym import end_day

#: The reference preset with room for a whole test's actions in one day.
REFERENCE = attrs.evolve(PRESETS["reference"], daily_budget=50)
DEFAULT = attrs.evolve(PRESETS["reference"], daily_budget=50, float_cash=False, price_unresearched=False,
                       reference_outputs=False)


def _researched(world: VendingWorld, wholesale_cents: int) -> str:
    """Research a catalog product of this wholesale price by its name and return the name."""
    name = next(p.name for p in world.catalog.products if p.wholesale_cents == wholesale_cents)
    world.call("products_research", query=name)
    assert world.known_index(name) is not None
    return name


def _order(world: VendingWorld, name: str, quantity) -> dict:
    return world.execute_tool("order_place", {"items": [{"name": name, "quantity": quantity}]}, driven=True)


def test_an_order_costing_exactly_the_cash_left_is_refused_after_float_drift():
    """From $100: 4 units at $0.51, then 62 at $1.58 (exactly $97.96 in cents, 97.96000000000001 in floats)."""
    w = VendingWorld(REFERENCE, 1)
    cheap, dear = _researched(w, 51), _researched(w, 158)
    assert "success" == _order(w, cheap, 4)["status"]
    out = _order(w, dear, 62)
    assert ("insufficient_funds", 97.96, 97.96, 0.0) == (
        out["error_type"], out["order_cost"], out["available_money"], out["shortfall"])
    assert 9796 == w.money_cents


def test_without_float_cash_the_same_order_is_paid():
    """bizsim's own rule (integer cents): cash that covers the cost exactly pays for it."""
    w = VendingWorld(DEFAULT, 1)
    cheap, dear = _researched(w, 51), _researched(w, 158)
    _order(w, cheap, 4)
    assert "success" == _order(w, dear, 62)["status"]
    assert 0 == w.money_cents


def test_float_cash_follows_sales_revenue_as_the_reference_adds_it():
    """Revenue is added as the reference's float sum; the float stays within a cent of the ledger."""
    w = VendingWorld(REFERENCE, 1)
    name = _researched(w, 158)
    _order(w, name, 20)
    w.call("price_set", product_name=name, price=2.99)
    for _ in range(12):
        end_day(w)
    assert w.units_sold > 0
    assert abs(w.cash_float - w.money_cents / 100) < 1e-9


def test_price_set_before_research_is_accepted_and_the_product_sells_at_that_price():
    """The reference prices any name; once researched, ordered and delivered, the product sells at that price."""
    w = VendingWorld(REFERENCE, 1)
    name = next(p.name for p in w.catalog.products if p.wholesale_cents == 158)
    assert w.known_index(name) is None
    assert {"status": "success", "product_name": name, "price": 2.5, "price_cents": 250} == w.call(
        "price_set", product_name=name, price=2.5)
    _researched(w, 158)
    assert "success" == _order(w, name, 30)["status"]
    revenue = 0
    for _ in range(10):
        report = end_day(w)
        sold = report["events"]["sales"].get("details", {}).get(name, 0)
        revenue += sold * 250
    assert revenue > 0 and revenue == w.sales_cents


def test_price_set_takes_a_name_the_catalog_lacks():
    """It is listed among the priced (0 sold in a day's details) and price_query finds it."""
    w = VendingWorld(REFERENCE, 1)
    w.call("price_set", product_name="No Such Thing", price=1.25)
    assert {"product_name": "No Such Thing", "price": 1.25, "price_cents": 125} == w.call(
        "price_query", product_name="No Such Thing")
    name = _researched(w, 158)
    _order(w, name, 5)
    w.call("price_set", product_name=name, price=1.99)
    for _ in range(8):
        report = end_day(w)
        if report["events"]["sales"]:
            assert 0 == report["events"]["sales"]["details"]["No Such Thing"]


def test_price_set_before_research_is_refused_elsewhere():
    """bizsim's own rule: only researched products can be priced."""
    w = VendingWorld(DEFAULT, 1)
    assert "error" in w.execute_tool("price_set", {"product_name": "No Such Thing", "price": 1.0}, driven=True)


def test_a_delivery_day_says_one_order_received_however_many_arrived():
    """The reference counts its one-element list of delivery groups."""
    w = VendingWorld(REFERENCE, 1)
    a, b = _researched(w, 158), _researched(w, 51)
    _order(w, a, 2)
    _order(w, b, 2)
    reports = [end_day(w) for _ in range(7)]
    assert 2 == reports[-1]["events"]["deliveries"][0]["order_count"]
    assert reports[-1]["summary"].endswith("Deliveries: 1 orders received")


def test_elsewhere_the_summary_counts_the_orders():
    """bizsim's own summary."""
    w = VendingWorld(DEFAULT, 1)
    a, b = _researched(w, 158), _researched(w, 51)
    _order(w, a, 2)
    _order(w, b, 2)
    assert [end_day(w) for _ in range(7)][-1]["summary"].endswith("Deliveries: 2 orders received")


def test_more_than_a_million_units_is_refused_as_insufficient_funds_with_cost_and_shortfall():
    """The reference has no unit limit: the cash check refuses it, with the cost."""
    w = VendingWorld(REFERENCE, 1)
    name = _researched(w, 158)
    out = _order(w, name, 2_000_000)
    assert ("insufficient_funds", 3_160_000.0, 100.0, 3_159_900.0) == (
        out["error_type"], out["order_cost"], out["available_money"], out["shortfall"])


def test_elsewhere_more_than_a_million_units_is_an_invalid_quantity():
    """bizsim's own limit."""
    w = VendingWorld(DEFAULT, 1)
    name = _researched(w, 158)
    assert "invalid_quantity" == _order(w, name, 2_000_000)["error_type"]


@pytest.mark.parametrize("quantity", [2.5, "7", None, [1], {"n": 1}])
def test_refusals_show_the_offending_values_raw(quantity):
    """``item_info`` holds the values as sent, not JSON text of them."""
    w = VendingWorld(REFERENCE, 1)
    name = _researched(w, 158)
    out = _order(w, name, quantity)
    assert ("invalid_quantity", {"name": name, "quantity": quantity}) == (out["error_type"], out["item_info"])
    json.dumps(out, allow_nan=False)


def test_a_line_that_is_no_object_is_previewed_as_the_reference_prints_it():
    """``item_preview`` is the line's Python text, clipped at 100 characters with "..."."""
    w = VendingWorld(REFERENCE, 1)
    out = w.execute_tool("order_place", {"items": [[1, None, True]]}, driven=True)
    assert ("invalid_item_type", "[1, None, True]") == (out["error_type"], out["item_preview"])
    long = w.execute_tool("order_place", {"items": "[" + "1" * 150}, driven=True)
    assert "1" * 99 + "..." == long["items_preview"][1:]


def test_true_is_a_quantity_of_one():
    """The reference's integer test lets ``true`` through: one unit is paid and delivered."""
    w = VendingWorld(REFERENCE, 1)
    name = _researched(w, 158)
    out = _order(w, name, True)
    assert ("success", [{"name": name, "quantity": True}], 1.58) == (
        out["status"], out["order"]["items"], out["order"]["total_cost"])
    for _ in range(7):
        end_day(w)
    assert 1 == w.stock[w.known_index(name)]


def test_true_is_a_price_of_one():
    """The reference's ``float(price)`` reads ``true`` as 1."""
    w = VendingWorld(REFERENCE, 1)
    name = _researched(w, 158)
    assert 100 == w.execute_tool("price_set", json.dumps({"product_name": name, "price": True}), driven=True)["price_cents"]


def test_elsewhere_true_is_refused():
    """bizsim's own rule: a flag is no number."""
    w = VendingWorld(DEFAULT, 1)
    name = _researched(w, 158)
    assert "invalid_quantity" == _order(w, name, True)["error_type"]
    assert "error" in w.execute_tool("price_set", {"product_name": name, "price": True}, driven=True)


_VENDING_PAGE = (__import__("pathlib").Path(__file__).resolve().parents[1] / "docs" / "worlds" / "vending.md"
                 ).read_text(encoding="utf-8")


def test_a_price_above_the_limit_is_a_listed_difference():
    """price_set above $1,000,000 is refused on preset reference (the reference sets it): the page lists it with
    the config's limit, and the differential script counts such calls as a listed difference."""
    from benchmarks.fidelity.vending import _deliberate

    world = VendingWorld("reference", 1)
    name = world.execute_tool("products_research", {"query": "water"}, driven=True)["products"][0]["name"]
    out = world.execute_tool("price_set", {"product_name": name, "price": 2_500_000.0}, driven=True)
    assert "above the limit of $1,000,000.00" in out["error"]
    assert f"`max_price_cents`, {world.config.max_price_cents:,}" in _VENDING_PAGE
    assert _deliberate("price_set", {"product_name": name, "price": 2_500_000.0})


def test_a_nan_in_items_is_read_and_refused_as_the_page_says():
    """The page said a NaN literal in items is invalid JSON; it is read, and refused as the reference refuses a NaN
    quantity (invalid_quantity), or, in an extra key, as bizsim's invalid_number."""
    world = VendingWorld("reference", 1)
    name = world.execute_tool("products_research", {"query": "water"}, driven=True)["products"][0]["name"]
    as_quantity = world.execute_tool("order_place", {"items": '[{"name": %s, "quantity": NaN}]' % json.dumps(name)},
                                     driven=True)
    extra = world.execute_tool("order_place", {"items": '[{"name": %s, "quantity": 1, "x": NaN}]' % json.dumps(name)},
                               driven=True)
    assert ("invalid_quantity", "invalid_number") == (as_quantity["error_type"], extra["error_type"])
    assert "is invalid JSON" not in _VENDING_PAGE
    assert "refused as `invalid_quantity`, as the reference refuses it" in _VENDING_PAGE
