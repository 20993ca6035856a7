"""Scratchpad memory: free-form notes the model keeps, shown in every system prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import MemoryItem, Recall

if TYPE_CHECKING:
    from bizsim.simcore.world import World

__all__ = ["NOTE_TOOL", "ScratchpadMemory"]

NOTE_TOOL = "memory_note"
_MAX_NOTES = 20_000


class ScratchpadMemory:
    """Notes shown in full at the top of the memory section.

    A world with its own scratchpad (``world.scratchpad``, the startup world)
    is read directly; for other worlds the module keeps the notes itself and
    offers the model a ``memory_note`` tool to write them.
    """

    name = "scratchpad"

    def __init__(self, world: World | None = None) -> None:
        self._world = world if world is not None and world.has_scratchpad else None
        self.notes = ""

    @property
    def keeps_notes(self) -> bool:
        """True when the module keeps the notes itself (no world scratchpad): they are what a restart carries."""
        return self._world is None

    @property
    def text(self) -> str:
        """The current notes."""
        return self._world.scratchpad if self._world is not None else self.notes

    def add(self, item: MemoryItem) -> None:
        """Notes change only through the scratchpad commands or the note tool."""

    def recall(self, query: str, now_h: float) -> list[Recall]:
        """The notes, always (highest score)."""
        text = self.text
        return [Recall("Your scratchpad notes:\n" + text, 10.0, "notes")] if text else []

    def tools(self) -> list[dict]:
        """The note tool, for worlds without a scratchpad of their own."""
        if self._world is not None:
            return []
        return [{
            "type": "function",
            "function": {
                "name": NOTE_TOOL,
                "description": "Write notes you want to keep; they are shown in every system prompt.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "description": "The text.", "maxLength": _MAX_NOTES},
                        "mode": {"type": "string", "enum": ["replace", "append"], "default": "replace"},
                    },
                    "required": ["content"],
                    "additionalProperties": False,
                },
            },
        }]

    def handle_tool(self, name: str, arguments: dict) -> dict | None:
        """Run the note tool (``None`` for other tools)."""
        if name != NOTE_TOOL or self._world is not None:
            return None
        content = arguments.get("content")
        mode = arguments.get("mode", "replace")
        if not isinstance(content, str):
            return {"error": f"content(={content!r}) must be text."}
        if mode not in ("replace", "append"):
            return {"error": f"mode(={mode!r}) must be 'replace' or 'append'."}
        joined = content if mode == "replace" or not self.notes else self.notes + "\n" + content
        if len(joined) > _MAX_NOTES:
            return {"error": f"The notes would hold {len(joined)} characters; the limit is {_MAX_NOTES}."}
        self.notes = joined
        return {"ok": True, "content": self.notes}
