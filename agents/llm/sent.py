"""Each request written into its call record as a delta on the one before (:mod:`bizsim.simcore.request_delta`).

The writer keeps the previous request of each conversation; on a resume it sees every replayed request again,
so the first live call's delta is the one an uninterrupted run would have written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bizsim.simcore.digests import canonical_digest
from bizsim.simcore.request_delta import Sent, encode

if TYPE_CHECKING:
    from bizsim.simcore.world import World

    from .memory import MemoryManager
    from .protocols.base import Request

__all__ = ["SentLog", "memory_snapshot"]


def memory_snapshot(memory: MemoryManager | None) -> dict | None:
    """What an agent's memory modules held for a call: the notes kept by the note tool and what was recalled into
    the system prompt, by section (``None`` for an agent without memory modules)."""
    if not memory:
        return None
    notes = next((getattr(m, "notes", None) for m in memory.modules if getattr(m, "keeps_notes", False)), None)
    return {
        "modules": [m.name for m in memory.modules],
        "notes": notes,
        # The notes' own recall repeats the notes.
        "recalls": [{"section": r.section, "text": r.text, "score": round(float(r.score), 4), "turn": r.turn}
                    for r in memory.last_recalls if r.section != "notes"],
    }


class SentLog:
    """The ``sent`` objects of an agent's calls (a delta on its previous turn's request) and of a world role's."""

    def __init__(self) -> None:
        self._last: tuple[int, int, Sent] | None = None  # episode, turn, request

    def agent(self, episode: int, turn: int, request: Request, model: str, params: dict, world: World,
              memory: MemoryManager | None) -> dict:
        """The ``sent`` object of the agent's request of ``turn``."""
        last = self._last
        base = last[2] if last is not None and last[0] == episode and last[1] == turn - 1 else None
        sent, now = encode(
            base, turn - 1, request.messages, request.message_digests, model=model, params=params,
            tools=request.tools, tools_digest=request.tools_digest, t_us=world.now_us,
            scratchpad=world.scratchpad if getattr(world, "has_scratchpad", False) else None,
            memory=memory_snapshot(memory),
        )
        self._last = (episode, turn, now)
        return sent

    @staticmethod
    def role(messages: Sequence[dict], tools: Sequence[dict] | None, model: str, params: dict,
             t_us: int | None) -> dict:
        """The ``sent`` object of a world role's call, which stands alone."""
        digests = [canonical_digest(m) for m in messages]
        sent, _ = encode(None, None, messages, digests, model=model, params=params, tools=tools,
                         tools_digest=canonical_digest(tools), t_us=t_us)
        return sent
