"""MkDocs hook: the "Command line" page takes its reference from the ``bizsim`` parser at build time."""

from __future__ import annotations

from typing import Any

MARKER = "<!-- bizsim-cli-reference -->"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace the marker in ``cli.md`` with the reference generated from the parser."""
    if page.file.src_uri != "cli.md":
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"docs/cli.md lost its {MARKER} marker: the generated reference has nowhere to go")
    from bizsim.cli.reference import reference_markdown

    return markdown.replace(MARKER, reference_markdown())
