"""Shared fixtures and the Hypothesis profile of the test suite."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

# Bytecode caches are written even under PYTHONDONTWRITEBYTECODE (set here, before the suite imports bizsim): without
# them every pytest-xdist worker compiles bizsim and rewrites the asserts of every test module at each collection
# (about 5 of its 8 CPU seconds), and every subprocess the suite starts (the CLI, the docs' commands, servers, sweep
# workers) compiles what it imports again. Subprocesses keep the variable: they read the caches, never write them.
sys.dont_write_bytecode = False

import pytest  # noqa: E402
from bizsim.models.startup import StartupWorld  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

# One profile for CI and local runs: fixed examples (derandomize), no example
# database on disk, no per-example deadline (world runs vary in wall time).
settings.register_profile(
    "ci",
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# A bug hunt off CI: each ``HYPOTHESIS_PROFILE=hunt python -m pytest -q tests/test_*_properties.py`` draws fresh
# random examples (tests that set their own ``max_examples`` keep it; loop the command for more).
settings.register_profile("hunt", settings.get_profile("ci"), max_examples=200, derandomize=False)
# The fuzz profile: ``BIZSIM_FUZZ=slow python -m pytest -q -m fuzz`` runs every test 100 times as many examples as
# CI does (the suite's fuzz tests are marked ``fuzz``), for a hunt before a release; it finds nothing today.
settings.register_profile("slow", settings.get_profile("ci"), max_examples=5000, derandomize=False)
_PROFILE = "slow" if os.environ.get("BIZSIM_FUZZ") == "slow" else os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(_PROFILE)


_hypothesis_home: str | None = None


def _register_the_example_world() -> None:
    """Register ``examples/lemonade`` (unless it is installed), so every registry-wide test of the suite also runs
    over a third-party world: the test command does not install the example, and such a world must meet every
    contract a built-in one does. Its installation through the entry point is tested by test_example_world.py."""
    import sys
    from pathlib import Path

    from bizsim.simcore.registry import register, registered

    if "lemonade" in registered():
        return
    sys.path.append(str(Path(__file__).resolve().parent.parent / "examples" / "lemonade"))
    from bizsim_lemonade.spec import WORLD

    register(WORLD)


_register_the_example_world()


def _compile_bizsim() -> None:
    """Bytecode for every module of the checkout's bizsim, compiled once by the process that starts the session
    (under pytest-xdist, before its workers exist): the workers then import it compiled, and so do the subprocesses,
    which import modules the test processes never do (the CLI's commands, servers). A file that is up to date is
    only looked at."""
    import compileall
    from pathlib import Path

    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    root = Path(__file__).resolve().parent.parent
    for folder in ("toplevel", "simcore", "models", "agents", "runs", "surfaces", "analysis", "view", "cli"):
        if (root / folder).is_dir():
            compileall.compile_dir(root / folder, quiet=2)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile bizsim (:func:`_compile_bizsim`), and keep Hypothesis' cache files (written from collection on) in a
    temporary directory, not the repository.

    Set HYPOTHESIS_STORAGE_DIRECTORY to keep a persistent cache instead (saves rebuilding the Unicode tables).
    """
    global _hypothesis_home
    _compile_bizsim()
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    _hypothesis_home = tempfile.mkdtemp(prefix="bizsim-hypothesis-")
    set_hypothesis_home_dir(_hypothesis_home)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove Hypothesis' temporary cache directory."""
    if _hypothesis_home is not None:
        shutil.rmtree(_hypothesis_home, ignore_errors=True)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection imported and collect the youngest generation less often, as a sweep's pool workers
    do (runs/backends.py): the suite's own worlds then spend less of its time in the cyclic collector."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, *gc.get_threshold()[1:])


def _duration_class(item: pytest.Item) -> int:
    """0 for the tests that take seconds (marked slow, the docs' pages, the notebooks), 1 for the modules kept on
    one worker (their module fixtures take seconds: a late start would leave one worker alone at the end), 2 for
    the rest."""
    path = str(getattr(item, "path", ""))
    if item.get_closest_marker("slow") is not None or "test_doc_snippets" in path or path.endswith(".ipynb"):
        return 0
    return 1 if item.get_closest_marker("xdist_group") is not None else 2


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long tests first: pytest-xdist hands tests out in this order, so two workers do not end with one of them
    alone on a 30-second test while the other idles."""
    items.sort(key=_duration_class)  # stable: each class keeps the collection order


@pytest.fixture
def world() -> StartupWorld:
    """A fresh startup world, preset ``default``, seed 1, at 2025-01-01 09:00."""
    return StartupWorld("default", 1)


@pytest.fixture
def ref_world() -> StartupWorld:
    """A fresh startup world, preset ``reference``, seed 1."""
    return StartupWorld("reference", 1)
