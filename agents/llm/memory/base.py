"""The memory contract: modules observe the conversation and recall what fits a query."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import attrs

__all__ = ["MemoryItem", "MemoryManager", "MemoryModule", "Recall"]

_ITEM_CHARS = 300
_SECTIONS = (("notes", "Notes"), ("variables", "Variables"), ("memories", "Relevant memories"), ("history", "Recent history"))


@attrs.frozen
class MemoryItem:
    """One thing that happened: a message of a turn, with when it happened.

    ``data`` holds a tool result's parsed JSON and ``command`` the command
    that produced it, for modules that read structure (the state table).
    """

    text: str
    role: str
    turn: int
    t_h: float
    command: str | None = None
    data: Any = attrs.field(default=None, eq=False)


@attrs.frozen
class Recall:
    """A remembered item with its relevance (higher first) and the section it belongs in."""

    text: str
    score: float
    section: str
    turn: int = 0
    #: The remembered message itself, without the module's label: what de-duplication compares (default: ``text``).
    content: str | None = None


@runtime_checkable
class MemoryModule(Protocol):
    """A memory: it sees every item of the conversation and answers queries."""

    name: str

    def add(self, item: MemoryItem) -> None:
        """Remember one item."""
        ...

    def recall(self, query: str, now_h: float) -> list[Recall]:
        """Items relevant to ``query`` at simulated hour ``now_h``, best first."""
        ...


class MemoryManager:
    """Runs a set of modules: feeds them the turn's items, merges their recalls into one prompt section.

    Recalls from all modules are sorted by score, de-duplicated by the
    lower-cased message they recall (not the modules' labels) and cut to
    ``limit``; the section is appended to the system prompt. Notes are shown
    in full: the note tool bounds them.
    """

    def __init__(self, modules: Sequence[MemoryModule] = (), limit: int = 15) -> None:
        self.modules = list(modules)
        self.limit = limit
        #: What the last :meth:`section` recalled (the viewer shows it as the memory at that turn).
        self.last_recalls: list[Recall] = []

    def __bool__(self) -> bool:
        return bool(self.modules)

    def observe(self, items: Sequence[MemoryItem]) -> None:
        """Give every module the items of one turn."""
        for module in self.modules:
            for item in items:
                module.add(item)

    def recall(self, query: str, now_h: float) -> list[Recall]:
        """The merged, de-duplicated, best-first recalls."""
        hits = [r for m in self.modules for r in m.recall(query, now_h)]
        hits.sort(key=lambda r: -r.score)
        seen, out = set(), []
        for r in hits:
            # the raw message, as EcoGym's manager compares: the same message recalled by two modules is shown once
            key = (r.text if r.content is None else r.content).strip().lower()
            if key in seen:
                continue
            seen.add(key)
            out.append(r)
            if len(out) >= self.limit:
                break
        return out

    def section(self, query: str, now_h: float) -> str:
        """The text appended to the system prompt ('' when nothing is recalled)."""
        if not self.modules:
            return ""
        recalls = self.last_recalls = self.recall(query, now_h)
        if not recalls:
            return ""
        parts = ["\n\n## Memory (retrieved for this turn)"]
        for key, title in _SECTIONS:
            rows = [r for r in recalls if r.section == key]
            if not rows:
                continue
            parts.append(f"{title}:")
            for r in rows:
                if key == "notes":
                    parts.append(r.text)
                else:
                    parts.append("- " + (r.text if len(r.text) <= _ITEM_CHARS else r.text[:_ITEM_CHARS] + "…"))
        return "\n".join(parts)

    def tools(self) -> list[dict]:
        """Extra tools the modules offer the model."""
        out: list[dict] = []
        for m in self.modules:
            out.extend(getattr(m, "tools", list)())
        return out

    def handle_tool(self, name: str, arguments: dict) -> dict | None:
        """Run a memory tool; ``None`` when no module owns ``name``."""
        for m in self.modules:
            handler = getattr(m, "handle_tool", None)
            if handler is not None:
                out = handler(name, arguments)
                if out is not None:
                    return out
        return None
