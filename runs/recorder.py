"""The only writer of a run: a :class:`Recorder` is handed to whatever plays it, and nothing else writes a run file.

Two recorders: :class:`RunDirRecorder` (a run directory, whose file names :class:`~bizsim.runs.rundir.RunDir` owns)
and :class:`NullRecorder` (nothing kept). A run's life, as a recorder sees it:

- ``claim`` before anything runs: the directory is checked (a finished run is replaced only when asked, a model
  run never) and created, so an unusable path fails before the run, not after it;
- ``begin`` when the run's first world exists: a model-calling run's spec (``run.json``) is written first, a live
  episode's ``config.toml`` and its logs are opened;
- the model calls and the agent's commands, appended as they happen through the two channels the recorder hands
  the LLM harness (``open_calls``, ``open_commands``: the harness never names a file);
- ``checkpoint`` after each call of a live episode: the world's new trajectory records and commands appended,
  ``result.json`` replaced whole (world events reach the record here and at ``finish``: the trajectory holds them,
  so a baseline's year writes nothing until it ends and keeps its speed);
- ``finish`` when it ends: every episode's logs (unless they were streamed) and, last, ``result.json``;
- ``abandon`` for a run that never started (its pre-flight call failed): what ``begin`` wrote is taken back.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol, runtime_checkable

from bizsim.simcore.config import config_to_dict, dump_toml
from bizsim.simcore.files import SwappedFile, open_log, write_json_atomic, write_text_atomic
from bizsim.simcore.jsonl import JsonlWriter

from bizsim.runs._results_file import ResultsWriter
from bizsim.runs.rundir import (
    RunDir, SweepDir, check_run_dir_free, command_log_jsonl, make_output_dir, remove_episode_logs, remove_seat_links,
)
from bizsim.runs.runspec import RunSpec

if TYPE_CHECKING:
    from bizsim.simcore.world import World

    from bizsim.runs.record import RunRecord

__all__ = ["NullRecorder", "Recorder", "RunDirRecorder", "SweepRecorder", "recorder_for", "write_run_dir"]


@runtime_checkable
class Recorder(Protocol):
    """What a run is recorded through (see the module's docstring for when each is called)."""

    #: The run directory, or ``None`` for a recorder that keeps nothing.
    root: Path | None

    def claim(self, *, calls: bool = False, resume: bool = False) -> None:
        """Take the place before the run starts (``calls``: the run records model calls; ``resume``: it goes on)."""
        ...

    def begin(self, world: World, *, header: Mapping[str, Any] | None = None, live: bool = False) -> None:
        """The run starts on ``world``; ``header`` is a model run's spec, ``live`` streams the logs as it goes."""
        ...

    def recorded_calls(self) -> list[dict]:
        """The model calls recorded so far (a resumed run replays them)."""
        ...

    def holds_calls(self) -> bool:
        """Whether a model call is recorded already."""
        ...

    def open_calls(self, *, fsync: bool, redact: Callable[[str], str] | None) -> JsonlWriter | None:
        """The model-call channel, appended to as each call is answered."""
        ...

    def open_commands(self, *, fsync: bool, redact: Callable[[str], str] | None) -> JsonlWriter | None:
        """The channel of the agent's commands as it issued them (written anew: a resume re-executes them)."""
        ...

    def checkpoint(self, world: World, record: RunRecord, *, logs: bool = True) -> None:
        """A live episode answered a call: append the world's new records (``logs``) and replace ``result.json``."""
        ...

    def finish(self, worlds: Sequence[World], record: RunRecord) -> None:
        """The run ended: the episodes' logs (``worlds``, oldest first) and, last, its record."""
        ...

    def abandon(self) -> None:
        """The run never started: take back what :meth:`begin` wrote."""
        ...


class NullRecorder:
    """Keeps nothing: a run played for its result only."""

    root: Path | None = None

    def claim(self, *, calls: bool = False, resume: bool = False) -> None:
        """Nothing to take."""
        if resume:
            from bizsim.simcore.errors import ConfigError

            raise ConfigError("resuming needs the run directory (out=...)")

    def begin(self, world: World, *, header: Mapping[str, Any] | None = None, live: bool = False) -> None:
        """Nothing to write."""

    def recorded_calls(self) -> list[dict]:
        """None were kept."""
        return []

    def holds_calls(self) -> bool:
        """None were kept."""
        return False

    def open_calls(self, *, fsync: bool, redact: Callable[[str], str] | None) -> None:
        """No channel: calls are not kept."""
        return None

    def open_commands(self, *, fsync: bool, redact: Callable[[str], str] | None) -> None:
        """No channel: commands are not kept."""
        return None

    def checkpoint(self, world: World, record: RunRecord, *, logs: bool = True) -> None:
        """Nothing to write."""

    def finish(self, worlds: Sequence[World], record: RunRecord) -> None:
        """Nothing to write."""

    def abandon(self) -> None:
        """Nothing was written."""

    def seat(self, k: int) -> NullRecorder:
        """An arena seat's recorder: nothing kept either."""
        return NullRecorder()

    def finish_arena(self, arena: World, record: RunRecord, seats: Sequence[RunRecord]) -> None:
        """Nothing to write."""

    def arena_header(self, header: Mapping[str, Any]) -> None:
        """Nothing to write."""


class RunDirRecorder:
    """Records a run into the run directory ``root`` (its layout: :mod:`bizsim.runs.rundir`).

    Args:
        root: the run directory (created by :meth:`claim`).
        overwrite: replace a finished run found there (a model run's directory is never replaced).
        fsync: also ``fsync`` a live episode's logs after every call (survives power loss, not just a kill).
    """

    def __init__(self, root: str | Path, *, overwrite: bool = False, fsync: bool = False) -> None:
        self.root: Path | None = Path(root)
        self.dir = RunDir(root)
        self.overwrite = overwrite
        self.fsync = fsync
        self._created = False
        self._streams: tuple[IO[str], IO[str]] | None = None
        self._result: SwappedFile | None = None
        self._written = 0  # trajectory records already in the streamed trajectory

    def __repr__(self) -> str:
        return f"RunDirRecorder({str(self.root)!r})"

    def __fspath__(self) -> str:
        return str(self.root)

    def claim(self, *, calls: bool = False, resume: bool = False) -> None:
        """Refuse a directory that holds a run (unless resuming it or ``overwrite``), then create it."""
        from bizsim.simcore.errors import ConfigError

        if resume:
            return
        if calls and self.dir.run_spec.exists():
            raise ConfigError(f"{str(self.root)!r} already holds a run; resume it with --resume or choose another --out")
        check_run_dir_free(self.dir.root, overwrite=self.overwrite and not calls)
        self._created = not self.dir.root.exists()
        make_output_dir(self.dir.root)

    def begin(self, world: World, *, header: Mapping[str, Any] | None = None, live: bool = False) -> None:
        """Write a model run's spec, or open a live episode's logs (its config first)."""
        if header is not None:
            write_json_atomic(self.dir.run_spec, dict(header))
        if live:
            write_text_atomic(self.dir.config, dump_toml(config_to_dict(world.config)))
            remove_episode_logs(self.dir.root)  # an overwritten run's earlier episodes
            self._streams = (open_log(self.dir.trajectory), open_log(self.dir.commands))
            self._result = SwappedFile(self.dir.result)
            self._written = 0

    def note_import(self, data: Mapping[str, Any]) -> None:
        """Keep where an imported run came from and how faithfully it replayed (``bizsim import``)."""
        write_json_atomic(self.dir.imported, dict(data))

    def note_resume(self, header: Mapping[str, Any]) -> None:
        """Replace a resumed model run's spec with ``header`` (its list of resumes grown by one)."""
        write_json_atomic(self.dir.run_spec, dict(header))

    # The LLM harness's channels (HarnessLogs).
    def recorded_calls(self) -> list[dict]:
        """Every model call recorded so far, oldest first (read bounded; a torn last line is skipped)."""
        return self.dir.read_calls()

    def holds_calls(self) -> bool:
        """Whether a model call is recorded already."""
        return self.dir.holds_calls()

    def open_calls(self, *, fsync: bool, redact: Callable[[str], str] | None) -> JsonlWriter:
        """The call log, opened for appending."""
        return JsonlWriter(self.dir.llm_calls, fsync=fsync, redact=redact)

    def open_commands(self, *, fsync: bool, redact: Callable[[str], str] | None) -> JsonlWriter:
        """The agent's command log, opened empty."""
        return JsonlWriter(self.dir.agent_commands, fsync=fsync, truncate=True, redact=redact)

    def checkpoint(self, world: World, record: RunRecord, *, logs: bool = True) -> None:
        """Append the world's records since the last checkpoint (``logs``), then replace ``result.json``."""
        if self._streams is None or self._result is None:
            raise RuntimeError("checkpoint() before begin(live=True)")
        if logs:
            new = world.trajectory.to_jsonl(self._written)
            if new:
                lines = command_log_jsonl(world.command_log(self._written))
                self._written = len(world.trajectory)
                _append(self._streams[0], new, self.fsync)
                if lines:
                    _append(self._streams[1], lines, self.fsync)
        self._result.write(record.to_json(indent=None))  # compact while open: the indenting encoder costs ~1 ms

    def finish(self, worlds: Sequence[World], record: RunRecord) -> None:
        """Write every episode's config and logs (a live episode's are streamed already), then ``result.json``."""
        if self._result is not None and self._streams is not None:
            self._result.close(record.to_json(indent=2))
            for stream in self._streams:
                stream.close()
            self._streams = self._result = None
            return
        root = make_output_dir(self.dir.root)
        last = worlds[-1]
        write_text_atomic(self.dir.config, dump_toml(config_to_dict(last.config)))
        remove_episode_logs(root)  # an overwritten run's, which may have had more episodes
        for n, earlier in enumerate(worlds[:-1], 1):
            _write_logs(self.dir.episode(n), earlier)
        _write_logs(self.dir, last)
        write_text_atomic(self.dir.result, record.to_json())

    def seat(self, k: int) -> RunDirRecorder:
        """The recorder of arena seat ``k``'s folder: an LLM seat's calls and commands go through it."""
        remove_seat_links(self.dir.root)
        return RunDirRecorder(self.dir.seat(k).root, overwrite=self.overwrite, fsync=self.fsync)

    def arena_header(self, header: Mapping[str, Any]) -> None:
        """Write (or replace, on a resume) the spec of an arena with LLM seats, before its seats play."""
        write_json_atomic(self.dir.arena_spec, dict(header))

    def finish_arena(self, arena: World, record: RunRecord, seats: Sequence[RunRecord]) -> None:
        """Write an arena run: its config and own events, each seat's command log, trajectory and record, then,
        last, the arena's ``result.json`` (so a directory with one holds every seat)."""
        make_output_dir(self.dir.root)
        remove_seat_links(self.dir.root)  # before the stale seats are deleted and the seats written
        write_text_atomic(self.dir.config, dump_toml(config_to_dict(arena.config)))
        write_text_atomic(self.dir.trajectory, arena.trajectory.to_jsonl())
        for stale in self.dir.seat_dirs()[len(seats):]:  # an overwritten arena's extra seats
            for path in (stale.commands, stale.trajectory, stale.result):
                path.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                stale.root.rmdir()  # only if nothing else is in it
        for k, (seat, seat_record) in enumerate(zip(arena.seats, seats, strict=True)):  # type: ignore[attr-defined]
            folder = self.dir.seat(k)
            _write_logs(folder, seat)
            write_text_atomic(folder.result, seat_record.to_json())
        write_text_atomic(self.dir.result, record.to_json())

    def abandon(self) -> None:
        """Delete what a model run that never started wrote (its spec and empty logs), and the directory if this
        recorder made it and nothing else is in it."""
        for path in (self.dir.run_spec, self.dir.llm_calls, self.dir.agent_commands):
            path.unlink(missing_ok=True)
        if self._created:
            with contextlib.suppress(OSError):
                self.dir.root.rmdir()


class SweepRecorder:
    """Records a sweep into its directory: the specs asked for (``sweep.json``) and one record a run as each ends
    (``results.jsonl``); each run's own directory has its :class:`RunDirRecorder`."""

    def __init__(self, root: str | Path) -> None:
        self.dir = SweepDir(root)

    def results(self) -> ResultsWriter:
        """The results file, opened for appending (a torn last line is cut off first)."""
        return ResultsWriter(self.dir.results)

    def manifest(self, specs: Mapping[str, RunSpec]) -> None:
        """Add the specs (by run id) not yet in ``sweep.json``; a damaged one is written anew from them."""
        import json

        from bizsim.simcore.errors import ConfigError
        from bizsim.simcore.limits import MAX_RUN_LOG_BYTES
        from bizsim.simcore.untrusted_json import read_json_file

        path = self.dir.manifest
        known: list[dict] = []
        if path.exists():
            try:  # bounded and depth-checked, as every file that may have been edited is read
                data = read_json_file(path, path.name, MAX_RUN_LOG_BYTES)
                known = data.get("specs", []) if isinstance(data, dict) else []
            except ConfigError:
                known = []
        seen = {RunSpec.from_dict(d, recorded=True).run_id for d in known}
        known += [s.to_dict() for rid, s in specs.items() if rid not in seen]
        write_text_atomic(path, json.dumps({"version": 1, "specs": known}, indent=1) + "\n")


def recorder_for(out: str | Path | Recorder | None, *, overwrite: bool = False) -> Recorder:
    """The recorder of a run given ``out``: a recorder as it is, a directory's, or one that keeps nothing."""
    if out is None:
        return NullRecorder()
    if isinstance(out, (str, os.PathLike)) and not isinstance(out, RunDirRecorder):
        return RunDirRecorder(out, overwrite=overwrite)
    return out


def write_run_dir(path: str | Path, result: Any, record: RunRecord | None = None) -> Path:
    """Write a finished run (an :class:`~bizsim.runs.episode.EpisodeResult`) into ``path``, replacing what is there:
    its config, every episode's logs and, last, ``result.json`` (``record``, default ``result.record()``)."""
    RunDirRecorder(path).finish(result.worlds, result.record() if record is None else record)
    return Path(path)


def _write_logs(run: RunDir, world: World) -> None:
    run.root.mkdir(parents=True, exist_ok=True)
    write_text_atomic(run.commands, command_log_jsonl(world.command_log()))
    write_text_atomic(run.trajectory, world.trajectory.to_jsonl())


def _append(fh: IO[str], text: str, fsync: bool) -> None:
    fh.write(text)
    fh.flush()
    if fsync:
        os.fsync(fh.fileno())
