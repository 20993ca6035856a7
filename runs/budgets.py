"""What an outside agent may spend in one live episode."""

from __future__ import annotations

import attrs
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_CALL_CHARS

__all__ = ["Budgets"]


@attrs.frozen
class Budgets:
    """What an outside agent may spend in one episode; ``None`` is no limit.

    Args:
        max_turns: calls answered (a turn is one call on these surfaces). ``None`` takes the world config's
            ``max_turns`` when it has one.
        max_tokens_total: prompt plus completion tokens the client reported (:meth:`bizsim.runs.live.Episode.report_usage`).
        max_cost_usd: dollars the client reported.
        max_call_chars: the longest command line, or tool arguments as JSON text, passed to the world.
    """

    max_turns: int | None = None
    max_tokens_total: int | None = None
    max_cost_usd: float | None = None
    max_call_chars: int = MAX_CALL_CHARS

    def __attrs_post_init__(self) -> None:
        for name in ("max_turns", "max_tokens_total"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(f"{name}(={value!r}) must be an integer >= 1 (or unset)")
        cost = self.max_cost_usd
        if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float)) or not cost >= 0):
            raise ConfigError(f"max_cost_usd(={self.max_cost_usd!r}) must be a number >= 0 (or unset)")
        if isinstance(self.max_call_chars, bool) or not isinstance(self.max_call_chars, int) or not (
                16 <= self.max_call_chars <= MAX_CALL_CHARS):
            raise ConfigError(f"max_call_chars(={self.max_call_chars!r}) must lie in [16, {MAX_CALL_CHARS:,}]")
