"""What the viewer can open, as a list of sources tried in order; other kinds plug in with :func:`register_source`.

A source recognises a path and turns it into the page's data: ``{"kind": "run", ...}`` (see
:mod:`.run_data`), ``{"kind": "sweep", ...}`` (:mod:`.sweep_data`), ``{"kind": "family", ...}``
(:mod:`.family_data`), ``{"kind": "inspect", ...}`` (:mod:`.inspect_data`), ``{"kind": "arena", ...}``
(:mod:`.arena_data`). Other kinds are added the same
way, each with its own ``detect`` and ``load``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from bizsim.simcore.errors import ConfigError

__all__ = ["Source", "load_view", "page_data", "register_source", "unregister_source", "view_sources"]


@attrs.frozen
class Source:
    """One kind of thing the viewer opens: ``detect(path) -> bool`` and ``load(path, **options) -> data``."""

    name: str
    detect: Callable[[Path], bool]
    load: Callable[..., dict]


def _run(path: Path, **options: Any) -> dict:
    from bizsim.view.run_data import run_data

    return run_data(path, requests=options.get("requests", True))


def _sweep(path: Path, **options: Any) -> dict:
    from bizsim.view.sweep_data import sweep_data

    return sweep_data(path)


def _family(path: Path, **options: Any) -> dict:
    from bizsim.view.family_data import family_data

    return family_data(path)


def _is_family(path: Path) -> bool:
    from bizsim.view.family_data import is_family_dir

    return is_family_dir(path)


def _inspect(path: Path, **options: Any) -> dict:
    from bizsim.view.inspect_data import inspect_log_data

    return inspect_log_data(path)


def _is_inspect(path: Path) -> bool:
    from bizsim.view.inspect_data import is_inspect_log

    return is_inspect_log(path)


def _inspect_folder(path: Path, **options: Any) -> dict:
    from bizsim.view.inspect_data import inspect_folder_data

    return inspect_folder_data(path)


def _is_inspect_folder(path: Path) -> bool:
    from bizsim.view.inspect_data import is_inspect_folder

    return is_inspect_folder(path)


def _arena(path: Path, **options: Any) -> dict:
    from bizsim.view.arena_data import arena_data

    return arena_data(path)


def _is_arena(path: Path) -> bool:
    from bizsim.view.arena_data import is_arena_dir

    return is_arena_dir(path)


def _is_run(path: Path) -> bool:
    from bizsim.view.run_data import is_run_dir

    return is_run_dir(path)


def _is_sweep(path: Path) -> bool:
    from bizsim.view.sweep_data import is_sweep_dir

    return is_sweep_dir(path)


_SOURCES: list[Source] = [
    Source("sweep", _is_sweep, _sweep), Source("fork family", _is_family, _family),
    Source("Inspect log", _is_inspect, _inspect), Source("arena run", _is_arena, _arena), Source("run", _is_run, _run),
    Source("folder of Inspect logs", _is_inspect_folder, _inspect_folder),
]


def register_source(source: Source, *, first: bool = True) -> None:
    """Add a kind of thing to open (tried before the built-in ones unless ``first`` is false); replaces one of
    the same name."""
    _SOURCES[:] = [s for s in _SOURCES if s.name != source.name]
    _SOURCES.insert(0 if first else len(_SOURCES), source)


def unregister_source(name: str) -> None:
    """Remove the source named ``name`` (nothing happens when there is none)."""
    _SOURCES[:] = [s for s in _SOURCES if s.name != name]


def view_sources() -> list[Source]:
    """The sources, in the order they are tried."""
    return list(_SOURCES)


def load_view(path: str | Path, **options: Any) -> dict:
    """The page data for ``path``: the first source that recognises it loads it.

    Raises:
        ConfigError: nothing recognises the path (it names which kinds were tried).
    """
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"{str(p)!r} does not exist; give a run directory, a sweep directory, a folder of forks or "
                          "an Inspect log")
    for s in _SOURCES:
        if s.detect(p):
            return s.load(p, **options)
    raise ConfigError(f"{str(p)!r} is none of what the viewer opens ({', '.join(s.name for s in _SOURCES)}): a run "
                      "directory holds trajectory.jsonl or run.json, a sweep directory results.jsonl, a fork family "
                      "run directories of which one is forked from another, an Inspect log ends in .eval (a folder of them is shown whole)")


def page_data(root: Path, spec: Any, *, loaded: dict[Path, dict] | None = None, **options: Any) -> dict:
    """The data of a page a view links to: ``spec`` is what its ``pages`` entry holds (run directories relative to
    ``root``, ``{"inspect_sample": i}`` for a sample of the Inspect log ``root``, or ``{"inspect_log": name,
    "inspect_sample": i}`` for a sample of the log ``name`` in the folder ``root``).

    ``loaded`` keeps each run read for the pages of one view (a family's run is on its own page and on each pair's),
    so it is read once; the pages only read the data."""
    if isinstance(spec, dict) and isinstance(spec.get("inspect_sample"), int):
        from bizsim.view.inspect_data import inspect_sample_data, is_inspect_log

        log = spec.get("inspect_log")
        if log is not None:  # a sample of one log of a folder: a name in that folder, nothing else
            if not isinstance(log, str) or Path(log).name != log or log in (".", "..") or not is_inspect_log(root / log):
                raise ConfigError(f"not a log of this folder: {str(log)[:200]}")
            root = root / log
        return inspect_sample_data(root, spec["inspect_sample"], **options)
    if isinstance(spec, list) and 1 <= len(spec) <= 2 and all(isinstance(d, str) for d in spec):
        cache = {} if loaded is None else loaded
        runs = [cache[root / d] if root / d in cache else cache.setdefault(root / d, load_view(root / d, **options))
                for d in spec]
        return runs[0] if len(runs) == 1 else {"kind": "compare", "runs": runs}
    raise ConfigError(f"not a page this view links to: {str(spec)[:200]}")
