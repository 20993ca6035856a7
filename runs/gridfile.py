"""Sweep grids in TOML: products of worlds, presets, agents and seeds, and explicit runs.

A grid file has any number of ``[grid]`` products (one table, or ``[[grid]]``
tables) and of ``[[runs]]``; their runs are concatenated (duplicates run once).
An optional ``[sweep]`` table sets defaults for ``bizsim sweep`` (command-line
flags win)::

    # every combination: 2 presets x 2 agents x 20 seeds = 80 runs
    [grid]
    worlds = ["startup"]
    presets = ["default", {name = "hard", label = "hard-rich", overrides = {initial_funds_cents = 50_000_000}}]
    agents = ["greedy", {name = "random", options = {max_parallel = 3}}]
    seeds = "1-20"                      # or a list: [1, 2, 3]

    # single runs, or a few seeds of one setting
    [[runs]]
    world = "operation"
    preset = "hard"
    agent = "threshold"
    agent_options = {threshold = 0.5}
    overrides = {collapse_dau = 150}
    seeds = "1-5"                       # or: seed = 3

    [sweep]
    backend = "process"                 # serial | process | ray
    workers = 2                         # processes for the runs that need a CPU
    concurrency = 8                     # model requests in flight per endpoint (LLM runs, on threads)
    events = true
    run_dirs = false
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bizsim.simcore.config import load_toml
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_SWEEP_RUNS, show

from bizsim.runs.runspec import RunSpec, grid, parse_seeds

__all__ = ["SWEEP_KEYS", "load_grid"]

#: Keys the ``[sweep]`` table may set, with their types.
SWEEP_KEYS: dict[str, type] = {
    "backend": str, "workers": int, "concurrency": int, "ray_address": str, "events": bool, "run_dirs": bool,
    "retry_failed": bool, "preflight": bool,
}
_GRID_KEYS = {"worlds", "world", "presets", "preset", "agents", "agent", "seeds"}
_RUN_KEYS = {"world", "preset", "agent", "agent_options", "overrides", "label", "seed", "seeds"}


def _where(path: Path, part: str) -> str:
    return f"{str(path)!r} {part}"


def _rel(path: Path, preset: Any) -> Any:
    """A ``.toml`` preset path is relative to the grid file."""
    if isinstance(preset, str) and preset.endswith(".toml") and not Path(preset).is_absolute():
        return str(path.parent / preset)
    return preset


def _product(path: Path, i: int, table: Mapping) -> list[RunSpec]:
    unknown = sorted(set(table) - _GRID_KEYS)
    if unknown:
        where = _where(path, f"[grid] #{i + 1}")
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; use worlds, presets, agents, seeds")
    worlds = table.get("worlds", table.get("world"))
    if worlds is None:
        raise ConfigError(f"{_where(path, f'[grid] #{i + 1}')} needs worlds = [...]")
    presets = table.get("presets", table.get("preset", "default"))
    presets = [_rel(path, x) for x in presets] if isinstance(presets, list) else _rel(path, presets)
    return grid(worlds, presets, table.get("agents", table.get("agent", "greedy")), table.get("seeds", 1))


def _runs(path: Path, i: int, table: Mapping) -> list[RunSpec]:
    unknown = sorted(set(table) - _RUN_KEYS)
    if unknown:
        where = _where(path, f"[[runs]] #{i + 1}")
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_RUN_KEYS))}")
    if "world" not in table:
        raise ConfigError(f"{_where(path, f'[[runs]] #{i + 1}')} needs world = \"...\"")
    if "seed" in table and "seeds" in table:
        raise ConfigError(f"{_where(path, f'[[runs]] #{i + 1}')}: give seed or seeds, not both")
    seeds = parse_seeds(table.get("seeds", table.get("seed", 1)))
    base = {k: table[k] for k in ("world", "preset", "agent", "agent_options", "overrides", "label") if k in table}
    if "preset" in base:
        base["preset"] = _rel(path, base["preset"])
    return [RunSpec(**base, seed=s) for s in seeds]


def _check_total(path: Path, specs: list[RunSpec]) -> None:
    # Each table is counted before it is built (grid, parse_seeds); this bounds their sum.
    if len(specs) > MAX_SWEEP_RUNS:
        raise ConfigError(f"{str(path)!r} defines {len(specs):,} runs or more, past the limit of {MAX_SWEEP_RUNS:,} "
                          "for one sweep; split it into several grid files")


def load_grid(path: str | Path) -> tuple[list[RunSpec], dict[str, Any]]:
    """The run specs of a grid file, and its ``[sweep]`` settings.

    Raises:
        ConfigError: the file is missing, not TOML, or breaks the format above.
    """
    p = Path(path)
    data = load_toml(p)
    unknown = sorted(set(data) - {"grid", "runs", "sweep"})
    if unknown:
        raise ConfigError(
            f"{str(p)!r}: unknown table(s) {', '.join(unknown)}; a grid file has [grid], [[runs]] and [sweep]"
        )
    grids = data.get("grid", [])
    grids = [grids] if isinstance(grids, Mapping) else grids
    runs = data.get("runs", [])
    for key, tables in (("grid", grids), ("runs", runs)):
        if not isinstance(tables, list) or not all(isinstance(t, Mapping) for t in tables):
            form = "[grid] or [[grid]]" if key == "grid" else "[[runs]]"
            raise ConfigError(f"{str(p)!r}: {key} must be {form} table(s), got {show(tables)}")
    specs: list[RunSpec] = []
    for i, table in enumerate(grids):
        specs.extend(_product(p, i, table))
        _check_total(p, specs)
    for i, table in enumerate(runs):
        specs.extend(_runs(p, i, table))
        _check_total(p, specs)
    if not specs:
        raise ConfigError(f"{str(p)!r} defines no runs: add a [grid] table or [[runs]] tables")
    settings = dict(data.get("sweep", {}))
    for key, value in settings.items():
        if key not in SWEEP_KEYS:
            raise ConfigError(f"{str(p)!r} [sweep]: unknown key {key!r}; known: {', '.join(SWEEP_KEYS)}")
        if not isinstance(value, SWEEP_KEYS[key]) or (SWEEP_KEYS[key] is int and isinstance(value, bool)):
            raise ConfigError(f"{str(p)!r} [sweep]: {key}(={value!r}) must be a {SWEEP_KEYS[key].__name__}")
    return specs, settings
