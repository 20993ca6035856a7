"""Re-running a recorded command log with a probe, and turning a run directory into a record."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from bizsim.simcore.config import config_to_dict
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import show
from bizsim.simcore.replay import replay
from bizsim.simcore.world import World

from bizsim.runs.rundir import RunDir
from bizsim.runs.runspec import ARENA_AGENT, RunSpec, world_config

__all__ = ["probe_replay", "record_from_run_dir", "replay_episodes", "replay_run_dir"]


def probe_replay(
    spec: RunSpec, log: Iterable[tuple[int, str]], probe: Callable[[World], None], config: Any = None,
    world_options: dict | None = None,
) -> World:
    """Rebuild a run's world from its ``(t_us, line)`` log, calling ``probe(world)`` before every advance.

    This is how facts only a live world holds (the startup world's staffing at
    each turn) are recovered for runs whose agent could not be watched (LLM runs,
    run directories). ``world_options`` go to the world's constructor (an
    auditor answering from the run's recorded calls: ``llm_run.recorded_world_options``).

    Raises:
        ReplayError: the log does not belong to this world, config and seed.
    """
    from bizsim.simcore.registry import world_spec

    cls = world_spec(spec.world).world_class()
    base = config if config is not None else world_config(spec)
    return replay(lambda: cls(base, spec.seed, **(world_options or {})), log, probe)


def replay_episodes(
    spec: RunSpec, logs: Sequence[Iterable[tuple[int, str]]], probe: Callable[[World], None], config: Any = None,
    world_options: Callable[[int], dict] | None = None,
) -> list[World]:
    """Rebuild every episode of a run, oldest first; ``probe`` watches the last one only.

    Each episode starts with the scratchpad the one before left, as
    ``run_episode`` carries it after a bankruptcy. ``world_options(n)`` gives
    episode ``n``'s (from 1) constructor arguments; each is checked with
    :func:`~bizsim.runs.llm_run.check_replayed` after its episode.
    """
    from bizsim.runs.llm_run import check_replayed

    worlds: list[World] = []
    scratchpad = ""
    for n, log in enumerate(logs, 1):
        options = dict(world_options(n) if world_options is not None else {})
        if scratchpad:
            options["scratchpad"] = scratchpad
        world = probe_replay(spec, log, probe if n == len(logs) else _ignore, config, options)
        check_replayed(options)
        worlds.append(world)
        scratchpad = world.scratchpad
    return worlds


def _ignore(_world: World) -> None:
    pass


def _spec_of(path: Path, result: dict, roster: Sequence[Any] = ()) -> tuple[RunSpec, Any]:
    """The run spec and world config a run directory was made with (an arena's with its ``roster``)."""
    from bizsim.simcore.registry import world_spec

    world = str(result.get("world") or str(result.get("benchmark_id", "")).rsplit("-v", 1)[0])
    presets = world_spec(world).preset_table()
    config = presets.from_toml(RunDir(path).config)
    seed = result.get("seed")
    if type(seed) is not int:  # a float, text or NaN: result.json was edited
        raise ConfigError(f"{str(path)!r}: result.json's seed(={show(seed)}) must be an integer")
    agent = str(result.get("agent") or "unknown")
    options = result.get("agent_options") or {}
    if not isinstance(options, dict):
        raise ConfigError(f"{str(path)!r}: result.json's agent_options(={show(options)}) must be a table")
    preset = result.get("preset")
    if isinstance(preset, str) and preset in presets and config_to_dict(presets[preset]) == config_to_dict(config):
        return RunSpec(world, preset, agent, seed, agent_options=options, roster=roster), config
    overrides = json.loads(json.dumps(config_to_dict(config), default=str))
    label = preset if isinstance(preset, str) else "custom"
    return RunSpec(world, "default", agent, seed, overrides=overrides, agent_options=options, label=label,
                   roster=roster), config


def replay_run_dir(path: str | Path) -> tuple[RunSpec, dict, list[World]]:
    """Rebuild every episode of the finished run in ``path`` (any agent: a baseline, an LLM run, a live episode,
    an import) from its command logs; returns its spec, its ``result.json`` and the worlds, oldest first.

    Raises:
        ConfigError: the directory holds no finished run.
        ReplayError: a command log does not replay on the run's world.
    """
    from bizsim.runs.llm_run import recorded_world_options
    from bizsim.runs.rundir import read_episode_logs, read_record

    root = Path(path)
    result = read_record(root).to_dict()
    spec, config = _spec_of(root, result)
    logs = read_episode_logs(root)
    skipped = max(0, len(result.get("episodes") or [result]) - len(logs))
    options = (lambda n: recorded_world_options(root, n + skipped)) if RunDir(root).is_llm() else None
    return spec, result, replay_episodes(spec, logs, _ignore, config, options)


def record_from_run_dir(path: str | Path, *, events: bool = True) -> dict:
    """A sweep record for a run directory (``bizsim run --out DIR``, an LLM run): its command log is replayed.

    Raises:
        ConfigError: the directory holds no finished run.
    """
    from bizsim.runs._extract import extract, extractor_for
    from bizsim.runs._worker import record_version
    from bizsim.runs.llm_run import llm_run_columns, recorded_world_options
    from bizsim.runs.rundir import read_episode_logs, read_record

    root = Path(path)
    if RunDir(root).is_arena():
        return _arena_record(root, events=events)
    result = read_record(root).to_dict()
    spec, config = _spec_of(root, result)
    extractor = extractor_for(spec.world_spec)
    logs = read_episode_logs(root)
    # Run directories written before episodes/ existed hold only the last episode's log.
    skipped = max(0, len(result.get("episodes") or [result]) - len(logs))
    options = (lambda n: recorded_world_options(root, n + skipped)) if RunDir(root).is_llm() else None
    world = replay_episodes(spec, logs, extractor.probe, config, options)[-1]
    turns, reason = int(result.get("turns", 0)), str(result.get("terminal_reason"))
    body = extract(world, extractor, turns=turns, terminal_reason=reason, events=events)
    llm = result.get("llm")
    if isinstance(llm, dict):
        body["run"].update(llm_run_columns(llm, result.get("llm_roles")))
    if result.get("terminal_detail") is not None:
        body["run"]["terminal_detail"] = result["terminal_detail"]
    return {
        "v": record_version, "run_id": spec.run_id, "status": "ok", "error": None, "benchmark_id": spec.benchmark_id,
        "spec": spec.to_dict(), "preset_label": spec.preset_label, **body, "wall_s": _wall_s(result), "run_dir": str(root),
    }


def _arena_record(root: Path, *, events: bool) -> dict:
    """An arena run directory's sweep record, as a sweep of that arena run writes it: the arena rebuilt from its
    seats' command logs, its seats in the standings column."""
    from bizsim.runs._worker import record_version
    from bizsim.runs.arena_run import ArenaResult, arena_body
    from bizsim.runs.arena_verify import replay_arena_dir
    from bizsim.runs.roster import Seat
    from bizsim.runs.rundir import read_record

    result, arena = replay_arena_dir(root)
    seats = [s if isinstance(s, dict) else {} for s in result["seats"]]
    roster = [Seat(str(s.get("agent") or "unknown"), s.get("options") or {}, label=s.get("label")) for s in seats]
    spec, _ = _spec_of(root, {**result, "agent": ARENA_AGENT, "agent_options": {}}, roster)
    seat_records = tuple(read_record(folder.root) for folder in RunDir(root).seat_dirs())
    body = arena_body(ArenaResult(read_record(root), seat_records, arena, root), events=events)
    return {
        "v": record_version, "run_id": spec.run_id, "status": "ok", "error": None, "benchmark_id": spec.benchmark_id,
        "spec": spec.to_dict(), "preset_label": spec.preset_label, **body, "wall_s": _wall_s(result), "run_dir": str(root),
    }


def _wall_s(result: dict) -> float | None:
    """The run's own runtime, as its record holds it (``None`` for a record without one): one runtime a run."""
    wall = result.get("wall_s")
    return float(wall) if isinstance(wall, (int, float)) and not isinstance(wall, bool) else None
