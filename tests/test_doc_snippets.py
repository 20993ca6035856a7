"""Every code block of the README and the docs runs, or says why not (the convention: tests/_doc_snippets.py)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests._doc_snippets import RUNNABLE, ROOT, blocks, pages

PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's blocks run in order in one directory: Python in one namespace, bash, TOML parsed."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    namespace: dict = {"__name__": "__main__"}
    for block in blocks(page):
        if block.not_run_reason is not None or block.language not in RUNNABLE:
            continue
        if block.needs is not None and importlib.util.find_spec(block.needs) is None:
            pytest.skip(f"{block.where()} needs {block.needs}, which is not installed")
        if block.file_name is not None:
            Path(block.file_name).parent.mkdir(parents=True, exist_ok=True)
            Path(block.file_name).write_text(block.text, encoding="utf-8")
        if block.language == "toml":
            tomllib.loads(block.text)
        elif block.language == "python" and block.file_name is None:
            exec(compile(block.text, block.where(), "exec"), namespace)  # noqa: S102 (the docs' own code)
        elif block.language == "bash":
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", block.text], stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"{block.where()} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


def test_every_block_is_run_or_says_why_not() -> None:
    """A block in a language the tests do not run, or marked not run without a reason, breaks the convention."""
    bad = []
    for page in PAGES:
        for block in blocks(page):
            reason = block.not_run_reason
            if reason is not None and len(reason) < 8:
                bad.append(f"{block.where()}: 'not run:' needs a reason")
            elif reason is None and block.language not in RUNNABLE | {"text"}:
                bad.append(f"{block.where()}: language {block.language!r} is not run; use python/bash/toml/text or "
                           'title="not run: REASON"')
    assert [] == bad


def test_the_convention_reads_fences_as_written(tmp_path: Path) -> None:
    """Titles, languages and indented fences are read as the convention describes."""
    page = tmp_path / "page.md"
    page.write_text('Text\n\n```bash title="not run: needs an API key"\nbizsim run\n```\n\n- item\n\n'
                    '  ```toml title="grid.toml"\n  [grid]\n  ```\n\n```python\nx = 1\n```\n', encoding="utf-8")
    found = [(b.language, b.not_run_reason, b.file_name, b.text) for b in blocks(page)]
    assert [("bash", "needs an API key", None, "bizsim run\n"), ("toml", None, "grid.toml", "[grid]\n"),
            ("python", None, None, "x = 1\n")] == found
