"""Docs, notebooks, examples and code import each name from the layer that owns it: the run API from
``bizsim.runs``, the result tables and analyses from ``bizsim.analysis`` (which still re-exports the run API for
older code)."""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import pytest

import bizsim.analysis
import bizsim.runs

ROOT = Path(__file__).resolve().parent.parent
#: Where a reader copies an import from: the docs site, the notebooks, the examples, the benchmarks, the tests and
#: the code's own docstrings. The changelog quotes old imports on purpose.
SOURCES = ("docs", "notebooks", "examples", "benchmarks", "tests", "simcore", "models", "agents", "runs", "surfaces",
           "analysis", "view", "cli")
FILES = ("README.md", "CONTRIBUTING.md")
SUFFIXES = (".md", ".ipynb", ".py")
#: ``from bizsim.X import a, b`` on one line (in Markdown, a notebook's JSON string, a ``>>>`` line or code), or
#: ``from bizsim.X import (a,\n b)``.
_IMPORT = re.compile(r"from\s+bizsim\.(runs|analysis)\s+import\s+(?:\(([^)]*)\)|([A-Za-z_][\w ,]*))")


def _files() -> list[Path]:
    found = [ROOT / f for f in FILES]
    for folder in SOURCES:
        found += [p for p in sorted((ROOT / folder).rglob("*")) if p.suffix in SUFFIXES and p.is_file()]
    return found


def _runs_names() -> set[str]:
    return set(bizsim.runs.__all__) | {m.name for m in pkgutil.iter_modules(bizsim.runs.__path__)}


def offences(text: str, where: str) -> list[str]:
    """Every import in ``text`` of a name from the layer that does not own it."""
    bad = []
    runs_names = _runs_names()
    for match in _IMPORT.finditer(text):
        layer, names = match.group(1), match.group(2) or match.group(3)
        line = text.count("\n", 0, match.start()) + 1
        for item in names.split(","):
            name = item.split()[0] if item.split() else ""  # ``a as b`` imports a; prose after a name is not one
            if not name:
                continue
            if layer == "analysis" and name in bizsim.analysis.RUN_API:
                bad.append(f"{where}:{line} imports the run API's {name} from bizsim.analysis; use bizsim.runs")
            elif layer == "runs" and name not in runs_names:
                bad.append(f"{where}:{line} imports {name} from bizsim.runs, which does not own it "
                           "(tables and analyses: bizsim.analysis)")
    return bad


def test_each_name_is_imported_from_its_owner():
    """No page, notebook, example or module imports a run-API name from bizsim.analysis or a table from bizsim.runs."""
    files = [p for p in _files() if p != Path(__file__).resolve()]  # this file plants offences on purpose
    assert len(files) > 100  # the docs, the notebooks and the code were found
    assert [] == [o for p in files for o in offences(p.read_text(encoding="utf-8"), str(p.relative_to(ROOT)))]


def test_the_check_sees_an_import_from_the_wrong_layer():
    """The check is live: each way of writing an import is read, and the wrong owner reported."""
    text = ('from bizsim.analysis import grid, load, sweep\n'
            '    "from bizsim.runs import load, run_episode\\n",\n'
            '>>> from bizsim.analysis import run_episode as play\n'
            'from bizsim.analysis import (\n    metrics,\n    RunSpec,\n)\n'
            'from bizsim.runs import rundir, Results\n'
            'from bizsim.analysis import load, metrics  # fine\n')
    assert [
        "x:1 imports the run API's grid from bizsim.analysis; use bizsim.runs",
        "x:1 imports the run API's sweep from bizsim.analysis; use bizsim.runs",
        "x:2 imports load from bizsim.runs, which does not own it (tables and analyses: bizsim.analysis)",
        "x:3 imports the run API's run_episode from bizsim.analysis; use bizsim.runs",
        "x:4 imports the run API's RunSpec from bizsim.analysis; use bizsim.runs",
        "x:8 imports Results from bizsim.runs, which does not own it (tables and analyses: bizsim.analysis)",
    ] == offences(text, "x")


def test_analysis_re_exports_the_run_api_unchanged():
    """Older code that imported the run API from bizsim.analysis gets the very objects bizsim.runs owns."""
    assert set(bizsim.analysis.RUN_API) <= set(bizsim.runs.__all__)
    assert set(bizsim.analysis.RUN_API) <= set(bizsim.analysis.__all__)
    for name in bizsim.analysis.RUN_API:
        assert getattr(bizsim.runs, name) is getattr(bizsim.analysis, name), name


def test_runs_says_where_the_tables_went():
    """``bizsim.runs`` no longer holds the tables (runs never imports analysis); asking for one says where it is."""
    from bizsim.analysis import tables

    for name in ("load", "compact", "Results"):
        assert name not in bizsim.runs.__all__
        with pytest.raises(AttributeError, match=f"from bizsim.analysis import {name}"):
            getattr(bizsim.runs, name)
        assert getattr(tables, name) is getattr(bizsim.analysis, name)
