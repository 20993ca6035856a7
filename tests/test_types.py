"""mypy over the whole package: default checks everywhere, ``--strict``'s checks for bizsim.simcore (pyproject's overrides)."""

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
    """``tmp_path/bizsim/<folder>`` -> the source folder, and ``tmp_path/bizsim/__init__.py`` -> the package root's
    (``toplevel/``): the import layout setup.py installs, which mypy can read."""
    package = tmp_path / "bizsim"
    package.mkdir()
    for folder in FOLDERS:
        (package / folder).symlink_to(ROOT / folder, target_is_directory=True)
    for name in ("__init__.py", "py.typed"):
        (package / name).symlink_to(ROOT / "toplevel" / name)
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
    """mypy finds no error: default checks over the package, and ``--strict``'s per-module checks over simcore (the
    overrides in pyproject.toml; ``--strict``'s two global flags are set there too, so one run checks both).

    The cache lives in pytest's cache directory, so a rerun checks only the files that changed (seconds, not minutes).
    """
    stage = _stage(tmp_path)
    cache_provider = getattr(pytestconfig, "cache", None)  # absent under -p no:cacheprovider
    cache = cache_provider.mkdir("mypy") if cache_provider is not None else tmp_path / ".mypy_cache"
    code, text = _mypy(stage, cache / "default", "-p", "bizsim")
    errors = [line for line in text.splitlines() if ": error: " in line]
    assert errors or 0 == code, f"mypy failed without reporting an error (exit {code}):\n{text}"
    assert [] == errors, f"mypy reports {len(errors)} errors:\n" + "\n".join(errors)


def test_simcore_is_held_to_the_strict_checks() -> None:
    """Every per-module flag ``mypy --strict`` turns on is set for bizsim.simcore, so the one run above is strict there."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    simcore = next(o for o in config["overrides"] if "bizsim.simcore" in o["module"])
    strict = {"disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls", "disallow_untyped_defs",
              "disallow_incomplete_defs", "check_untyped_defs", "disallow_untyped_decorators", "warn_unused_ignores",
              "warn_return_any", "strict_equality", "extra_checks"}
    assert {k for k in strict if simcore.get(k) is True} == strict
    assert simcore.get("implicit_reexport") is False
    assert config.get("warn_unused_configs") is True and config.get("warn_redundant_casts") is True
