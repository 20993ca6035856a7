"""Dollars per call: user prices first, then the client's price map; unknown stays unknown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bizsim.simcore.errors import ConfigError

from .types import Usage

__all__ = ["Pricing", "check_prices"]


def check_prices(prices: Mapping[str, Any] | None) -> dict[str, tuple[float, float]]:
    """Validate ``{model: (input $/M tokens, output $/M tokens)}``.

    >>> check_prices({"my/model": [0.5, 1.5]})
    {'my/model': (0.5, 1.5)}
    """
    out: dict[str, tuple[float, float]] = {}
    for model, pair in (prices or {}).items():
        try:
            inp, outp = (float(x) for x in pair)
        except (TypeError, ValueError):
            raise ConfigError(
                f"prices[{model!r}](={pair!r}) must be a pair (input $/M tokens, output $/M tokens)"
            ) from None
        if inp < 0 or outp < 0:
            raise ConfigError(f"prices[{model!r}](={pair!r}) must not be negative")
        out[str(model)] = (inp, outp)
    return out


class Pricing:
    """Prices calls of one model.

    User prices (``{model: (input, output)}`` in dollars per million tokens)
    win; otherwise the client's own price map (litellm's) is asked; when
    neither knows the model, the cost is ``None`` — unknown, not zero.
    """

    def __init__(self, model: str, prices: Mapping[str, Any] | None = None, client: Any = None) -> None:
        self.model = model
        self.prices = check_prices(prices)
        self._client_cost = getattr(client, "cost", None)
        self._known: bool | None = None

    @property
    def source(self) -> str:
        """Where prices come from: ``user``, ``client`` or ``unknown``."""
        if self.model in self.prices:
            return "user"
        return "client" if self.known() else "unknown"

    def cost(self, usage: Usage, billed: float | None = None) -> float | None:
        """Dollars for one call, or ``None`` when the price is unknown.

        Args:
            usage: the call's tokens.
            billed: the client's price of the actual answer (litellm's ``response_cost``, cache discounts
                included); used when the model is priced by the client's map, so the run's cost is the bill.
        """
        pair = self.prices.get(self.model)
        if pair is not None:
            # User prices are one input price: cached prompt tokens are counted at it too.
            return (usage.prompt_tokens * pair[0] + usage.completion_tokens * pair[1]) / 1_000_000
        if self._client_cost is None or not self.known():
            return None
        if billed is not None:
            return billed
        out = self._client_cost(self.model, usage)
        self._known = out is not None
        return out

    def known(self) -> bool:
        """True when calls of this model can be priced."""
        if self.model in self.prices:
            return True
        if self._known is None:
            self._known = self._client_cost is not None and self._client_cost(self.model, Usage(1000, 1000)) is not None
        return self._known
