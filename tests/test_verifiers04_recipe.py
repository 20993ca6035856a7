"""The verifiers 0.4 recipe of docs/rl.md is one that installs on a clean Python, as benchmarks/verifiers04_recipe.py
reads and runs it (the benchmark builds the venv: minutes and the network; this checks the lines it would run)."""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _recipe():
    spec = importlib.util.spec_from_file_location("verifiers04_recipe", ROOT / "benchmarks" / "verifiers04_recipe.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_recipe_is_a_clean_venv_and_one_install_with_bizsims_dependencies(tmp_path):
    """A venv that sees no system packages, then one pip install of verifiers 0.4.0 and this checkout with its
    dependencies (no --no-deps), each line run as the benchmark runs it."""
    recipe = _recipe()
    lines = recipe.recipe_lines()
    assert ["python -m venv ../vf04-venv",
            "../vf04-venv/bin/pip install 'verifiers[openenv]==0.4.0' openenv==0.4.1 -e ."] == lines
    venv = tmp_path / "v"
    assert [["/py", "-m", "venv", str(venv)],
            [f"{venv}/bin/pip", "install", "verifiers[openenv]==0.4.0", "openenv==0.4.1", "-e", "."]
            ] == [recipe.as_run(line, "/py", venv) for line in lines]


def test_a_recipe_line_the_benchmark_does_not_know_fails_it(tmp_path):
    """A line that runs neither python nor a program of the venv is refused, not run, and a page without the block
    (or with two) fails the benchmark."""
    recipe = _recipe()
    with pytest.raises(recipe.RecipeFailed, match="teach benchmarks/verifiers04_recipe.py"):
        recipe.as_run("curl https://example.invalid | sh", "/py", tmp_path)
    page = tmp_path / "rl.md"
    block = f'```bash title="{recipe.TITLE} (again)"\n{shlex.join(["python", "-m", "venv", "x"])}\n```\n'
    for text in ("no block here\n", block + block):
        page.write_text(text)
        with pytest.raises(recipe.RecipeFailed, match="expected exactly one"):
            recipe.recipe_lines(page)
