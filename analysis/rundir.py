"""The run directory: everything needed to inspect or replay a run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from bizsim.simcore.config import config_to_dict, dump_toml
from bizsim.simcore.errors import ConfigError

if TYPE_CHECKING:
    from .episode import EpisodeResult

__all__ = ["check_run_dir_free", "write_run_dir", "read_command_log"]


def write_run_dir(path: str | Path, result: EpisodeResult) -> Path:
    """Write ``config.toml``, ``commands.jsonl``, ``trajectory.jsonl`` and ``result.json``.

    Files are written to temporary names and renamed, so a reader never sees
    half a file.
    """
    root = Path(path)
    root.mkdir(parents=True, exist_ok=True)
    world = result.final_world
    _atomic(root / "config.toml", dump_toml(config_to_dict(world.config)))
    _atomic(root / "commands.jsonl", "".join(json.dumps({"t_us": t, "line": line}) + "\n" for t, line in world.command_log()))
    _atomic(root / "trajectory.jsonl", world.trajectory.to_jsonl())
    _atomic(root / "result.json", json.dumps(result.to_dict(), indent=2) + "\n")
    return root


def check_run_dir_free(path: str | Path, *, overwrite: bool = False) -> None:
    """Refuse a directory that already holds a run, before a new run is written over it.

    Raises:
        ConfigError: ``path`` holds an LLM run (its recorded model calls cost money: never replaced), or another
            run and ``overwrite`` is false.
    """
    root = Path(path)
    if (root / "run.json").exists():
        raise ConfigError(f"{str(root)!r} holds an LLM run; resume it with --resume or choose another directory")
    if not overwrite and (root / "result.json").exists():
        raise ConfigError(f"{str(root)!r} already holds a run; choose another directory or overwrite it (--overwrite)")


def read_command_log(path: str | Path) -> list[tuple[int, str]]:
    """The ``(t_us, line)`` log of a run directory."""
    rows = Path(path, "commands.jsonl").read_text().splitlines()
    return [(d["t_us"], d["line"]) for d in map(json.loads, rows) if d]


def _atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
