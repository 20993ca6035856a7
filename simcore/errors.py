"""The one exception hierarchy of bizsim."""

from __future__ import annotations

from typing import Any

__all__ = ["BizSimError", "CommandError", "ConfigError", "NotInProcessError", "ReplayError", "TurnError"]


class BizSimError(Exception):
    """Root of every error bizsim raises on purpose."""


class ConfigError(BizSimError, ValueError):
    """A configuration or preset value breaks a rule."""


class ReplayError(BizSimError):
    """A recorded run cannot be replayed onto this world."""


class CommandError(BizSimError):
    """An agent's command was refused; the world is unchanged.

    Agents never see the exception: the kernel turns it into
    ``{"error": message, "hint": hint}``.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def to_dict(self) -> dict[str, Any]:
        """The JSON-able form an agent receives."""
        out: dict[str, Any] = {"error": self.message}
        if self.hint:
            out["hint"] = self.hint
        return out


class NotInProcessError(BizSimError, RuntimeError):
    """The advance command was issued from plain Python code, where no process can wait for its event.

    Nothing ran and nothing was recorded. Run the agent as a process with
    ``world.run(agent)`` (it yields the event), or step the world from outside
    with :class:`bizsim.simcore.driver.Driver`.
    """


class TurnError(BizSimError, RuntimeError):
    """A seat of an arena was given a command while another seat has the turn.

    Nothing ran and nothing was recorded: seats act one at a time, in the
    arena's documented order, so a seat's command log replays in that order.
    Run the seats' agents with ``arena.run(agents)``, or drive the seat
    ``arena.to_move`` names.
    """
