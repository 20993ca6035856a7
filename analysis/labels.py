"""Names of figures in words, and money in dollars: shared by the viewer and the report."""

from __future__ import annotations

import math

__all__ = ["dollars", "human_number", "is_money", "words"]

_PREFIXES = {"final_": "final ", "mean_": "mean ", "horizon_": "", "daily_": "daily ", "month_end_": "month-end ",
             "month_": "monthly "}
_ABBREVIATIONS = {"dau": "daily active users", "llm": "model", "usd": "dollars", "ci": "confidence interval"}


def is_money(name: object) -> bool:
    """Whether a figure's name says it is in cents (``*_cents``) or dollars (``*_usd``)."""
    return isinstance(name, str) and name.endswith(("_cents", "_usd"))


def words(name: str) -> str:
    """A figure's name as words, its money unit named: ``month_end_funds_cents`` -> ``Month-end funds (dollars)``.

    >>> words("month_end_funds_cents"), words("mean_dau"), words("llm_cost_usd"), words("daily_dau")
    ('Month-end funds (dollars)', 'Mean daily active users', 'Model cost (dollars)', 'Daily active users')
    """
    text = str(name)
    unit = ""
    for suffix in ("_cents", "_usd"):
        if text.endswith(suffix):
            text, unit = text[: -len(suffix)], " (dollars)"
    for prefix, said in _PREFIXES.items():
        if text.startswith(prefix) and len(text) > len(prefix):
            text = said + text[len(prefix):]
            break
    parts = [_ABBREVIATIONS.get(p, p) for p in text.replace("-", " - ").replace("_", " ").split(" ")]
    text = " ".join(parts).replace(" - ", "-").replace("daily daily ", "daily ").strip() or str(name)
    return text[0].upper() + text[1:] + unit


def human_number(x: float | int | None, digits: int = 3) -> str:
    """A number as a person writes it: thousands separated, no exponent, tiny values as 0.

    >>> human_number(2.776e-17), human_number(1234567.891), human_number(0.0421), human_number(None)
    ('0', '1,234,568', '0.0421', '')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, bool):
        return str(x)
    v = float(x)
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if abs(v) < 1e-9:
        return "0"
    if abs(v) >= 1000 or float(v).is_integer():
        return f"{v:,.0f}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(v))))
    return f"{v:,.{min(decimals, 6)}f}".rstrip("0").rstrip(".") if decimals else f"{v:,.0f}"


def dollars(cents: float | int | None) -> str:
    """Cents as dollars with a sign and separators: ``-123456`` -> ``-$1,234.56``.

    >>> dollars(42029521), dollars(-50), dollars(None)
    ('$420,295.21', '-$0.50', '')
    """
    if cents is None or (isinstance(cents, float) and math.isnan(cents)):
        return ""
    v = float(cents) / 100
    sign = "-" if v < 0 else ""
    return f"{sign}${abs(v):,.2f}"
