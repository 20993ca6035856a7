"""simcore/money.py: which fields hold money and how a person reads them; the shell and the play page both use it."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bizsim.simcore import money
from bizsim.simcore.money import dollars_text, money_unit, money_units


def test_doctests():
    """The examples in the docstrings run."""
    assert 0 == doctest.testmod(money).failed


@pytest.mark.parametrize("key, fields, unit", [
    ("funds_cents", {}, "cents"), ("balance_delta", {"balance_delta": "cents"}, "cents"),
    ("price", {"price": "dollars"}, "dollars"), ("price", {}, None), ("cents", {}, None),
    ("dau", {"dau": "users"}, None),  # an unknown unit is not money
])
def test_money_unit(key, fields, unit):
    """``*_cents`` names are cents; other names only as the world declares them, in a known unit."""
    assert unit == money_unit(key, fields)


@given(st.integers(min_value=-10**15, max_value=10**15))
def test_cents_are_written_exactly(cents):
    """Whole cents read back from their dollars text to the cent, however large (no float in between)."""
    text = dollars_text(cents, "cents")
    assert cents == (-1 if text.startswith("-") else 1) * int(text.lstrip("-$").replace(",", "").replace(".", ""))


def test_what_is_not_an_amount():
    """Booleans, text and fractions of a cent are not read as money."""
    assert [None, None, None, None] == [dollars_text(True, "cents"), dollars_text("5", "cents"),
                                        dollars_text(2.5, "cents"), dollars_text(5, None)]


def test_money_units_is_bounded():
    """A deep or wide answer is walked only so far: the keys found stay within the documented bound."""
    deep: dict = {"x_cents": 1}
    for _ in range(50):
        deep = {"a": deep}
    assert {} == money_units(deep)
    wide = {f"k{i}_cents": i for i in range(5_000)}
    assert 2_000 == len(money_units(wide))


def test_the_shell_shows_money_by_the_same_rule():
    """The shell's table and lines show the fields the rule names in dollars (one rule, no copy)."""
    from bizsim.cli.shell_screen import render

    text = render({"balance_delta": -732180, "funds_cents": 5, "rows": [{"price": 2.5, "dau": 3}, {"price": 1.0, "dau": 4}]},
                  money={"balance_delta": "cents", "price": "dollars"})
    assert "balance_delta: -$7,321.80" in text and "funds: $0.05" in text and "$2.50" in text
    assert "prices: Cola $1.99, Fizz $0.50" == render({"prices": {"Cola": 1.99, "Fizz": 0.5}}, money={"prices": "dollars"})
