"""What an outside agent reads of a world: the opening prompt, each answer as text, the headline metric."""

from __future__ import annotations

import json
from typing import Any

from bizsim.simcore.world import World

__all__ = ["metric_of", "observation_text", "prompt_text"]


def observation_text(result: Any) -> str:
    """A command's result as canonical JSON (sorted keys, no spaces, ASCII only: non-ASCII is ``\\u`` escaped)."""
    return json.dumps(result, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def prompt_text(world: World) -> str:
    """What an agent reads before its first command: the world's system prompt, else its command list.

    Non-ASCII characters are written as backslash escapes, so every observation is printable ASCII.
    """
    text = world.system_prompt() or "\n\n".join(filter(None, [world.agent_role, world.commands.help_text()]))
    return text.encode("ascii", "backslashreplace").decode("ascii")


def metric_of(world: World) -> float:
    """The world's headline metric now (``summary()["metric_value"]``: funds, mean DAU, net worth...)."""
    return float(world.summary()["metric_value"])
