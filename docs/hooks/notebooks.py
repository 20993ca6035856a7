"""MkDocs hook: the site shows files that live outside ``docs/``.

The notebooks stay in ``notebooks/`` (the test suite runs them there) and appear under ``notebooks/`` in the
site, rendered by mkdocs-jupyter; ``CONTRIBUTING.md`` and ``CHANGELOG.md`` stay at the top of the repository,
where people look for them, and appear as ``contributing.md`` and ``changelog.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"CONTRIBUTING.md": "contributing.md", "CHANGELOG.md": "changelog.md"}


@event_priority(100)  # before mkdocs-jupyter's on_files, which picks the notebooks out of the file list
def on_files(files: Files, config: Any) -> Files:
    """Add the notebooks and the top-level pages to the site's files."""
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        files.append(File(f"notebooks/{path.name}", str(ROOT), config["site_dir"], config["use_directory_urls"]))
    for source, target in PAGES.items():
        files.append(File.generated(config, target, abs_src_path=str(ROOT / source)))
    return files
