"""Which fields hold money, and how a person reads an amount: one rule for every surface a person uses.

A field holds money when its name ends in ``_cents`` (integer cents) or the world names it in
:attr:`~bizsim.simcore.World.money_fields` with its unit (``"cents"`` or ``"dollars"``: names fixed by a reference
protocol keep their names). A money field whose value is a mapping holds amounts by name (vending's ``prices``:
product name -> dollars): its values are in its unit. The shell (``bizsim shell``) and the browser play page both
show such amounts in dollars by this rule (the play page is sent each field's unit: it keeps no copy of the rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["CENTS", "DOLLARS", "dollars_text", "money_unit", "money_units"]

CENTS = "cents"
DOLLARS = "dollars"
#: Keys gathered from one answer by :func:`money_units` (an answer's keys are few; a hostile one is walked no further).
_MAX_KEYS = 2_000
_MAX_DEPTH = 8


def money_unit(key: str, money_fields: Mapping[str, str] | None = None) -> str | None:
    """The unit of the amount a field named ``key`` holds (:data:`CENTS`, :data:`DOLLARS`), or ``None``: no money.

    >>> money_unit("funds_cents"), money_unit("balance_delta", {"balance_delta": "cents"}), money_unit("dau")
    ('cents', 'cents', None)
    """
    if key.endswith("_cents"):
        return CENTS
    unit = (money_fields or {}).get(key)
    return unit if unit in (CENTS, DOLLARS) else None


def dollars_text(value: Any, unit: str | None) -> str | None:
    """``value`` (in ``unit``) as dollars for a person, ``-$1,234.50``; ``None`` when it is not an amount.

    Cents are whole: a fraction of a cent (no world records one) is not read as money.

    >>> dollars_text(-123450, "cents"), dollars_text(2.5, "dollars"), dollars_text(2.5, "cents")
    ('-$1,234.50', '$2.50', None)
    """
    if isinstance(value, bool):
        return None
    if unit == CENTS and isinstance(value, int):
        sign, cents = ("-" if value < 0 else ""), abs(value)
        return f"{sign}${cents // 100:,}.{cents % 100:02d}"
    if unit == DOLLARS and isinstance(value, (int, float)):
        return f"{'-' if value < 0 else ''}${abs(value):,.2f}"
    return None


def money_units(value: Any, money_fields: Mapping[str, str] | None = None,
                into: dict[str, str] | None = None) -> dict[str, str]:
    """Every key of ``value`` (at any depth, at most 2,000 keys) that holds money, with its unit; added to ``into``.

    >>> money_units({"funds_cents": 5, "rows": [{"price": 1.0, "dau": 3}]}, {"price": "dollars"})
    {'funds_cents': 'cents', 'price': 'dollars'}
    """
    out = {} if into is None else into
    seen = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack and seen < _MAX_KEYS:
        item, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        if isinstance(item, Mapping):
            for key, sub in item.items():
                seen += 1
                if seen > _MAX_KEYS:
                    break
                if isinstance(key, str) and key not in out:
                    unit = money_unit(key, money_fields)
                    if unit is not None:
                        out[key] = unit
                if isinstance(sub, (Mapping, list)):
                    stack.append((sub, depth + 1))
        elif isinstance(item, list):
            # The keys of a listing repeat row after row: its first rows hold them all.
            stack.extend((sub, depth + 1) for sub in reversed(item[:50]) if isinstance(sub, (Mapping, list)))
    return out
