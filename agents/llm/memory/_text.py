"""Word sets for lexical matching (rolling window, state table)."""

from __future__ import annotations

import re

__all__ = ["jaccard", "words"]

_STOP = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "will", "with", "you", "your"]
)
_SPLIT = re.compile(r"[^\w.\-]+")


def words(text: str) -> frozenset[str]:
    """Lower-cased words longer than one character, stop words removed.

    >>> sorted(words("The task Task-42 is late!"))
    ['late', 'task', 'task-42']
    """
    return frozenset(w for w in _SPLIT.split(text.lower()) if len(w) > 1 and w not in _STOP)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b| (0 for two empty sets)."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)
