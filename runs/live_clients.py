"""Who plays a live episode and what they report: clients, metadata and model usage, each bounded (agent text)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_CLIENT_NAME_CHARS, MAX_REPORTED_COST_USD, MAX_REPORTED_TOKENS
from bizsim.simcore.world import scalar_text

__all__ = ["ClientLedger", "clean", "clip"]

#: Distinct clients recorded in ``result.json`` (a shell session may see many); later ones are counted only.
MAX_CLIENTS = 16
#: Distinct clients past those counted in ``other_clients``; past this many the count stays (memory is bounded).
MAX_OTHER_CLIENTS = 10_000


class ClientLedger:
    """The clients that reported themselves, the facts kept about the run and the usage the clients reported."""

    def __init__(self) -> None:
        self.clients: list[dict[str, str | None]] = []
        self.others: set[tuple[str | None, str | None]] = set()
        self.metadata: dict[str, Any] = {}
        self.prompt_tokens = self.completion_tokens = 0
        self.cost_usd: float | None = None

    def add_client(self, name: Any, version: Any = None) -> bool:
        """Count a client (text cut to ``MAX_CLIENT_NAME_CHARS``); whether it was new."""
        entry = {"name": clip(name), "version": None if version is None else clip(version)}
        if entry in self.clients:
            return False
        if len(self.clients) >= MAX_CLIENTS:
            if len(self.others) < MAX_OTHER_CLIENTS:
                self.others.add((entry["name"], entry["version"]))
        else:
            self.clients.append(entry)
        return True

    def add_metadata(self, facts: Mapping[str, Any]) -> None:
        """Keep JSON-able facts.

        Raises:
            ConfigError: a value is not JSON data (nothing is kept then).
        """
        try:
            facts = json.loads(json.dumps(facts, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"metadata must be JSON data: {exc}") from None
        self.metadata.update(facts)

    def add_usage(self, prompt_tokens: Any, completion_tokens: Any, cost_usd: Any) -> None:
        """Add what a client's model spent.

        Raises:
            ConfigError: a token count that is not an integer from 0 to ``MAX_REPORTED_TOKENS``, or a cost that is
                not a finite number of dollars from 0 to ``MAX_REPORTED_COST_USD`` (nothing is added then).
        """
        for label, n in (("prompt_tokens", prompt_tokens), ("completion_tokens", completion_tokens)):
            if type(n) is not int or not 0 <= n <= MAX_REPORTED_TOKENS:
                raise ConfigError(f"{label} must be an integer from 0 to {MAX_REPORTED_TOKENS:,}, got {clip(n)}")
        if cost_usd is not None and (isinstance(cost_usd, bool) or not isinstance(cost_usd, (int, float))
                                     or not 0.0 <= cost_usd <= MAX_REPORTED_COST_USD):  # NaN fails the range too
            raise ConfigError(f"cost_usd must be a number of dollars from 0 to {MAX_REPORTED_COST_USD:,.0f}, "
                              f"got {clip(cost_usd)}")
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        if cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + float(cost_usd)

    def carry(self, live: Mapping[str, Any]) -> None:
        """Take the clients and usage a resumed episode recorded (what does not check out is left out)."""
        given = live.get("clients")
        clients: list[Any] = given if isinstance(given, list) else []
        self.clients = [{"name": clip(c.get("name")), "version": None if c.get("version") is None else
                         clip(c.get("version"))} for c in clients[:MAX_CLIENTS] if isinstance(c, dict)]
        given_usage = live.get("usage")
        usage: dict[str, Any] = given_usage if isinstance(given_usage, dict) else {}
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if all(type(n) is int and 0 <= n <= MAX_REPORTED_TOKENS for n in (prompt, completion)):
            self.prompt_tokens, self.completion_tokens = int(prompt or 0), int(completion or 0)
        cost = usage.get("cost_usd")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool) and 0 <= cost <= MAX_REPORTED_COST_USD:
            self.cost_usd = float(cost)

    def usage(self) -> dict[str, Any]:
        """The usage block of ``live`` in ``result.json``."""
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost_usd": self.cost_usd}


def clean(value: Any) -> Any:
    """Lone surrogates (JSON escapes and undecodable argv bytes carry them; no UTF-8 file can hold them) as U+FFFD,
    in text, keys and nested values, as the world cleans a command line."""
    if isinstance(value, str):
        return scalar_text(value)
    if isinstance(value, Mapping):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


def clip(value: Any) -> str:
    """Agent text as at most ``MAX_CLIENT_NAME_CHARS`` characters of printable UTF-8 (``repr`` of a non-text)."""
    text = value if isinstance(value, str) else repr(value)
    text = text[:MAX_CLIENT_NAME_CHARS]
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
