"""Rolling window: the last N messages; recall the newest and lexically similar older ones."""

from __future__ import annotations

from collections import deque

from ._text import jaccard, words
from .base import MemoryItem, Recall

__all__ = ["RollingWindow"]


class RollingWindow:
    """Working memory: the last ``size`` items.

    Recall returns the ``newest`` most recent items (score 1.0) plus older
    ones whose word-set Jaccard similarity with the query reaches
    ``threshold`` (at most ``top``), as EcoGym's rolling window does. Words
    are bizsim's (:mod:`._text`: split at punctuation, common words left out),
    where the reference splits at spaces only, so a compact JSON tool result
    is many words here, not one.
    """

    name = "window"

    def __init__(self, size: int = 20, newest: int = 2, threshold: float = 0.15, top: int = 5) -> None:
        self.items: deque[tuple[MemoryItem, frozenset[str]]] = deque(maxlen=size)
        self.newest = newest
        self.threshold = threshold
        self.top = top

    def add(self, item: MemoryItem) -> None:
        """Remember one item (the oldest falls out)."""
        if item.text.strip():
            self.items.append((item, words(item.text)))

    def recall(self, query: str, now_h: float) -> list[Recall]:
        """The newest items, then older ones similar to ``query``."""
        items = list(self.items)
        fresh = items[-self.newest:] if self.newest else []
        out = [Recall(f"(turn {i.turn}, {i.role}) {i.text}", 1.0, "history", i.turn, i.text)
               for i, _ in reversed(fresh)]
        q = words(query)
        scored = [(jaccard(q, w), i) for i, w in items[: len(items) - len(fresh)]]
        scored = [x for x in scored if x[0] >= self.threshold]
        scored.sort(key=lambda x: (-x[0], -x[1].turn))
        for score, i in scored[: self.top]:
            out.append(Recall(f"(turn {i.turn}, {i.role}) {i.text}", score, "history", i.turn, i.text))
        return out
