"""Seed sets as people write them: ``"1-20"``, ``"1,3,5-7"``, an int or a list.

Every caller that takes a seed set (``bizsim sweep --seeds``, grid files, the RL and Inspect environments) reads
it here. A range is counted before it is expanded, so ``"1-1000000000000"`` is refused in microseconds rather
than building a list until memory runs out.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator

from .errors import ConfigError
from .limits import MAX_INT, MAX_SEEDS, show

__all__ = ["MAX_SEEDS", "parse_seeds"]

_RULE = "must be text like '1-20' or '1,3,5-7', an integer, or a list of these"


def parse_seeds(text: str | int | Iterable[int | str], limit: int = MAX_SEEDS) -> list[int]:
    """Seeds from ``"1-20"``, ``"1,3,5-7"``, an int or a list (whose items may be such text, as Inspect's
    ``-T seeds=1,3`` hands ``['1', '3']``).

    Each seed lies in [0, 2^63 - 1]; a set of more than ``limit`` seeds is refused before any is built.

    >>> parse_seeds("1-3,7")
    [1, 2, 3, 7]
    >>> parse_seeds(["1", "5-6", 9])
    [1, 5, 6, 9]

    Raises:
        ConfigError: naming the bad part and the rule.
    """
    spans: list[tuple[int, int]] = []
    count = 0
    for a, b in _spans(text):
        spans.append((a, b))
        count += b - a + 1
        if count > limit:  # stops an endless generator too
            raise ConfigError(f"seeds {show(text)} name {count:,} seeds or more, past the limit of {limit:,}; "
                              "give fewer (e.g. 1-100)")
    return [s for a, b in spans for s in range(a, b + 1)]


def _spans(text: object) -> Iterator[tuple[int, int]]:
    """The seed set as inclusive ``(first, last)`` spans, each checked as it comes; nothing expanded."""
    if isinstance(text, bool) or not isinstance(text, (int, str, Iterable)):
        raise ConfigError(f"seeds(={show(text)}) {_RULE}")
    if isinstance(text, int):
        yield _span(text, text)
    elif isinstance(text, str):
        yield from _text_spans(text)
    else:
        for seed in text:
            if isinstance(seed, str):
                yield from _text_spans(seed)
                continue
            try:
                if isinstance(seed, bool):
                    raise TypeError
                number = operator.index(seed)
            except TypeError:
                raise ConfigError(f"seeds: {show(seed)} is not an integer; seeds {_RULE}") from None
            yield _span(number, number)


def _text_spans(text: str) -> Iterator[tuple[int, int]]:
    for part in text.replace(" ", "").split(","):
        lo, dash, hi = part.partition("-")
        # ASCII digits only: int() would also take '+1', '1_000', other scripts' digits and 4,000-digit numbers.
        if not (_digits(lo) and (not dash or _digits(hi))):
            raise ConfigError(f"seeds: {show(part)} is not a seed N or a range N-M with 0 <= N <= M, "
                              "e.g. 1-20 or 1,3,5-7")
        a = int(lo)
        b = int(hi) if dash else a
        if b < a:
            raise ConfigError(f"seeds: {show(part)} is not N or N-M with N <= M, e.g. 1-20 or 1,3,5-7")
        yield _span(a, b)


def _digits(text: str) -> bool:
    return 0 < len(text) <= 19 and text.isascii() and text.isdecimal()


def _span(a: int, b: int) -> tuple[int, int]:
    if a < 0:
        raise ConfigError(f"seeds must be >= 0, not {show(a)}")
    if b > MAX_INT:
        raise ConfigError(f"seeds: {show(b)} is past the largest seed, 2^63 - 1")
    return a, b
