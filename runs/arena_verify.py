"""Checking an arena run directory: every seat's command log, replayed in the arena's turn order, gives back each
seat's trajectory and figures, the arena's own events and its record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bizsim.simcore.commands import HiddenCommandError
from bizsim.simcore.errors import CommandError, ConfigError, ReplayError
from bizsim.simcore.limits import show

from bizsim.runs.roster import OUTSIDE_AGENTS
from bizsim.runs.rundir import RunDir, read_command_log, read_record

__all__ = ["replay_arena_dir", "verify_arena_dir"]


def replay_arena_dir(path: str | Path) -> tuple[dict, Any]:
    """Rebuild the arena of the finished arena run in ``path`` from its seats' command logs; returns its
    ``result.json`` and the arena.

    Raises:
        ConfigError: no finished arena run there, or a file of it cannot be read.
        ReplayError: the logs do not replay on the arena's world, config, seed and seating.
    """
    from bizsim.simcore.arena_replay import replay_arena
    from bizsim.simcore.registry import world_spec

    root = Path(path)
    result = read_record(root).to_dict()
    seats = result.get("seats")
    if not isinstance(seats, list) or not seats:
        raise ConfigError(f"{str(root)!r}: result.json lists no seats; it is not an arena run's record")
    seed = result.get("seed")
    if type(seed) is not int:
        raise ConfigError(f"{str(root)!r}: result.json's seed(={show(seed)}) must be an integer")
    spec = world_spec(str(result.get("world")))
    config = spec.preset_table().from_toml(RunDir(root).config)
    folders = RunDir(root).seat_dirs()
    if len(folders) != len(seats):
        raise ConfigError(f"{str(root)!r}: result.json lists {len(seats)} seats but the directory keeps the records "
                          f"of {len(folders)}")
    logs = [read_command_log(folder.root) for folder in folders]
    stopped = {}
    # A run recorded before capped seats were retired: a seat its agent's cap ENDED (status error) mid-arena; that stop
    # is in its record, not its log. A capped seat recorded now was retired: the turns the arena ended for it are in
    # its log, its record's terminal_reason is its company's end (compared below like any seat's), and terminal_detail
    # only says why its agent stopped.
    for k, folder in enumerate(folders):
        own = read_record(folder.root)
        if own.terminal_reason == "error" and own.terminal_detail:
            stopped[k] = own.terminal_detail
    cls: Any = spec.world_class()  # an arena's class: it takes seats=
    arena = replay_arena(lambda: cls(config, seed, seats=len(seats)), logs, stopped=stopped)
    return result, arena


def verify_arena_dir(path: str | Path) -> tuple[int, int, list[str]]:
    """Replay an arena run and compare: each seat's trajectory byte for byte and its figures with its own
    ``result.json`` and the arena's seats list, the arena's events and figures with the arena's record, and an LLM
    seat's model calls with its record (every answered turn has its call record; stored requests rebuild to their
    hashes).

    Returns:
        seats, commands replayed, and the problems found (none: the directory replays exactly).
    """
    from bizsim.runs.verify import _check_calls, _compare_end, _compare_summary, _compare_trajectory

    root = Path(path)
    problems: list[str] = []
    try:
        result, arena = replay_arena_dir(root)
    except ReplayError as exc:
        result = read_record(root).to_dict()
        return len(result.get("seats") or ()), 0, [f"the seats' command logs do not replay: {exc}"]
    seats = result["seats"]
    logs = [read_command_log(folder.root) for folder in RunDir(root).seat_dirs()]
    commands = 0
    for k, (folder, world, listed) in enumerate(zip(RunDir(root).seat_dirs(), arena.seats, seats, strict=True)):
        where = f"seat {k}: "
        problems += [where + p for p in _compare_trajectory(folder.trajectory, world)]
        own = read_record(folder.root).to_dict()
        replayed = world.summary()
        problems += [where + p for p in _compare_summary(own, replayed)]
        problems += [where + p for p in _compare_end(own, world)]
        if own.get("llm") is not None or folder.llm_calls.exists():  # an LLM seat: its calls as its record counts
            problems += [where + p for p in _check_calls(folder.llm_calls, own)]
        if own.get("agent") in OUTSIDE_AGENTS:
            problems += [where + p for p in _hidden_lines(world, logs[k], str(own.get("agent")))]
        if own.get("commands") != world.trajectory.count("cmd"):
            problems.append(f"{where}result.json commands={own.get('commands')!r} but the replay issues "
                            f"{world.trajectory.count('cmd')}")
        if isinstance(listed, dict) and (listed.get("seat"), listed.get("agent")) != (k, own.get("agent")):
            problems.append(f"{where}the arena's result.json lists seat {show(listed.get('seat'))} played by "
                            f"{show(listed.get('agent'))} but the seat's own record names {show(own.get('agent'))}")
        if not isinstance(listed, dict) or listed.get("metric_value") != replayed.get("metric_value"):
            problems.append(f"{where}the arena's result.json lists metric_value="
                            f"{listed.get('metric_value') if isinstance(listed, dict) else listed!r} but the replay "
                            f"gives {replayed.get('metric_value')!r}")
        commands += world.trajectory.count("cmd")
    problems += [f"arena: {p}" for p in _compare_trajectory(RunDir(root).trajectory, arena)]
    figures = {k: v for k, v in arena.summary().items() if k != "seats"}
    problems += [f"arena: {p}" for p in _compare_summary(result, figures)]
    return len(seats), commands, problems


def _hidden_lines(world: Any, log: list[tuple[int, str]], agent: str) -> list[str]:
    """A seat played from outside (``human``, ``mcp``) never ran a hidden command (a built-in agent's own): its
    surface refuses one before the world sees it. One in its log was written there by hand (but the arena's own
    :attr:`~bizsim.simcore.arena.ArenaWorld.retire_line`, last, for a seat its budget stopped); the replay runs it,
    so only this check tells."""
    out = []
    retire = getattr(getattr(world, "arena", None), "retire_line", None)
    for i, (_, line) in enumerate(log, 1):
        if i == len(log) and line == retire:
            continue  # the arena's own line for a seat whose player stopped (a budget): its company runs on
        try:
            world.commands.parse(line, allow_hidden=False)
        except HiddenCommandError:
            out.append(f"commands.jsonl line {i:,} runs the hidden command {show(line)}, which {OUTSIDE_AGENTS[agent]} "
                       f"refuses to the seat's player ({agent}); the log was edited")
        except CommandError:
            pass  # a refused line: the replay refuses it again
    return out
