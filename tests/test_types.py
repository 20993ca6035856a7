"""mypy over the whole package: default checks everywhere, ``--strict`` for bizsim.simcore (configured in pyproject)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("simcore", "models", "agents", "runs", "surfaces", "analysis", "view", "cli")


def _stage(tmp_path: Path) -> Path:
    """``tmp_path/bizsim/<folder>`` -> the source folder: the import layout setup.py installs, which mypy can read."""
    package = tmp_path / "bizsim"
    package.mkdir()
    for folder in FOLDERS:
        (package / folder).symlink_to(ROOT / folder, target_is_directory=True)
    return tmp_path


def _mypy(stage: Path, cache: Path, *args: str) -> tuple[int, str]:
    """Run mypy with the project's configuration in ``stage``; return its exit code and output."""
    command = [
        sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--explicit-package-bases",
        "--cache-dir", str(cache), "--no-color-output", "--no-error-summary", *args,
    ]
    done = subprocess.run(command, cwd=stage, capture_output=True, text=True, timeout=900)
    return done.returncode, done.stdout + done.stderr


def test_mypy_reports_no_errors(tmp_path: Path, pytestconfig: pytest.Config) -> None:
    """mypy finds no error: default checks over the package, ``--strict`` over simcore.

    Both runs share one test so that pytest-xdist never runs mypy twice at once on the same cache. The caches live in
    pytest's cache directory, so a rerun checks only the files that changed (seconds, not minutes).
    """
    stage = _stage(tmp_path)
    cache_provider = getattr(pytestconfig, "cache", None)  # absent under -p no:cacheprovider
    cache = cache_provider.mkdir("mypy") if cache_provider is not None else tmp_path / ".mypy_cache"
    errors: list[str] = []
    for name, args in (("default", ("-p", "bizsim")), ("strict", ("-p", "bizsim.simcore", "--strict"))):
        code, text = _mypy(stage, cache / name, *args)
        found = [line for line in text.splitlines() if ": error: " in line]
        assert found or 0 == code, f"mypy ({name}) failed without reporting an error (exit {code}):\n{text}"
        errors += [f"[{name}] {line}" for line in found]
    assert [] == errors, f"mypy reports {len(errors)} errors:\n" + "\n".join(errors)
