"""The run directory's one owner: every file name bizsim writes, and the reads and writes of them.

No other module names a run file (``tests/test_run_dir_owner.py`` greps): they ask a :class:`RunDir` (a run) or a
:class:`SweepDir` (a sweep) for a path or a read. A run directory (``bizsim run --out DIR``, an LLM run, a
sweep's ``runs/<id>``) holds:

- ``config.toml``: the world's config, complete (no ``extends``);
- ``result.json``: the run's :class:`~bizsim.runs.record.RunRecord`, written once, when the run ends;
- ``commands.jsonl`` and ``trajectory.jsonl``: the last episode's timed command log and trajectory;
- ``episodes/<n>/`` (``n`` from 1): the same two files for each earlier episode of a run restarted after a
  bankruptcy (``max_episodes``); replaying the episodes in order, each starting with the scratchpad the one before
  left, rebuilds the last;
- for an LLM run, ``run.json`` (what determines it, written first), ``llm_calls.jsonl`` and
  ``agent_commands.jsonl`` (appended as they happen, so a killed run resumes);
- for a live episode played from outside (``bizsim mcp``, ``bizsim serve``), ``live.lock`` (held while the
  episode is open) and, for ``bizsim serve``, the socket ``episode.sock``; its logs are appended and
  ``result.json`` rewritten after every answered call;
- for a run imported from another harness (``bizsim import``), ``imported.json``: its source, the outcome the
  source recorded and the fidelity report of the replay;
- for an arena run (several seats in one world), ``result.json`` lists the seats and ``trajectory.jsonl`` holds
  the arena's own events (the shared day's end), and ``seats/<k>/`` (``k`` from 0) is a record per seat: its
  ``commands.jsonl``, ``trajectory.jsonl`` and ``result.json`` (the seat's own record) and, for a seat whose
  agent calls a model, its ``llm_calls.jsonl`` and ``agent_commands.jsonl``. Replaying every seat's command log
  in the arena's turn order rebuilds the arena. An arena with a seat whose agent calls a model also holds
  ``arena.json`` (its spec, written before the seats play: what a resume checks and rebuilds the arena from).

A sweep directory holds ``results.jsonl`` (one record a run), ``sweep.json`` (every spec asked for),
``runs/<run id>/``, the Parquet tables with their stamp ``tables.json``, and ``report/``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.jsonl import read_jsonl
from bizsim.simcore.limits import MAX_INT, MAX_RUN_LOG_BYTES, read_text_file, show
from bizsim.simcore.untrusted_json import read_json_lines

if TYPE_CHECKING:
    from bizsim.runs.record import RunRecord

__all__ = ["RunDir", "SweepDir", "check_run_dir_free", "command_log_jsonl", "episode_folders", "make_output_dir",
           "read_command_log", "read_episode_logs", "read_record", "read_record_noted", "remove_episode_logs",
           "remove_seat_links"]

CONFIG = "config.toml"
RESULT = "result.json"
COMMANDS = "commands.jsonl"
TRAJECTORY = "trajectory.jsonl"
EPISODES = "episodes"
RUN_SPEC = "run.json"
LLM_CALLS = "llm_calls.jsonl"
AGENT_COMMANDS = "agent_commands.jsonl"
LIVE_LOCK = "live.lock"
SOCKET = "episode.sock"
IMPORTED = "imported.json"
SEATS = "seats"
ARENA_SPEC = "arena.json"
RESULTS = "results.jsonl"
MANIFEST = "sweep.json"
RUNS = "runs"
REPORT = "report"
TABLES_STAMP = "tables.json"


class RunDir:
    """One run directory: where each of its files is, and the reads the run's readers share.

    It reads; :class:`~bizsim.runs.recorder.RunDirRecorder` writes through its paths.

    >>> run = RunDir("out/run1")
    >>> run.result.name, run.episode(2).commands.as_posix()
    ('result.json', 'out/run1/episodes/2/commands.jsonl')
    """

    __slots__ = ("root",)

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def __str__(self) -> str:
        return str(self.root)

    def __repr__(self) -> str:
        return f"RunDir({str(self.root)!r})"

    def __fspath__(self) -> str:  # a RunDir goes wherever a path to the run goes (``execute(spec, out=run)``)
        return str(self.root)

    @property
    def config(self) -> Path:
        """The world's config, complete."""
        return self.root / CONFIG

    @property
    def result(self) -> Path:
        """The run's record, :class:`~bizsim.runs.record.RunRecord`."""
        return self.root / RESULT

    @property
    def commands(self) -> Path:
        """The last episode's timed command log."""
        return self.root / COMMANDS

    @property
    def trajectory(self) -> Path:
        """The last episode's trajectory."""
        return self.root / TRAJECTORY

    @property
    def run_spec(self) -> Path:
        """An LLM run's spec, written before its first call."""
        return self.root / RUN_SPEC

    @property
    def llm_calls(self) -> Path:
        """An LLM run's model calls, appended as they happen."""
        return self.root / LLM_CALLS

    @property
    def agent_commands(self) -> Path:
        """An LLM run's commands as the model issued them."""
        return self.root / AGENT_COMMANDS

    @property
    def live_lock(self) -> Path:
        """Held while a live episode is open."""
        return self.root / LIVE_LOCK

    @property
    def socket(self) -> Path:
        """``bizsim serve``'s socket."""
        return self.root / SOCKET

    @property
    def imported(self) -> Path:
        """Where an imported run came from and how faithfully it replayed."""
        return self.root / IMPORTED

    @property
    def episodes(self) -> Path:
        """The folder of the earlier episodes' logs."""
        return self.root / EPISODES

    def episode(self, n: int) -> RunDir:
        """Earlier episode ``n`` (from 1) of a restarted run: a folder with its own two logs."""
        return RunDir(self.root / EPISODES / str(n))

    @property
    def seats(self) -> Path:
        """An arena run's folder of seat records."""
        return self.root / SEATS

    def seat(self, k: int) -> RunDir:
        """Seat ``k`` (from 0) of an arena run: a folder with the seat's own logs and record."""
        return RunDir(self.root / SEATS / str(int(k)))

    @property
    def arena_spec(self) -> Path:
        """An arena run's spec when a seat's agent calls a model, written before the seats play (so an interrupted
        arena resumes)."""
        return self.root / ARENA_SPEC

    def holds_arena_spec(self) -> bool:
        """Whether an arena with model-calling seats was started here (finished or not)."""
        return self.arena_spec.exists()

    def seat_dirs(self) -> list[RunDir]:
        """An arena run's seat folders, in seat order (0, 1, ... while each exists; at most a roster's limit, so a
        directory edited to hold many more is not walked whole)."""
        from bizsim.runs.roster import MAX_SEATS

        out: list[RunDir] = []
        while len(out) < MAX_SEATS and (self.root / SEATS / str(len(out))).is_dir():
            out.append(self.seat(len(out)))
        return out

    def is_arena(self) -> bool:
        """Whether this is an arena run's directory (it has seat records)."""
        return (self.root / SEATS / "0").is_dir()

    def is_run(self) -> bool:
        """Whether this looks like a run directory, finished or still being written."""
        return self.root.is_dir() and any(p.exists() for p in (self.trajectory, self.run_spec, self.result))

    def is_llm(self) -> bool:
        """Whether an LLM harness played the run (it has a ``run.json``)."""
        return self.run_spec.exists()

    def is_finished(self) -> bool:
        """Whether the run's record is written."""
        return self.result.exists()

    def read_record(self) -> RunRecord:
        """The run's record (see :func:`read_record`)."""
        return read_record(self.root)

    def read_calls(self) -> list[dict]:
        """The recorded model calls, read bounded; a torn last line is skipped."""
        return read_jsonl(self.llm_calls)

    def read_agent_commands(self) -> list[dict]:
        """The commands the model issued, read bounded."""
        return read_jsonl(self.agent_commands)

    def holds_calls(self) -> bool:
        """Whether a model call is recorded already."""
        return self.llm_calls.exists() and self.llm_calls.stat().st_size > 0


class SweepDir:
    """A sweep directory: its results file, its runs and its report.

    >>> SweepDir("sw").run("a1").root.as_posix(), SweepDir("sw").results.name
    ('sw/runs/a1', 'results.jsonl')
    """

    __slots__ = ("root",)

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def __str__(self) -> str:
        return str(self.root)

    @property
    def results(self) -> Path:
        """One record a run, appended as runs end."""
        return self.root / RESULTS

    @property
    def manifest(self) -> Path:
        """Every spec the sweep was ever asked for, in order."""
        return self.root / MANIFEST

    @property
    def runs(self) -> Path:
        """The folder of the runs' directories."""
        return self.root / RUNS

    @property
    def report(self) -> Path:
        """Where ``bizsim report`` writes by default."""
        return self.root / REPORT

    def table(self, name: str) -> Path:
        """The Parquet file of one of the sweep's tables (``runs``, ``series``, ``events``, ``llm_calls``)."""
        return self.root / f"{name}.parquet"

    @property
    def tables_stamp(self) -> Path:
        """What the Parquet tables were built from (to tell when they are stale)."""
        return self.root / TABLES_STAMP

    def run(self, run_id: str) -> RunDir:
        """The run directory of one run of the sweep."""
        return RunDir(self.root / RUNS / run_id)

    def is_sweep(self) -> bool:
        """Whether this is a sweep directory (it has a results file)."""
        return self.results.is_file()


def make_output_dir(path: str | Path) -> Path:
    """Create ``path`` and its parents for output; a path that cannot be one is a :class:`ConfigError` saying why.

    >>> make_output_dir("/dev/null/x")
    Traceback (most recent call last):
    ...
    bizsim.simcore.errors.ConfigError: cannot write to '/dev/null/x': Not a directory
    """
    root = Path(path)
    if root.exists() and not root.is_dir():
        raise ConfigError(f"{str(root)!r} is a file, not a directory; choose another directory")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot write to {str(root)!r}: {exc.strerror or exc}") from None
    return root


def remove_episode_logs(root: Path) -> None:
    """Delete the earlier-episode logs of a run directory; anything else in ``episodes/`` stays, and a link
    found there is removed itself, never followed."""
    folder = root / EPISODES
    if folder.is_symlink():  # never delete through a link: remove the link itself
        folder.unlink()
        return
    if not folder.is_dir():
        return
    for sub in folder.iterdir():
        if sub.is_symlink():
            sub.unlink()
        elif sub.is_dir() and sub.name.isdigit():
            for name in (COMMANDS, TRAJECTORY):
                (sub / name).unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                sub.rmdir()  # only if nothing else is in it
    with contextlib.suppress(OSError):
        folder.rmdir()


def remove_seat_links(root: Path) -> None:
    """Remove a link at an arena run's ``seats`` or ``seats/<k>`` itself, never what it points to, so a run
    written there neither writes into nor deletes from a folder outside its directory."""
    from bizsim.runs.roster import MAX_SEATS

    folder = root / SEATS
    if folder.is_symlink():  # never write or delete through a link: remove the link itself
        folder.unlink()
        return
    if not folder.is_dir():
        return
    for k in range(MAX_SEATS):  # the seats a reader walks (RunDir.seat_dirs); bounded however many names there are
        seat = folder / str(k)
        if seat.is_symlink():
            seat.unlink()


def read_record(path: str | Path) -> RunRecord:
    """The :class:`~bizsim.runs.record.RunRecord` of a run directory, read bounded and depth-checked.

    Raises:
        ConfigError: no ``result.json`` (not a finished run directory), or one that is too large, too deep, not
            JSON or not a run's record.
    """
    from bizsim.runs.record import MAX_RECORD_BYTES, RunRecord

    root = Path(path)
    if not (root / RESULT).exists():
        raise ConfigError(f"{str(root)!r} is not a finished run directory: it has no {RESULT}")
    text = read_text_file(root / RESULT, RESULT, MAX_RECORD_BYTES)
    try:
        return RunRecord.from_json(text)
    except ConfigError as exc:
        raise ConfigError(f"{str(root)!r}: {exc}") from None


def read_record_noted(path: str | Path, problems: list[str]) -> RunRecord | None:
    """For a reader that shows what it can (the viewer): the record, or ``None`` when the run has none yet; a
    damaged one is noted in ``problems`` (``result.json: ...``), never raised."""
    file = Path(path) / RESULT
    if not file.exists():
        return None
    if not file.is_file():  # a directory, a FIFO or a device where the record belongs
        problems.append(f"{RESULT} is not a regular file; not shown")
        return None
    try:
        return read_record(path)
    except ConfigError as exc:
        problems.append(f"{RESULT}: {str(exc).split(': ', 1)[-1]}; not shown")
        return None


def check_run_dir_free(path: str | Path, *, overwrite: bool = False) -> None:
    """Refuse a directory that already holds a run, before a new run is written over it.

    Raises:
        ConfigError: ``path`` holds an LLM run or an arena run with LLM seats (its recorded model calls cost money:
            never replaced), or another
            run and ``overwrite`` is false.
    """
    root = Path(path)
    if (root / RUN_SPEC).exists():
        raise ConfigError(f"{str(root)!r} holds an LLM run; resume it with --resume or choose another directory")
    if (root / ARENA_SPEC).exists():
        raise ConfigError(f"{str(root)!r} holds an arena run with LLM seats (their recorded calls were paid for); "
                          "resume it with --resume or choose another directory")
    if not overwrite and (root / RESULT).exists():
        raise ConfigError(f"{str(root)!r} already holds a run; choose another directory or overwrite it (--overwrite)")


def command_log_jsonl(log: Iterable[tuple[int, str]]) -> str:
    """``commands.jsonl``'s text for ``(t_us, line)`` entries: one JSON object a line (what a fork's digest pins)."""
    return "".join(json.dumps({"t_us": t, "line": line}) + "\n" for t, line in log)


def read_command_log(path: str | Path) -> list[tuple[int, str]]:
    """The ``(t_us, line)`` log of a run directory (its last episode).

    The file is read as every file from outside is (bounded, UTF-8, depth-checked: a run directory may have been
    edited by anyone who could write it).

    Raises:
        ConfigError: the file is missing, unreadable, past :data:`MAX_RUN_LOG_BYTES`, or a line is not a
            ``{"t_us": ..., "line": ...}`` record (the line named).
    """
    file = Path(path, COMMANDS)
    out = []
    for i, (_, d) in enumerate(read_json_lines(file, COMMANDS, MAX_RUN_LOG_BYTES), 1):
        t_us = d.get("t_us") if isinstance(d, dict) else None
        if not (type(t_us) is int and 0 <= t_us <= MAX_INT and isinstance(d.get("line"), str)):
            raise ConfigError(f"{str(file)!r} line {i:,} is not a command record {{t_us, line}}: {show(d)}")
        out.append((t_us, d["line"]))
    return out


def episode_folders(path: str | Path) -> list[Path]:
    """Where each episode's ``commands.jsonl`` and ``trajectory.jsonl`` are, oldest first."""
    root = Path(path)
    earlier: list[Path] = []
    while (root / EPISODES / str(len(earlier) + 1) / COMMANDS).exists():
        earlier.append(root / EPISODES / str(len(earlier) + 1))
    return [*earlier, root]


def read_episode_logs(path: str | Path) -> list[list[tuple[int, str]]]:
    """The ``(t_us, line)`` log of every episode of a run directory, oldest first."""
    return [read_command_log(folder) for folder in episode_folders(path)]


