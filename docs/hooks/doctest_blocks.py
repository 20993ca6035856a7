"""MkDocs hook: ``>>>`` examples in docstrings render as code in the API reference.

Docstrings here write doctests as plain ``>>>`` lines (pytest runs them), which Markdown would read as nested
quotes, and whose output (``[1, 2]``) it would read as a link. Each run of doctest lines, from ``>>>`` to the
next blank line, becomes a ``pycon`` code block before Markdown sees it.
"""

from __future__ import annotations

from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority


class _DoctestBlocks(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fence: str | None = None
        in_doctest = False
        for line in lines:
            stripped = line.lstrip()
            if fence is None and not in_doctest and stripped.startswith(">>>"):
                indent = line[: len(line) - len(stripped)]
                out += ["", f"{indent}```pycon"]
                in_doctest = True
            elif in_doctest and not stripped:
                out += [f"{indent}```", ""]
                in_doctest = False
            elif not in_doctest and stripped.startswith(("```", "~~~")):
                fence = None if fence is not None else stripped[:3]
            out.append(line)
        if in_doctest:
            out.append(f"{indent}```")
        return out


class DoctestBlocks(Extension):
    """A Markdown extension wrapping doctest runs in fenced ``pycon`` blocks."""

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's name)
        # before the fenced-code preprocessor (priority 25), so the blocks it makes are read as code
        md.preprocessors.register(_DoctestBlocks(md), "bizsim_doctest_blocks", 30)


@event_priority(100)  # before mkdocstrings reads the site's Markdown extensions
def on_config(config: Any) -> Any:
    """Add the extension to the site's Markdown (mkdocstrings renders docstrings with the same extensions)."""
    config.markdown_extensions.append(DoctestBlocks())
    return config
