"""Property tests of the lemonade world: determinism, invariants, refusals, the kernel's contract."""

from __future__ import annotations

import attrs
import pytest
import simpy
from bizsim.simcore import Status
from bizsim.simcore.check import check_world
from bizsim.simcore.driver import Driver
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.testing import assert_deterministic, assert_money_conserved, assert_replays, play
from bizsim_lemonade import PRESETS, LemonadeConfig, LemonadeWorld
from bizsim_lemonade.agents import steady
from hypothesis import given, settings
from hypothesis import strategies as st
from lemonade_strategies import configs, lines, presets, seeds


@given(presets(), seeds())
@settings(max_examples=10)
def test_same_seed_same_trajectory(preset, seed):
    """Two runs of the steady agent on one seed leave the same bytes and end in the same state."""
    world = assert_deterministic(lambda: LemonadeWorld(preset, seed), steady)
    assert Status.HORIZON == world.status


@given(configs(), seeds(), lines())
def test_invariants_hold_under_random_commands(config, seed, script):
    """Whatever an agent types, money, lemons and orders add up, and replaying the log gives the same bytes."""
    world = LemonadeWorld(config, seed)
    play(world, script)  # the kit checks the invariants after every line
    assert_money_conserved(world, world.cash_cents)
    assert config.initial_cash_cents == world.ledger.initial_cents
    assert_replays(lambda: LemonadeWorld(config, seed), world)


@given(configs(), seeds(), lines(), st.sampled_from([
    "order --lemons 100000", "price --cents 5000", "order --lemons 0", "sell --cups 1", "order --lemons x",
]))
def test_a_refused_command_changes_nothing(config, seed, script, bad):
    """A refusal is an error answer; the state, the day's budget and the clock stay as they were."""
    world = LemonadeWorld(config, seed)
    play(world, script)
    before, now, left = world.state(), world.now_us, world.actions_left
    out = world.execute(bad)
    if world.done:
        assert "error" in out
        return
    assert isinstance(out, dict) and "error" in out
    assert (before, now, left) == (world.state(), world.now_us, world.actions_left)


@given(seeds())
@settings(max_examples=5)
def test_weather_and_crowds_do_not_depend_on_the_owner(seed):
    """The named streams are drawn up front: any play sees the same weather, forecasts and demand."""
    idle, busy = LemonadeWorld("default", seed), LemonadeWorld("default", seed)
    idle.run(lambda w: (yield from iter(())) or None)  # an agent that does nothing
    busy.run(steady)
    assert (idle.weather, idle.forecast, idle._demand) == (busy.weather, busy.forecast, busy._demand)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_check_world(preset):
    """The kernel's executable contract, with the generic probe agent and with the steady baseline."""
    check_world(lambda seed: LemonadeWorld(preset, seed))
    check_world(lambda seed: LemonadeWorld(preset, seed), agent=steady, seeds=(3,))


def test_an_order_arrives_after_its_lead_time_and_spoils_after_its_shelf_life():
    """Ordered on day 0 with a 2-day lead and a 3-day shelf life: in stock from 07:00 on day 2 to 20:00 on day 4."""
    cfg = attrs.evolve(PRESETS["default"], lead_days=2, shelf_life_days=3, initial_lemons=0, customer_noise=0.0,
                       base_customers=(0, 0, 0, 0))
    world = LemonadeWorld(cfg, 1)
    driver = Driver(world)
    assert 2 == driver.send("order --lemons 50")["arrives_day"]
    stock = []
    for _ in range(6):
        stock.append(driver.send("status")["stock_lemons"])
        driver.send("run_day")
    assert [0, 0, 0, 50, 50, 0] == stock  # seen at midnight: day 2's lemons come at 07:00
    events = [(t, name) for t, kind, name, _ in world.trajectory if kind == "event" and name != "day_end"]
    day, hour = 86_400_000_000, 3_600_000_000
    assert [(2 * day + 7 * hour, "delivery"), (4 * day + 20 * hour, "spoilage")] == [
        e for e in events if e[1] != "trade"]
    assert 50 == world.totals["lemons_spoiled"] and [] == world.invariants()


def test_customers_follow_weather_and_price():
    """No noise: a day brings base_customers[weather] x (reference / price) ** elasticity, capped by the stock."""
    cfg = attrs.evolve(PRESETS["default"], customer_noise=0.0, initial_lemons=300, horizon_days=3)
    world = LemonadeWorld(cfg, 5)
    driver = Driver(world)
    driver.send("price --cents 200")
    report = driver.send("run_day")
    expected = cfg.base_customers[world.weather[0]] * (100 / 200) ** cfg.price_elasticity
    assert int(expected + 0.5) == report["customers"] == report["cups_sold"]
    assert report["cups_sold"] * (200 - cfg.supplies_cents_per_cup) - cfg.daily_rent_cents == \
        report["cash_cents"] - cfg.initial_cash_cents


def test_rent_can_bankrupt_the_stand():
    """Rent that the cash cannot pay ends the season as a bankruptcy."""
    cfg = attrs.evolve(PRESETS["default"], initial_cash_cents=0, initial_lemons=0, daily_rent_cents=100)
    world = LemonadeWorld(cfg, 1)
    report = Driver(world).send("run_day")
    assert (Status.BANKRUPT, -100) == (world.status, report["cash_cents"])
    assert "error" in world.execute("status")


def test_the_budget_ends_the_day():
    """The third counted action ends the day; free commands still answer and cost nothing."""
    world = LemonadeWorld("default", 1)
    for line in ("status", "help", "price --cents 120", "order --lemons 10", "status"):
        assert "error" not in world.execute(line)
    assert 1 == world.actions_left
    world.execute("order --lemons 10")
    assert world.day_ending and "error" in world.execute("price --cents 130")


@given(configs())
@settings(max_examples=20)
def test_configs_round_trip_through_toml(tmp_path_factory, config):
    """Every valid config is written to TOML and read back equal."""
    path = tmp_path_factory.mktemp("toml") / "season.toml"
    path.write_text(PRESETS.to_toml(config), encoding="utf-8")
    assert config == PRESETS.from_toml(path)


@pytest.mark.parametrize("bad", [
    {"horizon_days": 0}, {"weather_odds": (0.5, 0.5, 0.5, 0.5)}, {"base_customers": (1, 2, 3)},
    {"initial_lemons": 2.5}, {"start_date": "July"}, {"initial_price_cents": 5_000},
    {"initial_lemons": 10_000},
])
def test_bad_configs_are_refused(bad):
    """A value out of range or of the wrong type is refused with a ConfigError naming it."""
    with pytest.raises(ConfigError, match=next(iter(bad))):
        LemonadeConfig(**bad)


def test_the_advance_returns_an_event():
    """run_day answers with the event the agent yields (a caller that runs the clock itself says so: driven)."""
    world = LemonadeWorld("default", 1)
    event = world.execute("run_day", driven=True)
    assert isinstance(event, simpy.Event)
    world.env.run(until=event)
    assert (1, 1) == (world.day, len(world.history))
