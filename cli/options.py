"""Values as the command line gives them: ``--agent-opt KEY=VALUE`` (the value read as JSON when it is) and
numbers checked against their range before anything runs."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from typing import Any

from bizsim.simcore.errors import BizSimError
from bizsim.simcore.limits import MAX_INT, show
from bizsim.simcore.untrusted_json import MAX_DEPTH, loads_untrusted, non_finite_at

__all__ = ["agent_options", "bounded_float", "bounded_int"]


def agent_options(pairs: Sequence[str], flag: str = "--agent-opt") -> dict[str, Any]:
    """``KEY=VALUE`` pairs as a dict: ``3`` is a number, ``true`` a boolean, ``[1, 2]`` a list, ``abc`` text.

    The value is read as agent JSON is: nested at most 64 levels (a deeper one was a ``RecursionError``), and
    with no NaN or infinity anywhere in it.
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        key, eq, raw = pair.partition("=")
        if not eq or not key:
            raise BizSimError(f"{flag} {show(pair)} must look like KEY=VALUE")
        try:
            value = loads_untrusted(raw)
        except json.JSONDecodeError as exc:
            if exc.msg.startswith("Nesting"):
                raise BizSimError(f"{flag} {show(key)}: the value nests deeper than {MAX_DEPTH} levels; "
                                  "give a flatter value") from None
            value = raw  # not JSON: the text itself
        if non_finite_at(value) is not None:
            raise BizSimError(f"{flag} {show(key)}: the value holds {show(raw)}, which is not a finite number; "
                              "give a number, or quote text as a JSON string")
        out[key] = value
    return out


def bounded_int(low: int = -MAX_INT, high: int = MAX_INT) -> Callable[[str], int]:
    """An argparse ``type`` reading an integer from ``low`` to ``high``; others are a one-line usage error."""

    def read(text: str) -> int:
        value = int(text)  # a ValueError is argparse's own "invalid int value" (named by read.__name__)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{show(value)} is not from {low:,} to {high:,}")
        return value

    read.__name__ = "int"
    return read


def bounded_float(low: float = 0.0, high: float = math.inf, *, above: bool = False) -> Callable[[str], float]:
    """An argparse ``type`` reading a finite number from ``low`` (exclusive when ``above``) to ``high``."""

    def read(text: str) -> float:
        value = float(text)
        if not math.isfinite(value) or value < low or (above and value == low) or value > high:
            rule = f"{'above' if above else 'from'} {low:g}" + (f" to {high:g}" if math.isfinite(high) else "")
            raise argparse.ArgumentTypeError(f"{show(text)} is not a finite number {rule}")
        return value

    read.__name__ = "float"
    return read
