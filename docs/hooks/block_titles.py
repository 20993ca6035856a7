"""MkDocs hook: a code block's ``not run: ...`` title is for the test harness; readers see only why.

``tests/test_doc_snippets.py`` runs every block of the docs unless its title starts with ``not run:``. On the built
site that prefix, and any note saying which test runs the block instead (``(tests/test_x.py runs ...)``), is
internal: the title keeps the reason (``needs an API key``), or goes when nothing else is left.
"""

from __future__ import annotations

import re
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority

_TITLE = re.compile(r'\s*title="not run:\s*([^"]*)"')
_TEST_NOTE = re.compile(r"\s*\([^()]*\btests/[^()]*\)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def reader_title(line: str) -> str:
    """A fence line with its ``not run:`` title made for readers.

    >>> reader_title('```bash title="not run: needs a server (tests/test_openenv.py runs it)"')
    '```bash title="needs a server"'
    >>> reader_title('```bash title="not run: (tests/test_x.py)"')
    '```bash'
    """
    match = _TITLE.search(line)
    if match is None:
        return line
    reason = _TEST_NOTE.sub("", match.group(1)).strip()
    shown = f' title="{reason}"' if reason else ""
    return line[: match.start()] + shown + line[match.end():]


class _ReaderTitles(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        return [reader_title(line) if _FENCE.match(line) else line for line in lines]


class ReaderTitles(Extension):
    """A Markdown extension giving ``not run:`` block titles their readers' wording."""

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's name)
        # after the snippets preprocessor (priority 32) pulls in included files, before fenced code (25) reads titles
        md.preprocessors.register(_ReaderTitles(md), "bizsim_reader_titles", 28)


@event_priority(100)
def on_config(config: Any) -> Any:
    """Add the extension to the site's Markdown."""
    config.markdown_extensions.append(ReaderTitles())
    return config
