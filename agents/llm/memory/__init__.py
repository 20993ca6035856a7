"""Memory modules for LLM agents: rolling window, scratchpad, state table, episodic store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .base import MemoryItem, MemoryManager, MemoryModule, Recall
from .embed import HashingEmbedder, ProviderEmbedder
from .episodic import EpisodicStore
from .scratchpad import NOTE_TOOL, ScratchpadMemory
from .state_table import StateTable
from .window import RollingWindow

if TYPE_CHECKING:
    from bizsim.simcore.world import World

__all__ = [
    "NOTE_TOOL",
    "EpisodicStore",
    "HashingEmbedder",
    "MemoryItem",
    "MemoryManager",
    "MemoryModule",
    "ProviderEmbedder",
    "Recall",
    "RollingWindow",
    "ScratchpadMemory",
    "StateTable",
    "build_memory",
]


def build_memory(
    names: Sequence[str],
    world: World,
    *,
    limit: int = 15,
    decay_per_day: float = 0.05,
    embed: Callable[[Sequence[str]], list[list[float]]] | None = None,
) -> MemoryManager:
    """A manager with the named modules (``window``, ``scratchpad``, ``state``, ``episodic``).

    ``embed`` (texts -> vectors) makes the episodic store use the provider's
    embeddings; without it the local hashing embedder is used.
    """
    modules: list[MemoryModule] = []
    for name in names:
        if name == "window":
            modules.append(RollingWindow())
        elif name == "scratchpad":
            modules.append(ScratchpadMemory(world))
        elif name == "state":
            modules.append(StateTable())
        elif name == "episodic":
            modules.append(EpisodicStore(ProviderEmbedder(embed) if embed else HashingEmbedder(), decay_per_day))
        else:
            raise ValueError(f"memory module {name!r} must be one of window, scratchpad, state, episodic")
    return MemoryManager(modules, limit)
