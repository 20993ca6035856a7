"""Recording a live arena episode as it goes, in the layout an arena run has (:func:`~bizsim.runs.arena_run.
execute_arena`): ``config.toml``, the arena's own events in ``trajectory.jsonl``, ``seats/<k>/`` with each seat's
``commands.jsonl``, ``trajectory.jsonl`` and ``result.json``, and the arena's ``result.json`` listing the seats.

After each call the new records of every log are appended, then each seat's ``result.json`` and, last, the arena's
are replaced whole (written beside, renamed over), so a process killed between two calls leaves a directory that
``bizsim verify`` replays to the last answered call. The outside seat's logs are appended first: killed between two
logs of one call, no rival's log runs ahead of the outside seat's, so a resume (which feeds the outside seat's lines
and plays the rivals again) reaches at least where every recorded log stands.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from bizsim.simcore.config import config_to_dict, dump_toml
from bizsim.simcore.files import SwappedFile, open_log, write_text_atomic

from bizsim.runs.rundir import (
    RunDir, check_run_dir_free, command_log_jsonl, make_output_dir, remove_episode_logs, remove_seat_links,
)

if TYPE_CHECKING:
    from bizsim.simcore.arena import ArenaWorld
    from bizsim.simcore.world import World

    from bizsim.runs.record import RunRecord

__all__ = ["ArenaLiveRecorder"]


class _Stream:
    """One world's logs, appended as they grow (its trajectory, and its command log unless it is the arena)."""

    def __init__(self, world: World, run: RunDir, commands: bool) -> None:
        self.world = world
        self.written = 0
        run.root.mkdir(parents=True, exist_ok=True)
        self.trajectory: IO[str] = open_log(run.trajectory)
        self.commands: IO[str] | None = open_log(run.commands) if commands else None

    def flush_new(self, fsync: bool) -> None:
        traj = self.world.trajectory
        new = traj.to_jsonl(self.written)
        if not new:
            return
        lines = command_log_jsonl(self.world.command_log(self.written)) if self.commands is not None else ""
        self.written = len(traj)
        _append(self.trajectory, new, fsync)
        if lines and self.commands is not None:
            _append(self.commands, lines, fsync)

    def close(self) -> None:
        self.trajectory.close()
        if self.commands is not None:
            self.commands.close()


class ArenaLiveRecorder:
    """Records a live arena episode into the run directory ``root`` (the recorder a live core is handed).

    Args:
        root: the run directory (created by :meth:`claim`).
        seat_records: called at each checkpoint for every seat's record, in seat order.
        overwrite: replace a finished run found there (a resume rewrites its own directory).
        fsync: also ``fsync`` the logs after every call.
    """

    def __init__(self, root: str | Path, seat_records: Callable[[], Sequence[RunRecord]], *, overwrite: bool = False,
                 fsync: bool = False) -> None:
        self.root: Path | None = Path(root)
        self.dir = RunDir(root)
        self.seat_records = seat_records
        self.overwrite = overwrite
        self.fsync = fsync
        self._streams: list[_Stream] = []
        self._results: list[SwappedFile] = []

    def __repr__(self) -> str:
        return f"ArenaLiveRecorder({str(self.root)!r})"

    def claim(self, *, calls: bool = False, resume: bool = False) -> None:
        """Refuse a directory that holds a run (unless ``overwrite``), then create it."""
        check_run_dir_free(self.dir.root, overwrite=self.overwrite)
        make_output_dir(self.dir.root)

    def begin(self, world: World, *, header: Any = None, live: bool = True) -> None:
        """Write the arena's config and open every log (``world`` is the outside seat; its arena is recorded)."""
        arena: ArenaWorld = world.arena  # type: ignore[attr-defined]  # a seat's
        write_text_atomic(self.dir.config, dump_toml(config_to_dict(arena.config)))
        remove_episode_logs(self.dir.root)
        remove_seat_links(self.dir.root)
        outside: int = world.seat  # type: ignore[attr-defined]  # a seat's index
        order = [outside, *(k for k in range(len(arena.seats)) if k != outside)]  # the outside seat's logs first
        self._streams = [_Stream(arena, self.dir, commands=False)]
        self._streams += [_Stream(arena.seats[k], self.dir.seat(k), commands=True) for k in order]
        self._results = [SwappedFile(self.dir.seat(k).result) for k in range(len(arena.seats))]
        self._results.append(SwappedFile(self.dir.result))

    def checkpoint(self, world: World, record: RunRecord, *, logs: bool = True) -> None:
        """Append every log's new records (``logs``), then replace each seat's ``result.json``, the arena's last."""
        if not self._results:
            raise RuntimeError("checkpoint() before begin()")
        if logs:
            for stream in self._streams:
                stream.flush_new(self.fsync)
        for result, seat in zip(self._results, self.seat_records()):
            result.write(seat.to_json(indent=None))
        self._results[-1].write(record.to_json(indent=None))

    def finish(self, worlds: Sequence[World], record: RunRecord) -> None:
        """The last checkpoint, ``result.json`` files indented; the logs closed."""
        if not self._results:
            return
        for stream in self._streams:
            stream.flush_new(self.fsync)
            stream.close()
        for result, seat in zip(self._results, self.seat_records()):
            result.close(seat.to_json(indent=2))
        self._results[-1].close(record.to_json(indent=2))
        self._streams, self._results = [], []

    def leave(self) -> None:
        """Stop recording without writing: the directory stays as the last checkpoint left it (the run was cut
        between two turns, a state no replay of its logs reaches)."""
        for stream in self._streams:
            stream.close()
        for result in self._results:
            result.close()
        self._streams, self._results = [], []

    def abandon(self) -> None:
        """Nothing to take back: a live arena writes only once it has begun."""

    # what a live core's recorder is asked and an arena episode never uses
    def recorded_calls(self) -> list[dict]:
        """No model calls: an arena episode refuses LLM seats."""
        return []

    def holds_calls(self) -> bool:
        """Never (see :meth:`recorded_calls`)."""
        return False

    def open_calls(self, *, fsync: bool, redact: Any) -> None:
        """No call log (see :meth:`recorded_calls`)."""
        return None

    def open_commands(self, *, fsync: bool, redact: Any) -> None:
        """No agent command log: each seat's commands are in its folder."""
        return None


def _append(fh: IO[str], text: str, fsync: bool) -> None:
    fh.write(text)
    fh.flush()
    if fsync:
        with contextlib.suppress(OSError):
            os.fsync(fh.fileno())
