"""Where a report came from: bizsim's version and commit, Python, the worlds' benchmark versions, the configs, and
the command that made it."""

from __future__ import annotations

import json
import platform
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["provenance", "written_at"]

#: Agent options not shown: where a model was served is the user's business, not the result's.
_PRIVATE_OPTIONS = ("api_base", "api_key_env")


def _git_commit() -> str | None:
    """The commit of bizsim's own source when it is a git checkout with git installed, else ``None``.

    An installed bizsim inside another repository (a virtualenv in a project's folder) is not that repository's
    commit: the source must be tracked by the checkout it sits in.
    """
    here = Path(__file__).resolve().parent
    try:
        tracked = subprocess.run(["git", "-C", str(here), "ls-files", "--error-unmatch", "--", Path(__file__).name],
                                 capture_output=True, text=True, timeout=5)
        if tracked.returncode != 0:
            return None
        done = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() + (" (with uncommitted changes)" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def _installed_from() -> str | None:
    """Where pip installed bizsim from when its files are no git checkout (``pip install .``, from a URL): the
    commit pip recorded for a VCS install, else the source it names (PEP 610's ``direct_url.json``)."""
    from importlib import metadata

    try:
        text = metadata.distribution("bizsim").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("url"), str):
        return None
    url = data["url"]
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict) and isinstance(vcs.get("commit_id"), str):
        return f"{vcs['commit_id']} (installed by pip from {url})"
    return (f"not recorded: installed by pip from {url}, and pip records no commit for a folder or an archive "
            "(install with pip install git+URL@COMMIT, or pip install -e from a checkout, to have one here)")


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def provenance(runs: Any, command: list[str] | None = None) -> list[tuple[str, str]]:
    """``(label, text)`` pairs saying what made the report and from what runs.

    Args:
        runs: the runs table.
        command: the command line that made the report (default: this process's ``sys.argv``).
    """
    argv = command if command is not None else [Path(sys.argv[0]).name, *sys.argv[1:]]
    rows = [
        ("bizsim", _version("bizsim") or "unknown"),
        ("git commit", _git_commit() or _installed_from() or "unknown: bizsim's files are no git checkout and pip "
                                                              "recorded no source"),
        ("Python", platform.python_version()),
        ("command", shlex.join(argv)),
    ]
    if len(runs):
        ids = sorted({str(b) for b in runs["benchmark_id"].dropna()}) if "benchmark_id" in runs.columns else []
        rows.append(("benchmarks (world versions)", ", ".join(ids) or "unknown"))
        configs = []
        cols = [c for c in ("world", "preset", "overrides", "agent", "agent_options") if c in runs.columns]
        for _, r in runs[cols].drop_duplicates().iterrows():
            options = _options(r.get("agent_options"))
            overrides = r.get("overrides")
            part = f"{r.get('world')} preset {r.get('preset')}"
            if overrides and overrides != "{}":
                part += f" with {overrides}"
            part += f", agent {r.get('agent')}" + (f" {options}" if options else "")
            configs.append(part)
        rows.append(("configurations", "; ".join(sorted(configs))))
        seeds = sorted({int(s) for s in runs["seed"].dropna()}) if "seed" in runs.columns else []
        if seeds:
            rows.append(("seeds", _ranges(seeds)))
    return rows


def _options(text: Any) -> str:
    try:
        data = json.loads(text) if isinstance(text, str) else (text or {})
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    kept = {k: v for k, v in data.items() if k not in _PRIVATE_OPTIONS and v is not None}
    return json.dumps(kept, sort_keys=True) if kept else ""


def _ranges(seeds: list[int]) -> str:
    """``[1, 2, 3, 5]`` -> ``1-3, 5``.

    >>> _ranges([1, 2, 3, 5, 7, 8])
    '1-3, 5, 7-8'
    """
    out, start, prev = [], seeds[0], seeds[0]
    for s in [*seeds[1:], None]:
        if s is not None and s == prev + 1:
            prev = s
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if s is not None:
            start = prev = s
    return ", ".join(out)


def written_at() -> str:
    """When a report says it was written: now, or ``SOURCE_DATE_EPOCH`` (seconds since 1970, the reproducible-builds
    convention) when set, so the same runs and command give the same bytes.

    Raises:
        ConfigError: ``SOURCE_DATE_EPOCH`` is set but not whole seconds.
    """
    import os
    from datetime import UTC, datetime

    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        try:
            return datetime.fromtimestamp(int(epoch), UTC).isoformat(timespec="seconds")
        except (ValueError, OverflowError, OSError):
            from bizsim.simcore.errors import ConfigError

            raise ConfigError(f"SOURCE_DATE_EPOCH(={epoch[:40]!r}) must be whole seconds since 1970-01-01 UTC, "
                              "e.g. 1767225600; unset it to stamp the report with the time it is written") from None
    return datetime.now(UTC).isoformat(timespec="seconds")
