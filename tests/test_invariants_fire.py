"""Each world's invariants fire: a state corrupted behind the kernel's back is reported, by name."""

from __future__ import annotations

import json
import shlex

import pytest

from bizsim.models.freelance import FreelanceWorld
from bizsim.models.operation import OperationWorld
from bizsim.models.startup import StartupWorld
from bizsim.models.vending import VendingWorld
from bizsim.simcore import Ledger
from bizsim.simcore.ledger import Entry

from ._ecogym import end_day, play
from ._helpers import resume, start


def problems(world) -> str:
    """The world's broken invariants as one text (fails the test when there are none)."""
    bad = world.invariants()
    assert bad, "the corruption went unnoticed"
    return "; ".join(bad)


# ---------------------------------------------------------------------------
# the ledger


def test_ledger_unbalanced_when_an_entry_bypasses_post():
    """An entry appended without post(), or funds moved without an entry, leaves the ledger unbalanced."""
    book = Ledger(1_000)
    book.post(1, "sale", 250)
    assert book.balanced()
    book.entries.append(Entry(2, "rent", -400))
    assert (1_250, False) == (book.funds_cents, book.balanced())
    book.entries.pop()
    assert book.balanced()
    book._funds += 1
    assert not book.balanced()


# ---------------------------------------------------------------------------
# startup


@pytest.fixture
def startup() -> StartupWorld:
    """A tutorial startup with one task half done."""
    w = StartupWorld("tutorial", 1)
    start(w, "Task-10", "Emp_1,Emp_8")
    resume(w)
    resume(w)
    assert w.active and [] == w.invariants()
    return w


def test_startup_active_task_count_must_match_assignments(startup):
    """An employee whose active-task count drifts from the tasks it holds is reported by name."""
    emp = next(e for e in startup.employees if e.name == "Emp_8")
    emp.active_tasks += 1
    assert f"Emp_8 counts {emp.active_tasks} active tasks, holds {emp.active_tasks - 1}" in problems(startup)


def test_startup_ledger_must_balance(startup):
    """Funds moved without a ledger entry are reported."""
    startup.ledger._funds += 100
    assert "funds differ from initial funds plus the ledger" in problems(startup)


def test_startup_prestige_and_trust_bounds(startup):
    """Prestige above its maximum and negative trust are reported."""
    domain = next(iter(startup.prestige))
    startup.prestige[domain] = startup.config.prestige_max + 1
    startup.clients[0].trust = -1
    text = problems(startup)
    assert f"prestige {domain}=" in text and f"trust {startup.clients[0].name}=-1" in text


def test_startup_market_size(startup):
    """A market that lost a task is reported."""
    startup.market.pop()
    assert f"market holds {startup.config.num_market_tasks - 1} tasks" in problems(startup)


# ---------------------------------------------------------------------------
# vending


@pytest.fixture
def shop() -> VendingWorld:
    """A small vending shop after a few days: researched, ordered, priced, sold."""
    w = VendingWorld("small", 1)
    play(w, "products_research --query water")
    name = w.researched_names()[0]
    items = json.dumps([{"name": name, "quantity": 20}])
    assert "error" not in play(w, f"order_place --items {shlex.quote(items)}")
    assert "error" not in play(w, f"price_set --product-name {shlex.quote(name)} --price 3")
    for _ in range(9):
        end_day(w)
    assert w.purchases_cents > 0 and w.sales_cents > 0
    assert [] == w.invariants()
    return w


def test_vending_cash_must_equal_start_minus_purchases_plus_sales(shop):
    """Cash booked in the ledger but counted as neither a purchase nor a sale breaks cash conservation."""
    shop.ledger.post(shop.now_us, "sales", 500)
    assert shop.ledger.balanced()
    assert f"cash {shop.money_cents} != start" in problems(shop)


def test_vending_ledger_must_balance(shop):
    """Cash moved without a ledger entry is reported."""
    shop.ledger._funds -= 100
    assert "cash differs from initial cash plus the ledger" in problems(shop)


def test_vending_stock_must_match_deliveries_and_sales(shop):
    """A unit vanishing from the shelf is reported as lost stock and lost stock value."""
    i = shop.stocked[0]
    shop.stock[i] -= 1
    text = problems(shop)
    assert "stock value" in text and f"stock {sum(shop.stock)} != delivered" in text


def test_vending_sales_days(shop):
    """A day of sales left unrecorded is reported."""
    shop.daily.pop()
    assert f"{shop.day - 1} sales days recorded on day {shop.day}" in problems(shop)


# ---------------------------------------------------------------------------
# freelance


@pytest.fixture
def career() -> FreelanceWorld:
    """A freelance career after a paid submission and a day's end."""
    w = FreelanceWorld("default", 1)
    play(w, "tasks_discover --refresh-type paid")
    tid = w.pool[0]
    assert play(w, f"solution_submit --task-id {tid} --solution-text {shlex.quote(w.answer_of(tid))}")["is_success"]
    end_day(w)
    assert w.history[0][3] > 0
    assert [] == w.invariants()
    return w


def test_freelance_income_must_match_the_submissions(career):
    """A payment whose history row disagrees with the income is reported."""
    row = career.history[0]
    career.history[0] = (*row[:3], row[3] + 1, *row[4:])
    assert "income differs from the payments of the submissions" in problems(career)


def test_freelance_cash_must_match_income_and_spending(career):
    """A payment booked without being counted as income is reported."""
    career.ledger.post(career.now_us, "payment", 700)
    assert f"cash {career.money_cents} != start + income" in problems(career)


def test_freelance_ledger_must_balance(career):
    """Cash moved without a ledger entry is reported."""
    career.ledger._funds += 1
    assert "cash differs from initial cash plus the ledger" in problems(career)


def test_freelance_pool_must_not_repeat_or_hold_submitted_tasks(career):
    """A submitted task back in the pool is reported."""
    career.pool.append(career.history[0][1])
    assert "holds a submitted one" in problems(career)


def test_freelance_energy_bounds(career):
    """Energy above 100 is reported."""
    career.energy = 101
    assert "energy 101 or stress" in problems(career)


# ---------------------------------------------------------------------------
# operation


@pytest.fixture
def platform() -> OperationWorld:
    """An operation platform after three days with an action each."""
    w = OperationWorld("default", 1)
    for action in ("creator_incentive", "acquisition_boost", "moderation_tighten"):
        assert "error" not in play(w, action)
        end_day(w)
    assert [] == w.invariants()
    return w


def test_operation_last_transition_must_add_up(platform):
    """A last transition whose DAU is not retained plus new users is reported."""
    day, dau, retained, new, *rest = platform.dau_history[-1]
    platform.dau_history[-1] = (day, dau, retained + 1, new, *rest)
    assert "last transition does not add up" in problems(platform)


def test_operation_transitions_per_day(platform):
    """A day's transition left unrecorded is reported."""
    platform.dau_history.pop(0)
    assert f"2 transitions recorded on day {platform.day}" in problems(platform)


def test_operation_bounds(platform):
    """Content quality outside [0, 1] and a negative DAU are reported."""
    platform.content_quality = 1.5
    platform.dau = -1
    text = problems(platform)
    assert "content quality 1.5 outside [0, 1]" in text and "DAU -1 is not a non-negative integer" in text
