"""The layers of ARCHITECTURE.md: every import of a bizsim module points down (or sideways), never up."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Lowest first: a module may import its own layer and any below it.
LAYERS = ("simcore", "models", "agents", "runs", "surfaces", "analysis", "view", "cli")
WORLDS = ("startup", "vending", "freelance", "operation")


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every ``bizsim.*`` module a file imports, at module level or inside a function; a relative import is named
    absolutely (from where the file sits under the repository's root)."""
    try:
        package = ["bizsim", *path.relative_to(ROOT).parts[:-1]]
    except ValueError:  # a file outside the tree: only its absolute imports count
        package = []
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.ImportFrom) and package:
            base = package[: len(package) - (node.level - 1)]
            found.append((node.lineno, ".".join(base + ([node.module] if node.module else []))))
    return [(line, name) for line, name in found if name.startswith("bizsim.")]


def _modules(layer: str) -> list[Path]:
    return sorted((ROOT / layer).rglob("*.py"))


def test_no_relative_import_crosses_a_layer():
    """Relative imports stay inside their folder: an import's layer is read from its absolute name."""
    for layer in LAYERS:
        for path in _modules(layer):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.level:
                    depth = len(path.relative_to(ROOT).parts) - 1
                    assert node.level <= depth, f"{path.relative_to(ROOT)}:{node.lineno} reaches out of {layer}/"


@pytest.mark.parametrize("layer", LAYERS)
def test_imports_point_down(layer):
    """A module imports only its own layer and the layers below (cli -> view -> analysis -> ... -> simcore)."""
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    bad = [f"{path.relative_to(ROOT)}:{line} imports {name}"
           for path in _modules(layer) for line, name in _imports(path) if name.split(".")[1] not in allowed]
    assert [] == bad


@pytest.mark.parametrize("folder", ["models", "agents"])
def test_a_world_never_imports_another(folder):
    """A world's package (and its agents) never import another world's."""
    bad = []
    for world in WORLDS:
        for path in sorted((ROOT / folder / world).rglob("*.py")):
            for line, name in _imports(path):
                parts = name.split(".")
                if len(parts) > 2 and parts[1] in ("models", "agents") and parts[2] in WORLDS and parts[2] != world:
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert [] == bad


def test_the_layer_test_sees_an_upward_import(tmp_path):
    """The check is live: a runs/ module importing the viewer would be reported."""
    sample = tmp_path / "x.py"
    sample.write_text("def f():\n    from bizsim.view.server import serve\n", encoding="utf-8")
    assert [(2, "bizsim.view.server")] == _imports(sample)


def test_every_bizsim_import_names_a_module_that_exists():
    """An import of a bizsim module that was moved away fails here, not at the first call that reaches it."""
    import importlib.util

    missing = []
    for layer in LAYERS:
        for path in _modules(layer):
            for line, name in _imports(path):
                try:
                    found = importlib.util.find_spec(name) is not None
                except ModuleNotFoundError:
                    found = False
                if not found:
                    missing.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert [] == missing


def test_no_layer_imports_the_package_root():
    """`bizsim/__init__.py` (toplevel/) offers names of runs, analysis and the registry: a layer that took one from
    there would reach up unseen, so none imports the root itself."""
    offences = []
    for layer in LAYERS:
        for path in _modules(layer):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module == "bizsim" and node.level == 0:
                    offences.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                elif isinstance(node, ast.Import) and any(a.name == "bizsim" for a in node.names):
                    offences.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert [] == offences
