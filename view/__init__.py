"""The run viewer: a run, two runs side by side, a sweep, a fork family or an Inspect log, as one self-contained
HTML page.

>>> # write_view(["runs/llm"], "llm.html"); write_view(["runs/llm", "runs/planner"], "both.html")
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.files import write_text_atomic

from bizsim.runs.rundir import SweepDir
from bizsim.view.page import embed_json, render
from bizsim.view.sources import Source, load_view, page_data, register_source, unregister_source, view_sources

__all__ = [
    "Source", "embed_json", "load_view", "register_source", "render", "unregister_source", "view_data", "view_sources",
    "write_view",
]

#: How many run pages ``write_view`` writes beside a sweep's page (one a run directory); past it, use ``--serve``.
MAX_RUN_PAGES = 200
#: What a page opened from another links back to.
_BACK_TEXT = {"sweep": "the sweep", "family": "the fork family", "inspect": "the Inspect log"}
_SAFE_ID = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def view_data(paths: Sequence[str | Path], **options: Any) -> dict:
    """The page data for one path, or for two runs shown side by side."""
    if not 1 <= len(paths) <= 2:
        raise ConfigError(f"bizsim view takes one path, or two run directories to compare (got {len(paths)})")
    loaded = [load_view(p, **options) for p in paths]
    if len(loaded) == 1:
        return loaded[0]
    if any(d.get("kind") != "run" for d in loaded):
        raise ConfigError("two paths are shown side by side only when both are run directories")
    return {"kind": "compare", "runs": loaded}


def title_of(data: dict) -> str:
    """The page title."""
    if data.get("kind") == "run":
        m = data["meta"]
        parts = [m.get("world"), m.get("model") or m.get("agent"), None if m.get("seed") is None else f"seed {m['seed']}"]
        return "bizsim run: " + (" · ".join(str(x) for x in parts if x is not None) or str(m.get("path", "")))
    if data.get("kind") == "compare":
        return "bizsim: two runs side by side"
    if data.get("kind") == "inspect":
        return f"bizsim: Inspect log {Path(str(data['meta'].get('path', ''))).name}"
    if data.get("kind") == "family":
        return f"bizsim fork family: {Path(str(data['meta'].get('path', ''))).name}"
    return f"bizsim {data.get('kind', 'view')}: {Path(str(data.get('meta', {}).get('path', ''))).name}"


def back_link(data: dict, href: str) -> dict:
    """The link a page opened from ``data``'s page carries back to it."""
    return {"href": href, "text": _BACK_TEXT.get(str(data.get("kind")), "back")}


def write_view(paths: Sequence[str | Path], out: str | Path, **options: Any) -> Path:
    """Write the page for ``paths`` to ``out``; a sweep's runs that kept their directories get pages beside it.

    Returns:
        the page written.
    """
    data = view_data(paths, **options)
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    if data.get("kind") == "sweep":
        ids = [i for i in data.get("run_dirs", []) if _SAFE_ID.fullmatch(i)]
        if 0 < len(ids) <= MAX_RUN_PAGES:
            back = back_link(data, f"../{quote(target.name)}")
            folder = target.with_name(target.stem + "_runs")
            folder.mkdir(exist_ok=True)
            root = Path(paths[0])
            for run_id in ids:
                page = load_view(SweepDir(root).run(run_id).root, **options) | {"back": back}
                write_text_atomic(folder / f"{run_id}.html", render(page, title=title_of(page)))
            data["run_links"] = f"{folder.name}/{{id}}.html"
        elif ids:
            data["problems"].append(f"{len(ids):,} runs kept their directories, more than the {MAX_RUN_PAGES} pages "
                                    "written beside a sweep's page: open the sweep with --serve to read them")
    elif isinstance(data.get("pages"), dict):  # a fork family's runs and pairs; an Inspect log's samples
        folder = target.with_name(target.stem + "_runs")
        folder.mkdir(exist_ok=True)
        root = Path(paths[0])
        back = back_link(data, f"../{quote(target.name)}")
        loaded: dict[Path, dict] = {}
        for page_id, spec in data["pages"].items():
            page = page_data(root, spec, loaded=loaded, **options) | {"back": back}
            write_text_atomic(folder / f"{page_id}.html", render(page, title=title_of(page)))
        data["page_links"] = f"{folder.name}/{{id}}.html"
    write_text_atomic(target, render(data, title=title_of(data)))
    return target
