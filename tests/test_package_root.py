"""`import bizsim` offers the main entry points, lazily, and installs as a regular package (editable or not)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bizsim

ROOT = Path(__file__).resolve().parent.parent
#: What an install needs of the checkout (setup.py's folders, and the files pyproject.toml names).
SOURCES = ("simcore", "models", "agents", "runs", "surfaces", "analysis", "view", "cli", "toplevel")
FILES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "bizsim_verifiers.py")
HEAVY = ("litellm", "pandas", "matplotlib", "pyarrow", "ray", "openai", "inspect_ai")

_PROBE = """
import json, sys
import bizsim
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r} or m.startswith("bizsim."))
print(json.dumps({{"loaded": loaded, "all": bizsim.__all__, "dir": dir(bizsim), "file": bizsim.__file__}}))
"""


def _probe(python: str, cwd: Path) -> dict:
    done = subprocess.run([python, "-c", _PROBE.format(heavy=set(HEAVY))], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert 0 == done.returncode, done.stderr
    return json.loads(done.stdout)


def test_import_bizsim_loads_no_layer_and_no_optional_stack(tmp_path):
    """In a fresh interpreter, `import bizsim` imports none of its layers and none of litellm, pandas, matplotlib
    ...; it names what it offers in `__all__` and `dir()`."""
    seen = _probe(sys.executable, tmp_path)
    assert [] == seen["loaded"]
    assert seen["all"] == seen["dir"] == sorted(seen["all"])
    assert {"run_episode", "RunSpec", "load", "world_spec", "register", "registered"} <= set(seen["all"])
    assert Path(seen["file"]).name == "__init__.py"


def test_each_name_is_its_owners():
    """Every name offered is the very object its layer owns; a first use imports that layer."""
    import bizsim.analysis
    import bizsim.runs
    import bizsim.simcore.registry as registry

    assert bizsim.run_episode is bizsim.runs.run_episode and bizsim.RunSpec is bizsim.runs.RunSpec
    assert bizsim.sweep is bizsim.runs.sweep and bizsim.execute is bizsim.runs.execute
    assert bizsim.load is bizsim.analysis.load
    assert (bizsim.world_spec, bizsim.WorldSpec, bizsim.registered) == (
        registry.world_spec, registry.WorldSpec, registry.registered)
    assert 42029521 == bizsim.run_episode("startup", "default", "greedy", 1).summary["final_funds_cents"]


def test_the_package_docstring_runs():
    """The root's docstring example (a run through `bizsim.run_episode`) holds."""
    import doctest

    failed, tried = doctest.testmod(bizsim)
    assert (0, 2) == (failed, tried)


def test_an_unknown_name_says_what_is_offered():
    """A name the package does not offer is an AttributeError naming those it does."""
    with pytest.raises(AttributeError, match=r"module 'bizsim' has no attribute 'run'; it offers RunSpec, .*run_episode"):
        bizsim.run  # noqa: B018


@pytest.mark.slow
def test_a_regular_install_works_beside_the_editable_one(tmp_path):
    """`pip install .` (offline, no build isolation) into a fresh venv: `bizsim` is a regular package in its
    site-packages, its layers beside it, the viewer's assets and `py.typed` shipped, and `import bizsim` as cheap."""
    src = tmp_path / "src"
    src.mkdir()
    for name in FILES:
        shutil.copy2(ROOT / name, src / name)
    for folder in SOURCES:
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp_path / "venv"
    # No pip of its own (ensurepip costs more CPU than the install): this pip installs into it, as
    # tests/test_example_world.py does.
    subprocess.run([sys.base_prefix + "/bin/python3", "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
                           "--no-build-isolation", "--no-index", "--disable-pip-version-check", str(src)],
                          capture_output=True, text=True, timeout=600)
    assert 0 == done.returncode, done.stdout + done.stderr
    seen = _probe(python, tmp_path)
    installed = Path(seen["file"]).parent
    assert [] == seen["loaded"] and installed.parent.name == "site-packages" and installed.name == "bizsim"
    assert (installed / "py.typed").exists() and (installed / "view" / "assets" / "view.js").exists()
    check = ("import bizsim, bizsim.simcore; print(bizsim.simcore.__file__); "
             "print(bizsim.run_episode('startup', 'default', 'greedy', 1).summary['final_funds_cents'])")
    done = subprocess.run([python, "-c", check], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert 0 == done.returncode, done.stderr
    where, funds = done.stdout.split()
    assert Path(where).is_relative_to(installed) and "42029521" == funds
