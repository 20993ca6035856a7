"""The episode's trajectory: every command and world event, with its instant."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

__all__ = ["Trajectory", "to_json"]


def to_json(obj: Any) -> str:
    """Canonical JSON text (sorted keys, no spaces) used for byte comparisons."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class Trajectory:
    """Append-only records ``(t_us, kind, name, data)``.

    ``kind`` is ``"cmd"`` (data: arguments and result or error), ``"stop"``
    (data: what an advance returned) or ``"event"`` (data: the event's fields).
    Records hold references; nothing is serialised until asked.
    """

    __slots__ = ("records",)

    def __init__(self) -> None:
        self.records: list[tuple[int, str, str, Any]] = []

    def add(self, t_us: int, kind: str, name: str, data: Any) -> None:
        """Append one record."""
        self.records.append((t_us, kind, name, data))

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[tuple[int, str, str, Any]]:
        return iter(self.records)

    def count(self, kind: str) -> int:
        """How many records of a kind."""
        return sum(1 for r in self.records if r[1] == kind)

    def as_dicts(self) -> list[dict]:
        """The records as JSON-able dicts."""
        return [{"t_us": t, "kind": k, "name": n, "data": d} for t, k, n, d in self.records]

    def to_jsonl(self) -> str:
        """One canonical JSON object a line; equal trajectories give equal text."""
        return "".join(to_json(d) + "\n" for d in self.as_dicts())
