"""Code blocks of the README and the docs, read from their Markdown (tests/test_doc_snippets.py runs them).

The convention every page follows (CONTRIBUTING.md, "Code blocks in the docs"):

- ```` ```python ```` blocks run, in page order, in one namespace per page (``__name__ == "__main__"``), in a fresh
  temporary directory shared with the page's other blocks;
- ```` ```bash ```` blocks run with ``bash -euo pipefail`` in that directory, ``bizsim`` and ``python`` being the
  test's own;
- ```` ```toml ```` blocks must parse;
- a block titled with a file name (```` ```toml title="grid.toml" ````) is also written to that file, for the
  blocks after it;
- a block titled ``not run: REASON`` (```` ```bash title="not run: needs an API key" ````) is not run, and the
  reason must be given;
- a block titled ``needs: MODULE`` (```` ```python title="needs: inspect_ai" ````) runs where that optional module
  is installed; elsewhere the page's remaining blocks are skipped (an extra the test extra cannot hold);
- ```` ```text ```` blocks are output or layout, never run; any other language must say ``not run: REASON``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Block", "RUNNABLE", "blocks", "pages"]

ROOT = Path(__file__).resolve().parent.parent
RUNNABLE = {"python", "bash", "toml"}
_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_FILE_NAME = re.compile(r"^[\w./-]+\.\w+$")


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is, its language, its title, its text (dedented)."""

    path: Path
    line: int
    language: str
    title: str | None
    text: str

    @property
    def not_run_reason(self) -> str | None:
        """The reason given in a ``not run:`` title, or ``None`` for a block that runs."""
        if self.title is None or not self.title.startswith("not run"):
            return None
        return self.title.partition(":")[2].strip()

    @property
    def needs(self) -> str | None:
        """The optional module a ``needs: MODULE`` block runs with, or ``None``."""
        if self.title is None or not self.title.startswith("needs:"):
            return None
        return self.title.partition(":")[2].strip()

    @property
    def file_name(self) -> str | None:
        """The file a block titled with a file name is written to."""
        return self.title if self.title is not None and _FILE_NAME.match(self.title) else None

    def where(self) -> str:
        """``path:line``, relative to the repository."""
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    """Every Markdown file whose code blocks are held to the convention."""
    found = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", ROOT / "examples/lemonade/README.md"]
    found += sorted(p for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.parts)
    return [p for p in found if p.exists()]


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of one Markdown file, in order."""
    out: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m["indent"], m["fence"], m["info"].strip()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence) and lines[j].strip().strip(fence[0]) == ""):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        words = shlex.split(info) if info else []
        language = words[0] if words and "=" not in words[0] else ""
        attrs = dict(w.split("=", 1) for w in words if "=" in w)
        out.append(Block(path, i + 1, language, attrs.get("title"), "\n".join(body) + "\n"))
        i = j + 1
    return out
