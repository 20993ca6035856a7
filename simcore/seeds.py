"""Seed sets as people write them: ``"1-20"``, ``"1,3,5-7"``, an int or a list."""

from __future__ import annotations

import operator
from collections.abc import Iterable

from .errors import ConfigError

__all__ = ["parse_seeds"]


def parse_seeds(text: str | int | Iterable[int]) -> list[int]:
    """Seeds from ``"1-20"``, ``"1,3,5-7"``, an int or a list.

    >>> parse_seeds("1-3,7")
    [1, 2, 3, 7]
    """
    if isinstance(text, bool) or not isinstance(text, (int, str, Iterable)):
        raise ConfigError(f"seeds(={text!r}) must be text like '1-20' or '1,3,5-7', an integer, or a list of integers")
    if isinstance(text, int):
        return parse_seeds([text])
    if not isinstance(text, str):
        out = []
        for seed in text:
            try:
                if isinstance(seed, bool):
                    raise TypeError
                out.append(operator.index(seed))
            except TypeError:
                raise ConfigError(f"seeds: {seed!r} is not an integer") from None
        if any(s < 0 for s in out):
            raise ConfigError(f"seeds {out!r} must be >= 0")
        return out
    out = []
    for part in text.replace(" ", "").split(","):
        lo, dash, hi = part.partition("-")
        try:
            if dash:
                a, b = int(lo), int(hi)
                if b < a:
                    raise ValueError
                out.extend(range(a, b + 1))
            else:
                out.append(int(part))
        except ValueError:
            raise ConfigError(f"seeds {text!r}: {part!r} is not N or N-M with N <= M, e.g. 1-20 or 1,3,5-7") from None
    if any(s < 0 for s in out):
        raise ConfigError(f"seeds {text!r} must be >= 0")
    return out
