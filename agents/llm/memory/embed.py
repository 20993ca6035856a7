"""Text embedders: a deterministic local one by default, or the model provider's."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence

import numpy as np

from ._text import words

__all__ = ["Embedder", "HashingEmbedder", "ProviderEmbedder"]

Embedder = Callable[[Sequence[str]], np.ndarray]


class HashingEmbedder:
    """Hashed bag-of-words vectors, L2-normalised: deterministic, local, no downloads.

    Each word adds ±1 to one of ``dim`` coordinates chosen by CRC-32 (stable
    across processes, unlike ``hash``).

    >>> e = HashingEmbedder(dim=32)
    >>> v = e.embed(["late task from Vanguard", "Vanguard task was late"])
    >>> round(float(v[0] @ v[1]), 3)
    1.0
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text (zero for a text without words)."""
        out = np.zeros((len(texts), self.dim))
        for row, text in enumerate(texts):
            for w in words(text):
                h = zlib.crc32(w.encode("utf-8"))
                out[row, h % self.dim] += 1.0 if (h >> 16) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)

    __call__ = embed


class ProviderEmbedder:
    """Embeddings from the model provider, through the run's gateway (recorded, replayable)."""

    def __init__(self, embed_fn: Callable[[Sequence[str]], list[list[float]]]) -> None:
        self._embed = embed_fn

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors from the provider's embeddings."""
        arr = np.asarray(self._embed(list(texts)), dtype=float)
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        return np.divide(arr, norms, out=np.zeros_like(arr), where=norms > 0)

    __call__ = embed
