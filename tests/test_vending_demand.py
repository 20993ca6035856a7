"""The vending demand model (spec §2.4), pinned on a tiny catalog computed by hand."""

from __future__ import annotations

import doctest
import math

import attrs
import pytest

import bizsim.models.vending.demand
from bizsim.models.vending import Catalog, DemandGroup, DemandModel, Product, Relation, VendingConfig, VendingWorld
from bizsim.simcore import RandomStreams

from ._ecogym import end_day

# Three groups, four products. Day t = 10.
#   A "Snacks": base 10, T 40, phi 0, amp 0.5, beta 5, eps -2  -> S = 10 * (1 + 0.5 sin(pi/2)) = 15
#   B "Dips":   base 8,  T 30, phi 0, amp 0.2, beta 4, eps -1  -> S = 8 * (1 + 0.2 sin(2pi/3))
#   C "Soda":   base 12, T 60, phi 0, amp 0,   beta 6.67, eps -3 -> S = 12
# Relations, in order: complement A -> B (0.4), competition A - C (0.4).
GROUPS = (
    DemandGroup("gA", "Snacks", ("Snacks",), 10.0, 40.0, 0.0, 0.5, 5.0, -2.0, 1.0),
    DemandGroup("gB", "Dips", ("Dips",), 8.0, 30.0, 0.0, 0.2, 4.0, -1.0, 1.0),
    DemandGroup("gC", "Soda", ("Soda",), 12.0, 60.0, 0.0, 0.0, 6.67, -3.0, 1.0),
)
PRODUCTS = (
    Product("Crunchy Chips", "Snacks", 100),
    Product("Salty Pretzels", "Snacks", 200),
    Product("Salsa Dip", "Dips", 150),
    Product("Fizzy Cola", "Soda", 40),
    Product("Loose Screws", "Hardware", 90),  # in no group: never sells
)
RELATIONS = (Relation("complement", "gA", "gB", 0.4), Relation("competition", "gA", "gC", 0.4))
TINY = Catalog("tiny", PRODUCTS, GROUPS, RELATIONS)
CHIPS, PRETZELS, SALSA, COLA, SCREWS = range(5)

# Prices $1.30, $2.00, $3.00, $0.60; stock 10, 30, 3, 20.
PRICES = [130, 200, 300, 60, 100]
STOCK = [10, 30, 3, 20, 50]
BY_GROUP = {0: [CHIPS, PRETZELS], 1: [SALSA], 2: [COLA]}


def hand_expected() -> dict[int, float]:
    """Steps 1-4 for day 10, written out."""
    s_a = 10 * (1 + 0.5 * math.sin(2 * math.pi / 40 * 10))  # 15.0
    s_b = 8 * (1 + 0.2 * math.sin(2 * math.pi / 30 * 10))  # 9.385641
    s_c = 12.0
    # A: stock-weighted mean price (1.30*10 + 2.00*30) / 40 = 1.825; Pref = mean wholesale (1.00, 2.00) = 1.5
    d_a = s_a * (1.825 / 1.5) ** -2  # 10.133
    # B: 3.00 vs Pref 1.50 -> (2)^-1
    d_b = s_b * 0.5  # 4.6928
    # C: 0.60 vs Pref max(0.5, 0.40) = 0.5 -> 1.2^-3
    d_c = s_c * 1.2 ** -3  # 6.9444
    # complement A -> B 0.4: cap 0.4 * 10.133 = 4.0533 binds; competition A - C 0.4: both x 0.8
    d_b = min(d_b, 0.4 * d_a)
    d_a, d_c = d_a * 0.8, d_c * 0.8
    # within A: softmax of -5 * P / 1.5
    e_chips, e_pretzels = math.exp(-5 * 1.30 / 1.5), math.exp(-5 * 2.00 / 1.5)
    total = e_chips + e_pretzels
    return {CHIPS: e_chips / total * d_a, PRETZELS: e_pretzels / total * d_a, SALSA: d_b, COLA: d_c}


def test_doctests():
    """The examples in the demand module run."""
    failed, tried = doctest.testmod(bizsim.models.vending.demand)
    assert (0, True) == (failed, tried > 0)


def test_one_day_of_demand_by_hand():
    """Seasonality, price factors, relations in order and the softmax split, as computed by hand."""
    model = DemandModel(TINY)
    expected = hand_expected()
    plan = dict(model.expected(10, BY_GROUP, PRICES, STOCK))
    assert expected.keys() == plan.keys()
    for i, x in expected.items():
        assert x == pytest.approx(plan[i], rel=1e-12), PRODUCTS[i].name
    # the numbers, for the reader: 7.3900, 0.7166, 4.0533, 5.5556
    assert [7.39, 0.717, 4.053, 5.556] == [round(plan[i], 3) for i in (CHIPS, PRETZELS, SALSA, COLA)]


def test_noise_free_sales_round_half_even_and_cap_at_stock():
    """Without noise: round(7.39) = 7, round(0.717) = 1, Salsa capped by its 3 in stock, round(5.556) = 6."""
    model = DemandModel(TINY)
    assert [(CHIPS, 7), (PRETZELS, 1), (SALSA, 3), (COLA, 6)] == model.sales(10, BY_GROUP, PRICES, STOCK, None)


def test_noisy_sales_draw_one_normal_per_product_in_order():
    """y = max(0, x + z * 0.2x), z from stream ``demand`` in pricing order; then round and cap."""
    seed = 42
    z = RandomStreams(seed).get("demand").standard_normal(4).tolist()
    expected = hand_expected()
    want = []
    for (i, x), zi in zip(sorted(expected.items()), z):
        units = min(round(max(0.0, x + zi * 0.2 * x)), STOCK[i])
        if units:
            want.append((i, units))
    w = world_with_stock(seed, noise=True)
    for _ in range(10):
        end_day(w)  # days 0-9 sell nothing: nothing is in stock yet
    assert all(0 == row[2] for row in w.daily)
    give_stock(w)
    report = end_day(w)  # day 10
    sold = {k: v for k, v in report["events"]["sales"]["details"].items() if v}
    assert {PRODUCTS[i].name: n for i, n in want} == sold


def world_with_stock(seed: int, noise: bool) -> VendingWorld:
    """A tiny-catalog world with every product researched and priced (no stock yet)."""
    w = VendingWorld(attrs.evolve(VendingConfig(), noise=noise, daily_budget=20), seed, catalog=TINY)
    for query in ("snacks", "dips", "soda", "screws"):
        w.call("products_research", query=query)
    for i, cents in enumerate(PRICES):
        w.call("price_set", product_name=PRODUCTS[i].name, price=cents / 100)
    return w


def give_stock(w: VendingWorld) -> None:
    """Put the test's stock on the shelves directly, booked as deliveries."""
    for i, q in enumerate(STOCK):
        w.stock[i] = q
        w.units_delivered += q
        if i not in w.stocked:
            w.stocked.append(i)


def test_world_day_matches_the_model_without_noise():
    """The world's day-10 sales, revenue and cash follow the hand numbers."""
    w = world_with_stock(1, noise=False)
    for _ in range(10):
        end_day(w)
    give_stock(w)
    money = w.money_cents
    report = end_day(w)
    sales = report["events"]["sales"]
    expected = {"Crunchy Chips": 7, "Salty Pretzels": 1, "Salsa Dip": 3, "Fizzy Cola": 6, "Loose Screws": 0}
    assert expected == sales["details"]
    revenue = 7 * 130 + 1 * 200 + 3 * 300 + 6 * 60
    assert (17, revenue, revenue / 100) == (sales["items_sold"], sales["revenue_cents"], sales["revenue"])
    assert money + revenue == w.money_cents
    assert [3, 29, 0, 14, 50] == w.stock


def test_competition_and_caps_apply_without_priced_items():
    """Relations act on every group every day, priced or not (a cap from an unpriced group binds)."""
    model = DemandModel(TINY)
    d = model.group_demand(10, {}, PRICES, STOCK)
    s_a, s_b = 15.0, 8 * (1 + 0.2 * math.sin(2 * math.pi / 3))
    assert [0.8 * s_a, min(s_b, 0.4 * s_a), 0.8 * 12.0] == pytest.approx(d, rel=1e-12)


def test_out_of_stock_groups_have_no_price_factor():
    """With nothing priced in stock the price factor is 1 (and nothing sells)."""
    model = DemandModel(TINY)
    empty = [0] * 5
    assert model.group_demand(10, BY_GROUP, PRICES, empty) == model.group_demand(10, {}, PRICES, empty)
    assert [] == model.sales(10, BY_GROUP, PRICES, empty, None)


def test_price_factor_is_clamped():
    """(Pbar/Pref)^eps lies in [0.01, 100]: a huge price sells a hundredth of the seasonal demand at most."""
    cat = Catalog("one", (Product("Lone Cola", "Soda", 100),),
                  (DemandGroup("g", "Soda", ("Soda",), 12.0, 60.0, 0.0, 0.0, 1.0, -3.0, 1.0),), ())
    model = DemandModel(cat)
    assert [pytest.approx(0.12)] == model.group_demand(0, {0: [0]}, [1000], [5])  # (10)^-3 = 0.001 -> 0.01
    assert [pytest.approx(1200.0)] == model.group_demand(0, {0: [0]}, [1], [5])  # (0.01)^-3 = 1e6 -> 100


def test_reference_price_floor_and_softmax_fallback_to_zero():
    """Pref is floored at $0.50; an astronomically high price makes exp underflow and sells nothing."""
    cat = Catalog("one", (Product("Cheap Gum", "Candy", 10),),
                  (DemandGroup("g", "Candy", ("Candy",), 10.0, 30.0, 0.0, 0.0, 6.67, 0.0, 1.0),), ())
    model = DemandModel(cat)
    assert [(0, pytest.approx(10.0))] == model.expected(0, {0: [0]}, [25], [100])
    assert [] == model.sales(0, {0: [0]}, [10**8], [100], None)


@pytest.mark.parametrize(("base", "units"), [(2.5, 2), (3.5, 4), (0.5, 0), (1.5, 2)])
def test_bankers_rounding(base, units):
    """Expected quantities are rounded half to even, as Python's round does."""
    cat = Catalog("one", (Product("Plain Bread", "Bread", 100),),
                  (DemandGroup("g", "Bread", ("Bread",), base, 30.0, 0.0, 0.0, 4.0, 0.0, 1.0),), ())
    assert ([(0, units)] if units else []) == DemandModel(cat).sales(0, {0: [0]}, [100], [100], None)


def test_seasonality_and_amplitude_as_percent():
    """S(t) = base (1 + amp sin(2 pi t / T + phi)); an amplitude above 1 is read as percent when loading."""
    model = DemandModel(TINY)
    for t in (0, 7, 33, 365):
        assert 10 * (1 + 0.5 * math.sin(2 * math.pi / 40 * t)) == pytest.approx(model.seasonal(t)[0], rel=1e-12)
    assert model.seasonal(400) == pytest.approx(DemandModel(TINY, horizon_days=500).seasonal(400))


# The reference's large demand structure as measured in the spec (§2.5): id, base, T, phi, amp, beta, epsilon.
_SPEC_GROUPS = """\
g01 9.0 60 1.10 0.25 5.2 -2|g02 7.0 30 2.75 0.10 5.0 -2|g03 5.0 90 4.20 0.50 6.67 -3|g04 10.0 90 5.80 0.50 5.4 -2
g05 18.0 75 0.60 0.25 5.4 -2|g06 11.0 60 3.30 0.25 5.2 -2|g07 12.0 90 1.90 0.80 6.67 -3|g08 6.0 45 2.20 0.15 4.0 -1
g09 7.5 30 4.75 0.10 5.0 -2|g10 8.0 75 0.95 0.30 6.67 -3|g11 9.5 90 5.40 0.50 5.4 -2|g12 4.5 30 1.50 0.10 5.0 -2
g13 13.0 45 2.40 0.15 4.0 -1|g14 4.0 60 3.80 0.20 6.67 -3|g15 8.5 45 0.30 0.15 5.2 -2|g16 12.5 60 4.10 0.25 5.6 -2
g17 10.5 45 1.25 0.15 5.2 -2|g18 6.5 30 5.95 0.10 5.0 -2|g19 19.0 75 2.95 0.30 5.6 -2|g20 8.0 90 1.70 0.40 5.4 -2
g21 9.0 45 3.05 0.15 5.2 -2|g22 7.0 60 5.20 0.20 5.2 -2|g23 8.5 60 0.85 0.25 5.2 -2|g24 6.0 30 2.10 0.10 5.0 -2
g25 7.5 45 4.50 0.15 5.2 -2|g26 6.5 30 0.15 0.10 5.0 -2|g27 6.5 30 3.55 0.10 5.0 -2|g28 5.5 30 5.60 0.10 5.0 -2
g29 5.0 45 1.35 0.15 4.0 -1|g30 7.0 60 2.55 0.25 5.2 -2|g31 11.0 45 4.85 0.15 5.2 -2|g32 5.5 90 0.45 0.40 5.4 -2
g33 11.0 60 3.65 0.25 5.2 -2|g34 7.0 75 5.05 0.25 5.4 -2|g35 14.0 45 0.75 0.15 4.0 -1|g36 16.0 75 2.35 0.40 6.67 -3
g37 7.5 60 4.35 0.25 5.2 -2"""
_SPEC_RELATIONS = (
    "C g31 g30 0.7;C g31 g22 0.4;C g31 g15 0.5;C g13 g15 0.6;C g13 g22 0.5;C g13 g30 0.4;C g17 g35 0.7;"
    "C g34 g35 0.3;C g10 g36 0.4;C g16 g19 0.5;C g01 g31 0.4;C g23 g16 0.2;C g25 g22 0.3;C g25 g15 0.3;"
    "C g37 g20 0.4;C g37 g11 0.3;C g15 g11 0.4;C g15 g20 0.3;C g30 g20 0.4;C g30 g32 0.3;K g19 g05 0.7;"
    "K g19 g34 0.4;K g36 g07 0.5;K g04 g36 0.3;K g06 g07 0.3;K g20 g32 0.6;K g11 g23 0.4;K g01 g11 0.3;"
    "K g01 g23 0.2;K g13 g31 0.5;K g17 g06 0.3;K g10 g19 0.2;K g21 g17 0.2"
)


def spec_structure_model() -> tuple[DemandModel, dict[str, int]]:
    """The reference's 37 groups and 33 relations (no products), compiled."""
    groups = []
    for row in _SPEC_GROUPS.replace("\n", "|").split("|"):
        gid, base, period, phase, amp, beta, eps = row.split()
        groups.append(DemandGroup(gid, gid, (gid,), float(base), float(period), float(phase), float(amp),
                                  float(beta), float(eps), 1.0))
    relations = []
    for rel in _SPEC_RELATIONS.split(";"):
        kind, a, b, s = rel.split()
        relations.append(Relation("complement" if kind == "C" else "competition", a, b, float(s)))
    model = DemandModel(Catalog("reference-structure", (), tuple(groups), tuple(relations)))
    return model, {g.id: i for i, g in enumerate(groups)}


def test_spec_vector_water_at_day_zero():
    """Spec §2.5: Water (g05) at t = 0: S = 20.541, after the relations 13.352."""
    model, idx = spec_structure_model()
    assert 20.541 == round(model.seasonal(0)[idx["g05"]], 3)
    assert 13.352 == round(model.group_demand(0, {}, [], [])[idx["g05"]], 3)


def test_spec_yearly_means_after_relations():
    """Spec §2.5's yearly means of the capped groups (the spec's rounding window is unstated: within 0.01)."""
    model, idx = spec_structure_model()
    days = [model.group_demand(t, {}, [], []) for t in range(366)]
    spec = {"g11": 0.61, "g20": 0.47, "g32": 1.09, "g16": 1.71, "g19": 2.91, "g35": 2.11, "g36": 2.03, "g31": 2.71,
            "g15": 2.25, "g22": 2.25, "g05": 11.69}
    for gid, mean in spec.items():
        assert mean == pytest.approx(sum(d[idx[gid]] for d in days) / len(days), abs=0.011), gid
