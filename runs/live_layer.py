"""A layer around a live episode: it changes one thing and forwards the rest to the episode it wraps.

Gymnasium composes an environment so (``TimeLimit`` around the env ``make()`` built); here the window, the budgets
and the reward rule are layers around :class:`~bizsim.runs.live_core.EpisodeCore`. A layer overrides what its
concern changes (a window: ``step``; budgets: every call), and every other name is read from the episode beneath,
so a stack answers what its core answers. Private names are not forwarded: a layer's own state stays its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from bizsim.runs.live_core import EpisodeCore

__all__ = ["EpisodeLayer"]


class EpisodeLayer:
    """The base of every layer: holds the episode it wraps (``episode``) and forwards what it does not change.

    Args:
        episode: the episode beneath (a core, or another layer).
    """

    def __init__(self, episode: Any) -> None:
        self.episode = episode
        #: The core beneath every layer, where the episode's state lives (read once per step, not per layer).
        self.unwrapped: EpisodeCore = episode.unwrapped

    def __getattr__(self, name: str) -> Any:
        # Only names this layer lacks arrive here; a private one is its own business, not the episode's.
        if name.startswith("_") or name in ("episode", "unwrapped"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self.episode, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.episode!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close("closed")
