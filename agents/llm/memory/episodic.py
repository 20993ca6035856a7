"""Episodic memory: past messages retrieved by similarity, fading with simulated time."""

from __future__ import annotations

import math

import numpy as np

from .base import MemoryItem, Recall
from .embed import Embedder, HashingEmbedder

__all__ = ["EpisodicStore"]


class EpisodicStore:
    """Stores every non-system message of at least ``min_chars`` characters with its embedding.

    Recall scores an item by cosine(query, item) × exp(−λ·Δt), Δt in simulated
    days since the item happened (EcoGym paper, Eq. 19; the reference code
    leaves the decay out), keeps scores ≥ ``threshold``, best ``top`` first.
    """

    name = "episodic"

    def __init__(
        self, embedder: Embedder | None = None, decay_per_day: float = 0.05, top: int = 3, threshold: float = 0.15,
        min_chars: int = 4,
    ) -> None:
        self.embedder = embedder or HashingEmbedder()
        self.decay_per_day = decay_per_day
        self.top = top
        self.threshold = threshold
        self.min_chars = min_chars
        self.items: list[MemoryItem] = []
        self._vectors: list[np.ndarray] = []
        self._pending: list[MemoryItem] = []

    def add(self, item: MemoryItem) -> None:
        """Queue an item; embeddings are computed in one batch at the next recall."""
        if item.role != "system" and len(item.text.strip()) >= self.min_chars:
            self._pending.append(item)

    def _flush(self) -> None:
        if self._pending:
            vectors = self.embedder([i.text for i in self._pending])
            self.items.extend(self._pending)
            self._vectors.extend(np.asarray(vectors, dtype=float))
            self._pending = []

    def score(self, cosine: float, age_days: float) -> float:
        """cosine × exp(−λ·Δt).

        >>> EpisodicStore(decay_per_day=0.1).score(0.8, 10.0) == 0.8 * math.exp(-1.0)
        True
        """
        return cosine * math.exp(-self.decay_per_day * max(0.0, age_days))

    def recall(self, query: str, now_h: float) -> list[Recall]:
        """The stored items most similar to ``query``, older ones discounted."""
        self._flush()
        if not self.items or not query.strip():
            return []
        q = np.asarray(self.embedder([query]), dtype=float)[0]
        cos = np.stack(self._vectors) @ q
        ages = np.array([(now_h - i.t_h) / 24.0 for i in self.items])
        scores = cos * np.exp(-self.decay_per_day * np.clip(ages, 0.0, None))
        order = np.argsort(-scores, kind="stable")[: self.top]
        out = []
        for idx in order:
            s = float(scores[idx])
            if s < self.threshold:
                break
            i = self.items[idx]
            out.append(Recall(f"(turn {i.turn}, day {i.t_h / 24:.1f}, {i.role}) {i.text}", s, "memories", i.turn,
                              i.text))
        return out
