"""Symbolic memory: a key-value table of the latest facts read from tool results."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ._text import jaccard, words
from .base import MemoryItem, Recall

__all__ = ["StateTable", "flatten_facts"]


def flatten_facts(prefix: str, data: Any, out: dict[str, str], depth: int = 0) -> None:
    """Scalar fields of a JSON result as ``{"command.path": "value"}``; lists give their length.

    >>> facts = {}
    >>> flatten_facts("company status", {"funds_cents": 5, "risk": {"bankrupt": False}, "tasks": [1, 2]}, facts)
    >>> facts
    {'company status.funds_cents': '5', 'company status.risk.bankrupt': 'False', 'company status.tasks.count': '2'}
    """
    if depth > 3:
        return
    if isinstance(data, dict):
        for k, v in data.items():
            flatten_facts(f"{prefix}.{k}", v, out, depth + 1)
    elif isinstance(data, list):
        out[f"{prefix}.count"] = str(len(data))
    elif data is not None:
        text = str(data)
        out[prefix] = text if len(text) <= 200 else text[:200] + "…"


class StateTable:
    """Variables extracted deterministically from every tool result (no LLM).

    Keys are ``command.field.path``; newer values overwrite older ones; the
    least recently updated keys go past ``max_vars``. Recall scores a key by
    the Jaccard similarity of the query with "key value" plus 0.5 for every
    query word inside the key, keeps those above 0.05 (at most ``top``), or
    else the ``top`` most recently updated; every hit gets +1.0 so variables
    rank first, as in EcoGym's scratch-pad memory.
    """

    name = "state"

    def __init__(self, max_vars: int = 200, top: int = 5) -> None:
        self.vars: OrderedDict[str, str] = OrderedDict()
        self.max_vars = max_vars
        self.top = top

    def add(self, item: MemoryItem) -> None:
        """Read the facts of a tool result."""
        if item.command is None or not isinstance(item.data, dict) or "error" in item.data:
            return
        facts: dict[str, str] = {}
        flatten_facts(item.command, item.data, facts)
        for k, v in facts.items():
            self.vars.pop(k, None)
            self.vars[k] = v
        while len(self.vars) > self.max_vars:
            self.vars.popitem(last=False)

    def recall(self, query: str, now_h: float) -> list[Recall]:
        """The variables that fit ``query`` best (or the freshest)."""
        if not self.vars:
            return []
        q = words(query)
        scored = []
        for k, v in self.vars.items():
            key_words = words(k.replace(".", " ").replace("_", " "))
            s = jaccard(q, words(f"{k} {v}")) + 0.5 * sum(1 for w in q if w in key_words)
            if s > 0.05:
                scored.append((s, k, v))
        if scored:
            scored.sort(key=lambda x: -x[0])
            rows = scored[: self.top]
        else:
            rows = [(0.0, k, v) for k, v in list(self.vars.items())[-self.top:][::-1]]
        return [Recall(f"{k} = {v}", 1.0 + s, "variables") for s, k, v in rows]
