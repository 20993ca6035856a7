"""Vending catalogs: procedural generation, keyword search, and the reference's file format."""

from __future__ import annotations

import doctest
import json
import math

import pytest

import bizsim.models._ecogym
import bizsim.models.vending.catalog
import bizsim.models.vending.commands
import bizsim.models.vending.generate
from bizsim.models.vending import (
    Catalog,
    Product,
    ProductSearch,
    VendingConfig,
    VendingWorld,
    generate_catalog,
    load_reference_catalog,
    write_reference_catalog,
)
from bizsim.models.vending.generate import CATEGORIES, RELATIONS, SIZES
from bizsim.simcore.errors import ConfigError

from ._ecogym import end_day


@pytest.mark.parametrize("module", [bizsim.models.vending.catalog, bizsim.models.vending.generate,
                                    bizsim.models.vending.commands, bizsim.models._ecogym])
def test_doctests(module):
    """The examples in the catalog, command and shared EcoGym modules run."""
    failed, tried = doctest.testmod(module)
    assert (0, True) == (failed, tried > 0)


@pytest.mark.parametrize(("size", "groups", "relations", "low", "high"),
                         [("small", 8, 0, 96, 168), ("medium", 16, 5, 192, 336), ("large", 37, 30, 444, 777)])
def test_sizes(size, groups, relations, low, high):
    """small / medium / large: 8 / 16 / 37 groups, 0 / 5 / 30 relations, 12-21 products a category."""
    for seed in (1, 2, 3):
        cat = generate_catalog(size, seed)
        assert (groups, relations) == (len(cat.groups), len(cat.relations))
        assert low <= len(cat.products) <= high
        assert len(SIZES[size]) == len(cat.categories)


def test_large_holds_about_600_products():
    """The large catalog averages about 600 products."""
    mean = sum(len(generate_catalog("large", s).products) for s in range(10)) / 10
    assert 560 <= mean <= 660


def test_parameters_lie_in_the_papers_ranges():
    """Base 4-20, T 30-90, amp 0.10-0.80, phi 0-2pi, wholesale $0.50-$5.00, (beta, eps) by necessity tier."""
    tiers = {name: tier for name, tier, _, _ in CATEGORIES}
    allowed = {"necessity": ({4.0}, -1.0), "daily": ({5.0, 5.2, 5.4, 5.6}, -2.0), "non-essential": ({6.67}, -3.0)}
    for seed in range(5):
        cat = generate_catalog("large", seed)
        for g in cat.groups:
            assert 4.0 <= g.base_demand <= 20.0 and 30 <= g.period <= 90
            assert 0.10 <= g.amplitude <= 0.80 and 0 <= g.phase <= 2 * math.pi
            betas, eps = allowed[tiers[g.name]]
            assert g.beta in betas and g.epsilon == eps and g.reference_markup == 1.0
        assert all(50 <= p.wholesale_cents <= 500 for p in cat.products)
        assert all(0.2 <= r.strength <= 0.7 for r in cat.relations)
        assert {e for _, e in allowed.values()} == {g.epsilon for g in cat.groups}


def test_generation_is_deterministic_and_seeded():
    """The same seed gives the same catalog; another seed another one."""
    generate_catalog.cache_clear()
    a = generate_catalog("large", 5)
    generate_catalog.cache_clear()
    assert a == generate_catalog("large", 5)
    assert a.products != generate_catalog("large", 6).products


def test_sizes_share_categories():
    """A category's products and parameters are the same in every size of one seed."""
    small, large = generate_catalog("small", 9), generate_catalog("large", 9)
    for g in small.groups:
        assert g in large.groups
    wanted = set(SIZES["small"])
    assert small.products == tuple(p for p in large.products if p.category in wanted)


def test_names_are_unique_and_ours():
    """Product names are brand + product type, unique, in the declared categories."""
    cat = generate_catalog("large", 1)
    names = [p.name for p in cat.products]
    assert len(names) == len(set(names))
    kinds = {name: set(k) for name, _, _, k in CATEGORIES}
    assert all(any(p.name.endswith(" " + k) for k in kinds[p.category]) for p in cat.products)
    assert len(RELATIONS) == 30 and {k for k, _, _ in RELATIONS} == {"complement", "competition"}


def test_keyword_search_scores_words_and_keeps_catalog_order():
    """Score = query words found in 'name category'; ties keep catalog order; top 3."""
    products = (
        Product("Blue Cola", "Soft Drinks", 90),
        Product("Red Cola Zero", "Soft Drinks", 90),
        Product("Green Tea", "Tea", 120),
        Product("Cola Syrup", "Baking", 200),
        Product("Diet Red Cola", "Soft Drinks", 95),
    )
    search = ProductSearch(Catalog("t", products, (), ()))
    assert ["Red Cola Zero", "Diet Red Cola", "Blue Cola"] == [p.name for p in search.search("RED cola")]
    assert ["Blue Cola", "Red Cola Zero", "Cola Syrup"] == [p.name for p in search.search("cola")]
    assert ["Green Tea"] == [p.name for p in search.search("tea")]
    assert [] == search.search("") == search.search("   ") == search.search("zzz")
    # substrings count: 'ola' is in every cola
    assert 3 == len(search.search("ola"))
    # a repeated word counts once
    assert search.search("red red") == search.search("red")


REFERENCE_PRODUCTS = """\
{"name": "Acme Sparkling Water", "category": "Water & Sparkling Water", "wholesale_price": 0.85}
{"name": "Acme Still Water", "category": "Water & Sparkling Water", "wholesale_price": 0.5}

{"name": "Cocoa Delight Bar", "category": "Chocolate & Candy", "wholesale_price": 1.25}
this line is not JSON
{"name": "Gummy Worms", "category": "Chocolate & Candy", "wholesale_price": 0.99}
{"name": "Orange Fizz", "category": "Soft Drinks & Juices", "wholesale_price": 1.1}
{"name": "Lone Hammer", "category": "Tools", "wholesale_price": 4.5}
"""

REFERENCE_DEMAND = {
    "version": "1.0",
    "notes": "written by the test, in the reference's layout",
    "groups": [
        {"id": "g05", "name": "Water", "members": [{"match": "category", "value": "Water & Sparkling Water"}],
         "base_demand": 18.0, "seasonality": {"T": 75, "phi": 0.6, "amp": 0.25},
         "price_sensitivity": {"beta": 5.4, "epsilon": -2, "reference_markup": 1.0}},
        {"id": "g36", "name": "Candy", "members": ["Chocolate & Candy"],
         "base_demand": 16.0, "seasonality": {"T": 75, "phi": 2.35, "amp": 40},
         "price_sensitivity": {"beta": 6.67, "epsilon": -3, "reference_markup": 1.0}},
        {"id": "g19", "name": "Soft drinks", "members": "Soft Drinks & Juices",
         "base_demand": 19.0, "seasonality": {"T": 75, "phi": 2.95, "amp": 0.3},
         "price_sensitivity": {"beta": 5.6, "epsilon": -2, "reference_markup": 1.0}},
    ],
    "relations": [
        {"from": "g19", "to": "g36", "type": "complement", "strength": 0.5},
        {"from": "g19", "to": "g05", "type": "competition", "strength": 0.7},
        {"between": ["g36", "g05"], "type": "competition", "strength": 0.3},
        {"from": "g19", "to": "g99", "type": "complement", "strength": 0.5},
    ],
}


def write_reference_files(tmp_path, demand=REFERENCE_DEMAND):
    """``products.jsonl`` and ``demand_structure.json`` in the reference's format."""
    products, structure = tmp_path / "products.jsonl", tmp_path / "demand_structure.json"
    products.write_text(REFERENCE_PRODUCTS, encoding="utf-8")
    structure.write_text(json.dumps(demand), encoding="utf-8")
    return products, structure


def test_loader_reads_the_reference_format(tmp_path):
    """Products (blank and broken lines skipped), groups in all member spellings, relations in both spellings."""
    cat = load_reference_catalog(*write_reference_files(tmp_path))
    assert ["Acme Sparkling Water", "Acme Still Water", "Cocoa Delight Bar", "Gummy Worms", "Orange Fizz",
            "Lone Hammer"] == [p.name for p in cat.products]
    assert [85, 50, 125, 99, 110, 450] == [p.wholesale_cents for p in cat.products]
    assert ["g05", "g36", "g19"] == [g.id for g in cat.groups]
    water, candy, soft = cat.groups
    assert (("Water & Sparkling Water",), 18.0, 75.0, 0.6, 0.25, 5.4, -2.0) == (
        water.categories, water.base_demand, water.period, water.phase, water.amplitude, water.beta, water.epsilon)
    assert (("Chocolate & Candy",), 0.40) == (candy.categories, candy.amplitude)  # 40 read as percent
    assert ("Soft Drinks & Juices",) == soft.categories
    kinds = [(r.kind, r.a, r.b, r.strength) for r in cat.relations]
    assert [("complement", "g19", "g36", 0.5), ("competition", "g19", "g05", 0.7), ("competition", "g36", "g05", 0.3),
            ("complement", "g19", "g99", 0.5)] == kinds


def test_a_world_runs_on_reference_files(tmp_path):
    """A config pointing at the two files runs; the unknown-group relation is ignored; 'Tools' never sells."""
    products, structure = write_reference_files(tmp_path)
    cfg = VendingConfig(products_path=str(products), demand_path=str(structure), noise=False)
    w = VendingWorld(cfg, 1)
    assert 3 == len(w.demand.relations)
    found = w.call("products_research", query="water")["products"]
    assert [{"name": "Acme Sparkling Water", "category": "Water & Sparkling Water", "wholesale_price": 0.85},
            {"name": "Acme Still Water", "category": "Water & Sparkling Water", "wholesale_price": 0.5}] == found
    w.call("order_place", items=[{"name": "Acme Still Water", "quantity": 40}])
    w.call("price_set", product_name="Acme Still Water", price=0.75)
    w.call("products_research", query="hammer")
    for _ in range(8):
        end_day(w)
    assert w.units_sold > 0 and [] == w.invariants()
    assert -1 == w.demand.product_group[5]


def test_toml_points_at_reference_files(tmp_path):
    """A TOML config can name the files relative to itself."""
    write_reference_files(tmp_path)
    (tmp_path / "ref.toml").write_text(
        'extends = "reference"\nproducts_path = "products.jsonl"\ndemand_path = "demand_structure.json"\n')
    w = VendingWorld(str(tmp_path / "ref.toml"), 3)
    assert 6 == len(w.catalog.products)


def test_loader_reads_numbers_written_as_text(tmp_path):
    """The reference reads demand fields with float(), so "7.0" is 7.0; text that is no number is refused."""
    demand = json.loads(json.dumps(REFERENCE_DEMAND))
    demand["groups"][0].update(base_demand="7.0", seasonality={"T": "60", "phi": 0.6, "amp": "0.25"})
    water = load_reference_catalog(*write_reference_files(tmp_path, demand)).groups[0]
    assert (7.0, 60.0, 0.25) == (water.base_demand, water.period, water.amplitude)
    demand["groups"][0].update(base_demand="nan")
    with pytest.raises(ConfigError, match="base_demand"):
        load_reference_catalog(*write_reference_files(tmp_path, demand))


@pytest.mark.parametrize(("change", "message"), [
    ({"price_sensitivity": None}, "price_sensitivity"),
    ({"price_sensitivity": {"beta": 5.0, "epsilon": -2}}, "reference_markup"),
    ({"base_demand": "lots"}, "base_demand"),
])
def test_loader_refuses_incomplete_groups(tmp_path, change, message):
    """A group without price sensitivity or reference markup, or with a non-number, is a ConfigError."""
    demand = json.loads(json.dumps(REFERENCE_DEMAND))
    demand["groups"][0].update(change)
    if change.get("price_sensitivity", 0) is None:
        del demand["groups"][0]["price_sensitivity"]
    with pytest.raises(ConfigError, match=message):
        load_reference_catalog(*write_reference_files(tmp_path, demand))


def test_loader_refuses_missing_files_and_bad_prices(tmp_path):
    """Missing files and non-positive wholesale prices are ConfigErrors."""
    with pytest.raises(ConfigError, match="products_path.*cannot be read"):
        load_reference_catalog(tmp_path / "nope.jsonl", tmp_path / "nope.json")
    products, structure = write_reference_files(tmp_path)
    products.write_text('{"name": "Free Lunch", "category": "X", "wholesale_price": 0}\n')
    with pytest.raises(ConfigError, match="at least"):
        load_reference_catalog(products, structure)
    row = '{"name": "A", "category": "X", "wholesale_price": %d}\n'
    products.write_text(row % 1 + row % 2)
    with pytest.raises(ConfigError, match="repeats"):
        load_reference_catalog(products, structure)


def test_write_then_load_round_trips(tmp_path):
    """A generated catalog written in the reference's format loads back equal."""
    cat = generate_catalog("medium", 4)
    p, d = tmp_path / "p.jsonl", tmp_path / "d.json"
    write_reference_catalog(cat, p, d)
    back = load_reference_catalog(p, d, name=cat.name)
    assert cat == back


def test_config_needs_both_files():
    """products_path and demand_path come together."""
    with pytest.raises(ConfigError, match="go together"):
        VendingConfig(products_path="p.jsonl")
