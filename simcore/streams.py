"""Named, independent random streams derived from one episode seed."""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["RandomStreams", "stable_hash"]


def stable_hash(name: str) -> int:
    """A 64-bit hash of ``name`` that is the same on every run and machine."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big")


class RandomStreams:
    """Hands out one ``numpy.random.Generator`` per stream name.

    Each stream is keyed by a stable hash of its name, not by the order in
    which streams are requested, so adding a stream never changes what the
    others draw.

    >>> a = RandomStreams(7).get("market").integers(1000)
    >>> b = RandomStreams(7).get("market").integers(1000)
    >>> int(a) == int(b)
    True
    """

    __slots__ = ("seed", "_streams")

    def __init__(self, seed: int) -> None:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed(={seed!r}) must be a non-negative integer")
        self.seed = int(seed)
        self._streams: dict[str, np.random.Generator] = {}

    def get(self, name: str) -> np.random.Generator:
        """The generator for ``name``, created on first use."""
        gen = self._streams.get(name)
        if gen is None:
            seq = np.random.SeedSequence(self.seed, spawn_key=(stable_hash(name),))
            gen = np.random.Generator(np.random.PCG64(seq))
            self._streams[name] = gen
        return gen
