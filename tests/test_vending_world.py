"""The vending world through its tools: research, orders, prices, the day, net worth, baselines, the CLI."""

from __future__ import annotations

import json

import attrs
import pytest
import simpy

from bizsim.agents import make_agent
from bizsim.agents.vending.baselines import markup
from bizsim.runs import run_episode
from bizsim.cli import main
from bizsim.models import make_world
from bizsim.models.vending import (
    PRESETS,
    ROLE,
    SYSTEM_PROMPT,
    VendingConfig,
    VendingWorld,
    config_from_toml,
    config_to_toml,
)
from bizsim.models.vending.commands import dollars_to_cents
from bizsim.simcore import CommandError, Status
from bizsim.simcore.check import check_world
from bizsim.simcore.replay import replay

from ._ecogym import budget_respected, end_day

ROOMY = attrs.evolve(PRESETS["small"], daily_budget=50)


@pytest.fixture
def shop() -> VendingWorld:
    """A small-catalog shop with a large daily budget, two products researched."""
    w = VendingWorld(ROOMY, 1)
    w.call("products_research", query="water")
    return w


def first(world: VendingWorld) -> dict:
    """The first researched product, as research returned it."""
    name = world.researched_names()[0]
    p = world.catalog.products[world.known_index(name)]
    return {"name": name, "wholesale_cents": p.wholesale_cents}


def order(world: VendingWorld, name: str, quantity) -> dict:
    """``order_place`` through the command line."""
    items = json.dumps([{"name": name, "quantity": quantity}])
    return world.execute(f"order_place --items '{items}'", driven=True)


def test_tools_are_the_reference_tools():
    """The reference's five tools plus bizsim's free ``help``; order_place.items is a string, as in the reference."""
    w = VendingWorld("small", 1)
    schemas = {s["function"]["name"]: s["function"]["parameters"] for s in w.commands.tool_schemas()}
    assert ["products_research", "order_place", "price_set", "price_query", "task_done", "help"] == list(schemas)
    assert {"query"} == set(schemas["products_research"]["properties"])
    assert {"type": "string"} == {"type": schemas["order_place"]["properties"]["items"]["type"]}
    assert {"product_name", "price"} == set(schemas["price_set"]["required"])


def test_research_returns_three_and_remembers_them(shop):
    """Up to three products with name, category and wholesale price in dollars; all become orderable."""
    out = shop.call("products_research", query="water")
    assert {"query", "products", "total_products_found"} == set(out)
    assert 3 == out["total_products_found"] == len(out["products"])
    assert all({"name", "category", "wholesale_price"} == set(p) for p in out["products"])
    assert [p["name"] for p in out["products"]] == shop.researched_names()[:3]
    assert 0 == shop.call("products_research", query="qqqq")["total_products_found"]


def test_order_is_prepaid_and_arrives_after_seven_days(shop):
    """Cash drops at once; the stock arrives at the start of day 7 and sells from day 7 on."""
    p = first(shop)
    out = order(shop, p["name"], 10)
    assert "success" == out["status"] and 7 == out["delivery_days"]
    o = out["order"]
    assert ([{"name": p["name"], "quantity": 10}], "processing", 0, 7, 7) == (
        o["items"], o["status"], o["created_day"], o["delivery_day"], o["delivery_days"])
    cost = 10 * p["wholesale_cents"]
    assert (cost, cost / 100) == (o["total_cost_cents"], o["total_cost"])
    assert 10_000 - cost == shop.money_cents
    shop.call("price_set", product_name=p["name"], price=p["wholesale_cents"] / 100)
    for day in range(1, 7):
        report = end_day(shop)
        assert ({}, [], 1) == (report["events"]["sales"], report["events"]["deliveries"],
                               report["current_state"]["pending_orders"]), day
    report = end_day(shop)  # day 6 -> 7: deliveries after day 6's sales
    delivered = report["events"]["deliveries"][0]
    the_order = delivered["orders"][0]
    assert (1, cost / 100, "delivered", 7) == (delivered["order_count"], delivered["total_cost"],
                                               the_order["status"], the_order["delivered_day"])
    assert (10, 1, 0) == tuple(report["current_state"][k] for k in ("total_inventory_items", "product_types_count",
                                                                    "pending_orders"))
    assert 10_000 == shop.net_worth_cents()  # cash + stock at wholesale
    report = end_day(shop)  # day 7's sales
    assert report["events"]["sales"]["items_sold"] > 0


def test_sales_before_deliveries_within_a_transition(shop):
    """An order due at day d+1 is not sold in day d's sales (the transition sells first)."""
    p = first(shop)
    order(shop, p["name"], 30)
    shop.call("price_set", product_name=p["name"], price=0.01)  # cheap: everything that can sell, sells
    for _ in range(7):
        report = end_day(shop)
    assert {} == report["events"]["sales"] and report["events"]["deliveries"]


@pytest.mark.parametrize(("items", "error_type"), [
    ("not json", "invalid_json"),
    ('{"name": "x", "quantity": 1}', "invalid_type"),
    ("[]", "empty_items"),
    ('[{"name": "a", "quantity": 1}, {"name": "b", "quantity": 1}]', "too_many_items"),
    ("[3]", "invalid_item_type"),
    ('[{"quantity": 1}]', "missing_name"),
    ('[{"name": "", "quantity": 1}]', "missing_name"),
    ('[{"name": "NAME", "quantity": 0}]', "invalid_quantity"),
    ('[{"name": "NAME", "quantity": -4}]', "invalid_quantity"),
    ('[{"name": "NAME", "quantity": 10.0}]', "invalid_quantity"),
    ('[{"name": "NAME", "quantity": "10"}]', "invalid_quantity"),
    ('[{"name": "NAME", "quantity": true}]', "invalid_quantity"),
    ('[{"name": "NAME", "quantity": 1e999}]', "invalid_quantity"),
    ('[{"name": "NAME", "quantity": 2000000}]', "invalid_quantity"),
    ('[{"name": "Nonexistent Product", "quantity": 1}]', "missing_prices"),
    ('[{"name": "NAME", "quantity": 100000}]', "insufficient_funds"),
    ("[" * 5000 + "]" * 5000, "invalid_json"),
    ('[{"name": "NAME", "quantity": 1' + "0" * 5000 + "}]", "invalid_json"),
])
def test_order_refusals_have_the_reference_error_types(shop, items, error_type):
    """Every malformed or unaffordable order is a JSON error with ``error_type``; nothing changes, no action used."""
    items = items.replace("NAME", first(shop)["name"])
    before, left = shop.state(), shop.actions_left
    out = shop.execute_tool("order_place", {"items": items}, driven=True)
    assert ("error", error_type) == (out["status"], out["error_type"]) and out["error"]
    assert out["message"] == out["error"]  # the reference's field for the text
    json.dumps(out, allow_nan=False)
    assert (before, left) == (shop.state(), shop.actions_left)


def test_insufficient_funds_reports_the_shortfall(shop):
    """The refusal names the cost, the cash and the shortfall in dollars."""
    p = first(shop)
    out = order(shop, p["name"], 10_000)
    cost = 10_000 * p["wholesale_cents"]
    assert (cost / 100, 100.0, (cost - 10_000) / 100) == (out["order_cost"], out["available_money"], out["shortfall"])


def test_an_order_of_exactly_all_cash_is_accepted(shop):
    """Cash may reach zero, never below."""
    p = first(shop)
    shop.ledger.post(0, "test", -(10_000 - 3 * p["wholesale_cents"]))
    shop.sales_cents -= 10_000 - 3 * p["wholesale_cents"]  # keep the books' identity for the invariant check
    assert "success" == order(shop, p["name"], 3)["status"]
    assert 0 == shop.money_cents
    assert "insufficient_funds" == order(shop, p["name"], 1)["error_type"]


def test_tool_calls_take_items_as_a_list(shop):
    """LLMs send ``items`` as a JSON list; it is accepted, logged as its JSON text, and replays."""
    p = first(shop)
    out = shop.execute_tool("order_place", {"items": [{"name": p["name"], "quantity": 2}]}, driven=True)
    assert "success" == out["status"]
    assert shop.call("order_place", items=[{"name": p["name"], "quantity": 1}])["status"] == "success"
    log = shop.command_log()
    assert log[-1][1].startswith("order_place --items ")
    again = replay(lambda: VendingWorld(ROOMY, 1), log)
    assert shop.state() == again.state()
    # the whole argument object as JSON text, the usual shape of a tool call
    text = json.dumps({"items": [{"name": p["name"], "quantity": 1}]})
    assert "success" == shop.execute_tool("order_place", text, driven=True)["status"]
    assert "invalid_json" == shop.execute_tool("order_place", json.dumps({"items": "[{"}), driven=True)["error_type"]
    assert "not valid JSON" in shop.execute_tool("order_place", '{"items": [', driven=True)["error"]


def test_price_set_stores_cents(shop):
    """Prices are whole cents, rounded half to even on the decimal written; results report dollars."""
    name = first(shop)["name"]
    assert {"status": "success", "product_name": name, "price": 2.68, "price_cents": 268} == shop.call(
        "price_set", product_name=name, price=2.675)
    assert {"product_name": name, "price": 2.68, "price_cents": 268} == shop.call("price_query", product_name=name)
    shop.execute(f"price_set --product-name '{name}' --price 1.5", driven=True)
    assert 150 == shop.price_of(name)
    assert (150, 12, 268, 0, 2) == (dollars_to_cents(1.5), dollars_to_cents(0.125), dollars_to_cents(2.675),
                                    dollars_to_cents(0.005), dollars_to_cents(0.015))


@pytest.mark.parametrize(("line", "fragment"), [
    ("price_set --product-name 'Nonexistent Product' --price 2", "Unknown product"),
    ("price_set --product-name NAME --price 0", "must be positive"),
    ("price_set --product-name NAME --price -3", "must be positive"),
    ("price_set --product-name NAME --price abc", "expects a number"),
    ("price_set --product-name NAME --price nan", "expects a number"),
    ("price_set --product-name NAME --price inf", "expects a number"),
    ("price_set --product-name NAME --price 0.004", "rounds to $0.00"),
    ("price_set --product-name NAME --price 1e20", "above the limit"),
    ("price_query --product-name NAME", "has no price set"),
    ("price_query --product-name 'Nonexistent Product'", "has no price set"),
    ("products_research", "Missing option --query"),
])
def test_price_and_query_refusals(shop, line, fragment):
    """Unknown products and bad prices are errors that change nothing and use no action."""
    line = line.replace("NAME", f"'{first(shop)['name']}'")
    before, left = shop.state(), shop.actions_left
    out = shop.execute(line, driven=True)
    assert fragment in out["error"], out
    assert (before, left) == (shop.state(), shop.actions_left)


def test_unresearched_catalog_products_cannot_be_priced_or_ordered():
    """Only names a search returned are known, exactly and case-sensitively."""
    w = VendingWorld("small", 1)
    name = w.catalog.products[0].name
    assert "Unknown product" in w.execute(f"price_set --product-name '{name}' --price 2", driven=True)["error"]
    assert "missing_prices" == order(w, name, 1)["error_type"]
    w.call("products_research", query=name)
    assert "success" == order(w, name, 1)["status"]
    assert "missing_prices" == order(w, name.upper(), 1)["error_type"]


def test_four_counted_actions_a_day(shop):
    """Budget 4: the fourth accepted action ends the day; refusals and free commands do not count."""
    w = VendingWorld("small", 2)
    for _ in range(3):
        w.execute("order_place --items 'junk'", driven=True)
        w.execute("help", driven=True)
    assert 4 == w.actions_left
    for q in ("water", "fruit", "oil"):
        assert "error" not in w.execute(f"products_research --query {q}", driven=True)
    assert 1 == w.actions_left
    w.execute("products_research --query soap", driven=True)
    assert 0 == w.actions_left and w.day_ending
    assert "is over" in w.execute("products_research --query milk", driven=True)["error"]
    assert 1 == end_day(w)["current_day"] and 4 == w.actions_left
    assert budget_respected(w)


def test_observation_shows_the_books(shop):
    """``observation()`` (for scripts and the shell prompt, not a tool) shows cash, orders and net worth."""
    p = first(shop)
    order(shop, p["name"], 5)
    s = shop.observation()
    assert (10_000 - 5 * p["wholesale_cents"], 10_000, 1) == (s["funds_cents"], s["net_worth_cents"],
                                                               len(s["pending_orders"]))
    assert "status" not in shop.commands


def test_net_worth_counts_cash_stock_and_pending(shop):
    """Net worth = cash + stock at wholesale + prepaid undelivered orders; buying does not change it."""
    p = first(shop)
    order(shop, p["name"], 7)
    assert 10_000 == shop.net_worth_cents() == shop.summary()["metric_value"]
    for _ in range(7):
        end_day(shop)
    assert (7 * p["wholesale_cents"], 0) == (shop.inventory_value_cents(), shop.pending_cents)
    assert 10_000 == shop.net_worth_cents()
    s = shop.summary()
    assert ("net_worth_cents", 7, 7) == (s["metric"], len(s["daily_net_worth_cents"]), len(s["daily_revenue_cents"]))


def test_episode_is_366_sales_days():
    """Days t = 0..365 sell; the episode ends at day 366."""
    assert 366 == PRESETS["default"].horizon_days
    w = VendingWorld(attrs.evolve(PRESETS["small"], horizon_days=3), 1)
    for _ in range(3):
        end_day(w)
    assert (Status.HORIZON, 3) == (w.status, len(w.daily))
    assert "error" in w.execute("products_research --query water", driven=True)


def test_stagnation_with_no_cash_ends_the_episode():
    """With no cash and ``stagnation_days`` days without a sale the shop is bankrupt."""
    w = VendingWorld(attrs.evolve(PRESETS["small"], initial_money_cents=0, stagnation_days=5), 1)
    for _ in range(5):
        end_day(w)
    assert Status.BANKRUPT is w.status
    assert (0, 0) == (w.summary()["last_sales_day"], w.units_sold)  # never sold: 0, as the reference's metric


def test_markup_agent_earns_and_respects_the_rules():
    """The markup baseline ends the year richer, within budget, with sound books."""
    result = run_episode("vending", "small", "markup", seed=3)
    w = result.final_world
    assert "horizon_end" == result.terminal_reason and 366 == result.summary["days"]
    assert result.summary["metric_value"] > 10_000 and w.units_sold > 0
    assert [] == w.invariants() and budget_respected(w)
    cheap = run_episode("vending", "small", "markup", seed=3, agent_options={"markup": 1.0}).summary["metric_value"]
    assert cheap < result.summary["metric_value"]  # selling at cost earns nothing


def test_markup_agent_prices_at_wholesale_times_markup():
    """Every price it sets is wholesale x markup, rounded to the cent."""
    w = VendingWorld("small", 4)
    w.run(lambda world: markup(world, markup=1.5))
    for i in w.priced:
        assert round(w.catalog.products[i].wholesale_cents * 1.5) == pytest.approx(w.price_cents[i], abs=1)


def test_check_world_with_the_markup_agent():
    """The kernel's contract holds for the vending world with its baseline and with the probe."""
    check_world(lambda seed: VendingWorld("small", seed), make_agent("vending", "markup"), seeds=(1,))
    few = make_agent("vending", "markup", {"max_products": 6})
    check_world(lambda seed: VendingWorld("large", seed), few, seeds=(2,))
    check_world(lambda seed: VendingWorld("medium", seed), seeds=(1,),
                extra_bad_lines=["order_place --items '[{\"name\": 1}]'", "price_set --product-name x --price -1"])


def test_presets_and_toml(tmp_path):
    """Presets differ only where documented; a dumped preset loads back equal."""
    assert PRESETS["default"] == PRESETS["large"]
    assert {"small", "medium", "large"} == {PRESETS[n].catalog_size for n in ("small", "medium", "large")}
    assert 2025 == PRESETS["reference"].catalog_seed
    a, b = VendingWorld("reference", 1), VendingWorld("reference", 2)
    assert a.catalog == b.catalog
    assert VendingWorld("default", 1).catalog != VendingWorld("default", 2).catalog
    path = tmp_path / "v.toml"
    path.write_text(config_to_toml(PRESETS["medium"]))
    assert PRESETS["medium"] == config_from_toml(path)
    with pytest.raises(Exception, match="choose one of"):
        VendingWorld("tiny", 1)


def test_system_prompt_has_role_and_budget():
    """The prompt is the role line and the shared rules with the budget (4) filled in."""
    assert VendingWorld("small", 1).system_prompt().startswith(ROLE)
    assert "at most 4 actions a day" in SYSTEM_PROMPT


def test_call_raises_refusals():
    """From Python, a refusal raises CommandError carrying the error type."""
    w = make_world("vending-v1", "small", 1)
    with pytest.raises(CommandError) as err:
        w.call("order_place", items=[])
    assert "empty_items" == err.value.to_dict()["error_type"]


def test_cli_run_prints_net_worth(capsys):
    """``bizsim run vending`` prints the net worth; ``--json`` has the metric and the daily series."""
    assert 0 == main(["run", "vending", "--agent", "markup", "--preset", "small", "--seed", "2", "--no-progress"])
    out = capsys.readouterr().out
    assert "vending-v1" in out and "net worth: $" in out and "_cents" not in out
    assert 0 == main(["run", "vending", "--agent", "markup", "--preset", "small", "--agent-opt", "markup=1.8",
                      "--json"])
    d = json.loads(capsys.readouterr().out)
    assert ("net_worth_cents", 366) == (d["metric"], len(d["daily_net_worth_cents"]))
    assert d["metric_value"] == d["daily_net_worth_cents"][-1]


def test_cli_shell_trades(monkeypatch, capsys):
    """``bizsim shell vending`` answers research, orders and task_done typed on stdin."""
    import io

    w = VendingWorld("default", 1)
    name = w.call("products_research", query="cola")["products"][0]["name"]
    items = json.dumps([{"name": name, "quantity": 3}])
    lines = f"products_research --query cola\norder_place --items '{items}'\ntask_done\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    assert 0 == main(["shell", "vending", "--seed", "1"])
    out = capsys.readouterr().out
    assert '"delivery_day": 7' in out and '"current_day": 1' in out


def test_advance_returns_an_event():
    """``task_done`` returns the SimPy event that fires with the report."""
    w = VendingWorld("small", 1)
    ev = w.execute("task_done", driven=True)
    assert isinstance(ev, simpy.Event)
    w.env.run(until=ev)
    assert 1 == ev.value["current_day"]


def test_config_validation():
    """Bad values are refused."""
    from bizsim.simcore.errors import ConfigError

    with pytest.raises(ConfigError):
        VendingConfig(catalog_size="huge")
    with pytest.raises(ConfigError):
        VendingConfig(daily_budget=0)


def test_search_results_setting_is_applied():
    """``search_results`` sets how many products a search returns (3, as in the reference, by default)."""
    w = VendingWorld(attrs.evolve(PRESETS["small"], search_results=5), 1)
    assert 5 == w.call("products_research", query="water")["total_products_found"]
