"""Vending demand: pruning the relations to the groups on sale keeps chains of complements whole."""

from __future__ import annotations

from bizsim.models.vending import Catalog, DemandGroup, DemandModel, Product, Relation
from bizsim.models.vending.generate import generate_catalog

# A chain of complements X -> Y -> Z, flat seasons (amplitude 0), no price factor (epsilon 0).
# Only Z is sold. Y = min(10, 0.5 * X) = 1, then Z = min(10, 0.5 * Y) = 0.5: X reaches Z through Y.
CHAIN = Catalog(
    "chain",
    (Product("Zed Cola", "Z", 100),),
    (
        DemandGroup("gX", "X", ("X",), 2.0, 30.0, 0.0, 0.0, 4.0, 0.0, 1.0),
        DemandGroup("gY", "Y", ("Y",), 10.0, 30.0, 0.0, 0.0, 4.0, 0.0, 1.0),
        DemandGroup("gZ", "Z", ("Z",), 10.0, 30.0, 0.0, 0.0, 4.0, 0.0, 1.0),
    ),
    (Relation("complement", "gX", "gY", 0.5), Relation("complement", "gY", "gZ", 0.5)),
)


def test_a_complement_two_links_up_the_chain_still_caps():
    """Selling only Z: X caps Y and Y caps Z, so Z's demand is 0.5 (not 5, as if Y were uncapped)."""
    model = DemandModel(CHAIN)
    assert [2.0, 1.0, 0.5] == model.group_demand(0, {2: [0]}, [150], [10])
    assert [(0, 0.5)] == model.expected(0, {2: [0]}, [150], [10])
    assert [] == model.sales(0, {2: [0]}, [150], [10], None)  # round(0.5) = 0


def test_pruned_relations_give_the_full_demand_on_the_large_catalog():
    """For each group of the large catalog sold alone, on days across the year, the expected sales (computed with
    the relations pruned to that group) equal its demand after every relation."""
    catalog = generate_catalog("large", 1)
    model = DemandModel(catalog)
    first: dict[int, int] = {}
    for i, g in enumerate(model.product_group):
        if g >= 0:
            first.setdefault(g, i)
    prices = [p.wholesale_cents * 3 // 2 for p in catalog.products]
    stock = [10] * len(catalog.products)
    mismatched = []
    for t in range(0, 366, 5):
        for g, i in first.items():
            full = model.group_demand(t, {g: [i]}, prices, stock)[g]
            got = model.expected(t, {g: [i]}, prices, stock)
            if got != ([(i, full)] if full > 0 else []):
                mismatched.append((t, catalog.groups[g].id))
    assert len(first) == len(catalog.groups) and [] == mismatched
