"""The window layer: a stepped episode is over after N agent turns or D simulated days (``info["truncated"]``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bizsim.simcore.errors import BizSimError

from bizsim.runs.live_layer import EpisodeLayer

if TYPE_CHECKING:
    from bizsim.agents.start import Window

__all__ = ["Windowed"]


class Windowed(EpisodeLayer):
    """Truncates :meth:`step` once ``window`` is over: that step answers ``done`` with ``info["truncated"]``, and
    later steps are refused until :meth:`reset`. Calls (``call_line``, ``call_tool``) are not windowed.

    Args:
        episode: the episode beneath.
        window: how long a stepped episode lasts (:class:`~bizsim.agents.start.Window`: turns or days).
    """

    def __init__(self, episode: Any, window: Window) -> None:
        super().__init__(episode)
        self.window = window

    @property
    def truncated(self) -> bool:
        """True once the window is over: the turns played, or the days since the episode's start."""
        core = self.unwrapped
        return self.window.ends(core.turns, self.window.days_since(core.start_us, core.world.now_us))

    def step(self, command: Any) -> tuple[str, float, bool, dict]:
        """As the episode's ``step``; ``done`` and ``info["truncated"]`` once the step ends the window."""
        self._require_open()
        return self._windowed(self.episode.step(command))

    def step_tool(self, name: str, arguments: Mapping[str, Any] | None) -> tuple[str, float, bool, dict]:
        """As the episode's ``step_tool``, windowed as :meth:`step`."""
        self._require_open()
        return self._windowed(self.episode.step_tool(name, arguments))

    def _require_open(self) -> None:
        if not self.unwrapped.world.done and self.truncated:
            raise BizSimError("the episode has ended (its window is over); call reset() to start another")

    def _windowed(self, stepped: tuple[str, float, bool, dict]) -> tuple[str, float, bool, dict]:
        observation, reward, _, info = stepped
        # A world that ended in the step ended the episode itself; its window did not cut it short.
        if self.unwrapped.world.done or not self.truncated:
            return stepped
        return observation, reward, True, {**info, "truncated": True}
