"""The run directory: everything needed to inspect or replay a run.

``config.toml``, ``result.json``, and the last episode's ``commands.jsonl``
and ``trajectory.jsonl``. A run restarted after a bankruptcy
(``max_episodes``) keeps each earlier episode's two files in
``episodes/<n>/`` (``n`` from 1): replaying the episodes in order, each
starting with the scratchpad the one before left, rebuilds the last.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from bizsim.simcore.config import config_to_dict, dump_toml
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.files import write_text_atomic
from bizsim.simcore.limits import MAX_INT, MAX_RUN_LOG_BYTES, read_text_file, show
from bizsim.simcore.untrusted_json import read_json_lines
from bizsim.simcore.layout import COMMANDS, CONFIG, EPISODES, RESULT, RUN_SPEC, TRAJECTORY, episode_dir

if TYPE_CHECKING:
    from bizsim.simcore import World

    from bizsim.runs.episode import EpisodeResult
    from bizsim.runs.record import RunRecord

__all__ = ["EPISODES", "check_run_dir_free", "command_log_jsonl", "episode_folders", "make_output_dir", "write_run_dir", "read_command_log",
           "read_episode_logs", "read_record", "read_record_noted", "write_record"]



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


def write_run_dir(path: str | Path, result: EpisodeResult, record: RunRecord | None = None) -> Path:
    """Write ``config.toml``, ``commands.jsonl``, ``trajectory.jsonl`` and, last, ``result.json``.

    ``record`` is what ``result.json`` holds (default: ``result.record()``; an LLM run adds its counters).
    Files are written to temporary names and renamed, so a reader never sees
    half a file, and each is written once.
    """
    root = make_output_dir(path)
    world = result.final_world
    _atomic(root / CONFIG, dump_toml(config_to_dict(world.config)))
    _remove_episode_logs(root)  # an overwritten run's, which may have had more episodes
    for n, earlier in enumerate(result.earlier_worlds, 1):
        _write_logs(episode_dir(root, n), earlier)
    _write_logs(root, world)
    write_record(root, result.record() if record is None else record)
    return root


def _remove_episode_logs(root: Path) -> None:
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


def _write_logs(folder: Path, world: World) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    _atomic(folder / COMMANDS, command_log_jsonl(world.command_log()))
    _atomic(folder / TRAJECTORY, world.trajectory.to_jsonl())


def write_record(path: str | Path, record: RunRecord) -> None:
    """Write ``result.json`` (to a temporary name, then renamed over the old one)."""
    _atomic(Path(path) / RESULT, record.to_json())


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
        ConfigError: ``path`` holds an LLM run (its recorded model calls cost money: never replaced), or another
            run and ``overwrite`` is false.
    """
    root = Path(path)
    if (root / RUN_SPEC).exists():
        raise ConfigError(f"{str(root)!r} holds an LLM run; resume it with --resume or choose another directory")
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


_atomic = write_text_atomic
