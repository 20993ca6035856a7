"""Money in integer cents, every movement booked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["Entry", "Ledger"]


class Entry(NamedTuple):
    """One booked movement of money (immutable; a tuple, so booking one is cheap)."""

    t_us: int
    category: str
    amount_cents: int
    ref: str | None = None


class Ledger:
    """An append-only list of entries; funds are initial funds plus their sum.

    >>> book = Ledger(100)
    >>> book.post(0, "sale", 25)
    >>> book.funds_cents
    125
    """

    __slots__ = ("initial_cents", "entries", "_funds")

    def __init__(self, initial_cents: int) -> None:
        if not isinstance(initial_cents, int):
            raise TypeError(f"initial_cents(={initial_cents!r}) must be an int")
        self.initial_cents = initial_cents
        self.entries: list[Entry] = []
        self._funds = initial_cents

    def post(self, t_us: int, category: str, amount_cents: int, ref: str | None = None) -> None:
        """Book ``amount_cents`` (negative for a cost)."""
        if type(amount_cents) is not int:
            raise TypeError(f"amount_cents(={amount_cents!r}) must be an int number of cents")
        self.entries.append(Entry(t_us, category, amount_cents, ref))
        self._funds += amount_cents

    @property
    def funds_cents(self) -> int:
        """Current funds."""
        return self._funds

    def balanced(self) -> bool:
        """True when funds equal initial funds plus every entry."""
        return self._funds == self.initial_cents + sum(e.amount_cents for e in self.entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)
