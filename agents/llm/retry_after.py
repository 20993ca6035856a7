"""How long a rate-limited endpoint asks to wait: its ``Retry-After`` header, read defensively.

The header comes from the endpoint, so it is bounded: an absurd or hostile value could otherwise
stall a run (or a sweep) for days. A wait past :data:`MAX_RETRY_AFTER_S` is cut to it.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

__all__ = ["MAX_RETRY_AFTER_S", "retry_after"]

#: The longest wait an endpoint's ``Retry-After`` can impose on one retry.
MAX_RETRY_AFTER_S = 300.0


def retry_after(headers: Any, now: datetime | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date), or None if absent.

    >>> retry_after({"Retry-After": "7"})
    7.0
    >>> retry_after({"retry-after-ms": "1500"})
    1.5
    >>> retry_after({"Retry-After": "1e9"})
    300.0
    >>> retry_after({"Retry-After": "soon"}) is None
    True
    """
    if headers is None:
        return None
    try:
        millis = _get(headers, "retry-after-ms")
        seconds = _get(headers, "retry-after")
    except Exception:  # noqa: BLE001 - a headers object that cannot be read says nothing
        return None
    wait = _number(millis, 1000.0) if millis is not None else None
    if wait is None and seconds is not None:
        wait = _number(seconds, 1.0)
        if wait is None:
            wait = _date(seconds, now or datetime.now(UTC))
    if wait is None:
        return None
    return min(max(wait, 0.0), MAX_RETRY_AFTER_S)


def _get(headers: Any, name: str) -> str | None:
    value = headers.get(name)
    if value is None and isinstance(headers, dict):  # a plain dict is case-sensitive
        value = next((v for k, v in headers.items() if isinstance(k, str) and k.lower() == name), None)
    return None if value is None else str(value)[:100]


def _number(text: str, per_second: float) -> float | None:
    try:
        value = float(text) / per_second
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _date(text: str, now: datetime) -> float | None:
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - now).total_seconds()
