"""mypy over the whole package: default checks everywhere, ``--strict`` for bizsim.simcore (configured in pyproject)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("mypy")

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("simcore", "models", "agents", "analysis", "cli")

# Files another change is rewriting right now; their errors are reported (as a warning) but do not fail the test. An
# entry with no error left fails it, so that the exemption is removed as soon as it can be.
PENDING = ("bizsim/simcore/commands.py", "bizsim/simcore/config.py", "bizsim/models/")


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
    pending = [e for e in errors if e.split("] ", 1)[1].startswith(PENDING)]
    unexpected = [e for e in errors if e not in pending]
    assert [] == unexpected, f"mypy reports {len(unexpected)} errors:\n" + "\n".join(unexpected)
    clean = [p for p in PENDING if not any(e.split("] ", 1)[1].startswith(p) for e in pending)]
    assert [] == clean, f"{clean} no longer have mypy errors: remove them from PENDING in {__file__}"
    if pending:
        warnings.warn(f"{len(pending)} mypy errors in files pending elsewhere (PENDING):\n" + "\n".join(pending),
                      stacklevel=1)
