"""The episode's trajectory: every command and world event, with its instant."""

from __future__ import annotations

import json
import marshal
from collections.abc import Callable, Container, Iterator
from typing import Any

__all__ = ["Trajectory", "to_json"]


def to_json(obj: Any) -> str:
    """Canonical JSON text (sorted keys, no spaces) used for byte comparisons."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class Trajectory:
    """Append-only records ``(t_us, kind, name, data)``.

    ``kind`` is ``"cmd"`` (data: arguments and result or error), ``"stop"``
    (data: what an advance returned) or ``"event"`` (data: the event's fields).
    Each record's data is frozen (marshalled) when it is added, so an agent
    that later changes a result it was handed cannot rewrite history; JSON
    text is produced only when asked for.
    """

    __slots__ = ("_rows",)

    def __init__(self) -> None:
        self._rows: list[tuple[int, str, str, bytes]] = []

    def add(self, t_us: int, kind: str, name: str, data: Any) -> None:
        """Append one record (JSON-able data: dicts, lists, text, numbers, booleans, None)."""
        self._rows.append((t_us, kind, name, marshal.dumps(data)))

    def appender(self) -> Callable[[tuple[int, str, str, bytes]], None]:
        """The raw append of packed records ``(t_us, kind, name, marshal.dumps(data))``, for hot paths.

        Equivalent to :meth:`add` for callers that marshal the data themselves.
        """
        return self._rows.append

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[tuple[int, str, str, Any]]:
        for t, k, n, blob in self._rows:
            yield t, k, n, marshal.loads(blob)

    def heads_since(self, start: int) -> list[tuple[str, str]]:
        """``(kind, name)`` of the records from index ``start`` on (what one step added, for drivers), unpacking
        nothing."""
        return [(r[1], r[2]) for r in self._rows[start:]]

    def of_kind(self, kind: str, start: int = 0) -> Iterator[tuple[int, str, Any]]:
        """``(t_us, name, data)`` of every record of one kind (from record number ``start`` on)."""
        for t, k, n, blob in self._rows[start:] if start else self._rows:
            if k == kind:
                yield t, n, marshal.loads(blob)

    def excluding(self, kinds: Container[str]) -> Iterator[tuple[int, str, str, Any]]:
        """Every record but those of ``kinds``, which are not even unpacked."""
        for t, k, n, blob in self._rows:
            if k not in kinds:
                yield t, k, n, marshal.loads(blob)

    def count(self, kind: str) -> int:
        """How many records of a kind."""
        return sum(1 for r in self._rows if r[1] == kind)

    def as_dicts(self) -> list[dict[str, Any]]:
        """The records as JSON-able dicts."""
        return [{"t_us": t, "kind": k, "name": n, "data": d} for t, k, n, d in self]

    def to_jsonl(self, start: int = 0) -> str:
        """One canonical JSON object a line; equal trajectories give equal text.

        ``start`` skips the first records: a recorder appending as the episode goes writes only the new ones.
        """
        return "".join(
            to_json({"data": marshal.loads(blob), "kind": k, "name": n, "t_us": t}) + "\n"
            for t, k, n, blob in (self._rows[start:] if start else self._rows)
        )
