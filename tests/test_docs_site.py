"""The documentation site builds with ``mkdocs build --strict``, and its generated pages say what the code says."""

from __future__ import annotations

import argparse
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bizsim.cli.main import _build_parser
from bizsim.cli.reference import reference_markdown

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("docs_site")


ROOT = Path(__file__).resolve().parent.parent


def _option_strings() -> dict[str, list[str]]:
    parser = _build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: [s for a in p._actions for s in a.option_strings] for name, p in sub.choices.items()}


def test_the_cli_reference_names_every_subcommand_and_option():
    """Generated from the parser: a subcommand or option added to the CLI shows up without editing a page."""
    text = reference_markdown()
    for name, options in _option_strings().items():
        section = text.split(f"## bizsim {name}\n", 1)[1].split("\n## bizsim ", 1)[0]
        assert [o for o in options if f"`{o}" not in section and f", {o}" not in section] == [], name


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly (notebooks rendered without running them again: nbmake runs them in this suite)."""
    pytest.importorskip("mkdocs")
    work = tmp_path_factory.mktemp("docs")
    out = work / "site"
    env = {**os.environ, "BIZSIM_DOCS_EXECUTE": "false", "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(out)], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    return out


def _text(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_the_site_builds_strictly_with_every_page(site: Path):
    """Every page of the navigation is there, the notebooks and the top-level guides included."""
    pages = ["index.html", "getting-started/index.html", "worlds/startup/index.html", "worlds/freelance/index.html",
             "llm/index.html", "sweeps/index.html", "custom-world/index.html", "performance/index.html",
             "faq/index.html", "threat-model/index.html", "contributing/index.html", "changelog/index.html",
             "notebooks/quickstart/index.html", "notebooks/llm_agent/index.html", "reference/api/index.html"]
    assert [p for p in pages if not (site / p).is_file()] == []


def test_the_built_cli_page_holds_the_parser_reference(site: Path):
    """The marker in docs/cli.md was replaced by the reference generated from the parser."""
    text = _text(site / "cli" / "index.html")
    assert "bizsim-cli-reference" not in text
    for name, options in _option_strings().items():
        assert f"bizsim {name}" in text
        assert all(o in text for o in options), name


def test_the_api_reference_comes_from_the_docstrings(site: Path):
    """mkdocstrings found the package: docstrings of the kernel and the pipeline are on the page."""
    text = _text(site / "reference" / "api" / "index.html")
    assert "A simulated business: a SimPy model plus the commands an agent may issue." in text
    assert "Push commands into a world and run it to the next decision point." in text
    assert ">>>" in text and "[1, 2, 1, 2]" in text  # doctests render as code, not as links


def test_the_worked_example_is_included(site: Path):
    """The custom-world page carries examples/lemonade/README.md."""
    assert "What a World subclass implements" in _text(site / "custom-world" / "index.html")


def test_readers_see_why_a_block_is_not_run_not_the_harness_words(site: Path):
    """A block titled ``not run: needs a running server (tests/test_openenv.py runs ...)`` shows "needs a running
    server" on the site: the prefix and the note on which test runs it are the test harness's."""
    source = (ROOT / "docs" / "openenv.md").read_text(encoding="utf-8")
    assert 'title="not run: needs a running server (tests/test_openenv.py' in source
    built = (site / "openenv" / "index.html").read_text(encoding="utf-8")
    assert "needs a running server" in built
    titles = [t for p in site.rglob("*.html") for t in re.findall(r'class="filename">([^<]*)', p.read_text("utf-8"))]
    assert "needs a running server" in titles
    assert [] == [t for t in titles if "not run:" in t or "tests/" in t]
