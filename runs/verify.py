"""Checking a run directory: its command logs, replayed, give back its trajectories and results exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
from bizsim.simcore.errors import ConfigError, ReplayError
from bizsim.simcore.jsonl import lines_of
from bizsim.simcore.limits import MAX_RUN_LOG_BYTES, read_text_file
from bizsim.simcore.untrusted_json import MAX_RECORD_DEPTH, loads_untrusted
from bizsim.simcore.world import Status, World

from bizsim.runs.rundir import RunDir

__all__ = ["Verification", "verify_run_dir"]

_SHOWN = 160  # characters of a differing line in a message


@attrs.frozen
class Verification:
    """What :func:`verify_run_dir` found: ``ok`` when every episode replayed to the same bytes."""

    path: str
    episodes: int
    commands: int
    problems: tuple[str, ...]
    #: For an arena run, its seats (each seat's log replayed in the arena's turn order); 0 for a run of one agent.
    seats: int = 0

    @property
    def ok(self) -> bool:
        """True when nothing differs."""
        return not self.problems


def verify_run_dir(path: str | Path) -> Verification:
    """Replay every episode of a run directory and compare it with what the directory recorded.

    Each episode's ``trajectory.jsonl`` must come back byte for byte and its
    summary must equal ``result.json``'s; ``config.toml`` must be the preset
    ``result.json`` names (when it names one), so the run is this version's
    world with that preset. Two records are left out of the comparison
    because no command log can carry them: a refused tool call whose name was
    not a command (logged as ``?tool NAME``; it changed nothing; only their
    number is compared) and the ``episode_end`` of a run its agent stopped (a
    spending cap, API failures). An LLM run's world roles (the freelance
    auditor) answer from its ``llm_calls.jsonl``; no model is called. An
    LLM run's ``llm_calls.jsonl`` must also hold the call record of every
    answered turn ``result.json`` counts, and each request it stores must
    rebuild to the hash its record holds (docs/reproducibility.md says what
    this does and does not prove).

    Raises:
        ConfigError: ``path`` holds no finished run, or a file of it cannot be read.
    """
    root = Path(path)
    try:
        if RunDir(root).is_arena():  # several seats: each seat's log, replayed in the arena's turn order
            from bizsim.runs.arena_verify import verify_arena_dir

            seats, commands, problems = verify_arena_dir(root)
            return Verification(str(root), 1, commands, tuple(problems), seats=seats)
        return _verify(root)
    except ConfigError:
        raise
    except (OSError, ValueError, LookupError, TypeError, AttributeError) as exc:  # a damaged file, whatever the damage
        raise ConfigError(f"{str(root)!r} cannot be read as a run directory: {type(exc).__name__}: {exc}") from None


def _verify(root: Path) -> Verification:
    from bizsim.models import world_presets

    from bizsim.runs._replay import _spec_of, replay_episodes
    from bizsim.runs.llm_run import recorded_world_options
    from bizsim.runs.rundir import episode_folders, read_command_log, read_record

    result = read_record(root).to_dict()
    spec, config = _spec_of(root, result)
    folders = episode_folders(root)
    logs = [read_command_log(folder) for folder in folders]
    summaries = result.get("episodes") or [result]
    problems: list[str] = []
    preset = result.get("preset")
    if isinstance(preset, str) and preset in world_presets(spec.world) and spec.overrides:
        problems.append(f"config.toml is not preset {preset!r}, which result.json names (other values, or another "
                        "bizsim version's preset)")
    if len(summaries) != len(logs):
        problems.append(f"result.json records {len(summaries)} episodes but the directory keeps the command logs of "
                        f"{len(logs)} (a run directory written before episodes/ existed keeps only the last)")
    skipped = max(0, len(summaries) - len(logs))
    llm = RunDir(root).is_llm()
    try:
        worlds = replay_episodes(spec, logs, lambda _w: None, config,
                                 (lambda n: recorded_world_options(root, n + skipped)) if llm else None)
    except ReplayError as exc:
        problems.append(f"the command log does not replay: {exc}")
        worlds = []
    for n, (folder, world) in enumerate(zip(folders, worlds), 1 + skipped):
        where = "" if len(folders) == 1 else f"episode {n}: "
        problems += [where + p for p in _compare_trajectory(RunDir(folder).trajectory, world)]
        recorded = summaries[n - 1] if n <= len(summaries) else None
        if isinstance(recorded, dict):
            problems += [where + p for p in _compare_summary(recorded, world.summary())]
            problems += [where + p for p in _compare_end(recorded, world)]
        else:
            problems.append(f"{where}result.json holds no summary of this episode")
    if worlds and "episodes" in result:  # the top level repeats the last episode's figures: checked too
        last = worlds[-1]
        problems += [f"result.json (top level): {p}" for p in _compare_summary(result, last.summary())]
        problems += [f"result.json (top level): {p}" for p in _compare_end(result, last)]
    if isinstance(result.get("fork"), dict):
        problems += _check_fork(root, result["fork"], logs[-1])
    if worlds and result.get("commands") != worlds[-1].trajectory.count("cmd"):
        problems.append(f"result.json commands={result.get('commands')!r} but the replay issues "
                        f"{worlds[-1].trajectory.count('cmd')}")
    if llm:
        problems += _check_calls(RunDir(root).llm_calls, result)
    return Verification(str(root), len(summaries), sum(map(len, logs)), tuple(problems))


def _check_calls(file: Path, result: dict[str, Any]) -> list[str]:
    """An LLM run's model calls as ``llm_calls.jsonl`` records them: every answered turn of the agent has its call
    record (turns 1 to N of each episode, N as ``result.json`` counts them; each world role's answered calls as
    counted), and every stored request rebuilds to the hash its record holds (what the viewer shows as sent). A
    run made before requests were stored holds only their hashes: those are not checked here."""
    from bizsim.simcore.jsonl import read_jsonl

    from bizsim.runs.llm_record import has_requests, iter_requests

    try:
        rows = read_jsonl(file)
    except ConfigError as exc:
        return [f"{file.name} cannot be read: {str(exc)[:300]}"]
    chats = [r for r in rows if r.get("kind") == "chat"]
    problems = _check_turns(file.name, chats, result)
    if not has_requests(chats):
        return problems
    try:  # bounded for the whole log (MAX_TOTAL_MESSAGES), not only for each record
        for n, request in enumerate(iter_requests(chats), 1):
            if not request.verified:
                who = f"{request.role} call" if request.role else "turn"
                problems.append(f"{file.name} chat record {n} (episode {request.episode}, {who} {request.turn}): "
                                "the stored request does not have the hash its record holds (the log was edited)")
                break
    except ConfigError as exc:
        problems.append(f"{file.name}: {str(exc)[:300]}")
    return problems


def _check_turns(name: str, chats: list[dict], result: dict[str, Any]) -> list[str]:
    """Each episode's answered agent turns are 1 to N, N as ``result.json`` counts them; each role's answered
    calls number as counted."""
    answered: dict[Any, list[Any]] = {}
    roles: dict[str, int] = {}
    for r in chats:
        if r.get("ok", True) is True:
            if r.get("role") is None:
                answered.setdefault(r.get("episode"), []).append(r.get("turn"))
            else:
                roles[str(r["role"])] = roles.get(str(r["role"]), 0) + 1
    problems = []
    for i, episode in enumerate(result.get("llm_episodes") or (), 1):
        stats = episode.get("stats") if isinstance(episode, dict) else None
        count = stats.get("turns") if isinstance(stats, dict) else None
        number = episode.get("episode", i)
        if type(count) is not int:
            problems.append(f"result.json llm_episodes[{i - 1}] does not count its turns")
            continue
        turns = answered.pop(number, [])
        if turns != list(range(1, count + 1)):
            missing = sorted(set(range(1, count + 1)) - {t for t in turns if type(t) is int})
            what = (f"the call record of turn {missing[0]} is missing" if missing
                    else "its turns are out of order, repeated or past the count")
            problems.append(f"{name}: episode {number} counts {count} answered turns in result.json, but {what} "
                            f"({len(turns)} answered call records)")
    if answered:
        problems.append(f"{name} holds answered calls of episode(s) {sorted(map(str, answered))[:5]} that "
                        "result.json does not count")
    for role, stats in (result.get("llm_roles") or {}).items():
        count = stats.get("turns") if isinstance(stats, dict) else None
        if type(count) is int and roles.pop(role, 0) != count:
            problems.append(f"{name}: result.json counts {count} answered {role} calls; the log holds another number")
    return problems


def _check_fork(root: Path, origin: dict[str, Any], log: list[tuple[int, str]]) -> list[str]:
    """A fork's record pins the parent's log prefix it continued: its own log must start with it, and so must the
    parent's, when the parent's run directory is still where the record says."""
    from bizsim.runs.fork import prefix_digest
    from bizsim.runs.rundir import read_command_log

    k, digest = origin.get("commands"), origin.get("prefix_sha256")
    if not isinstance(k, int) or not isinstance(digest, str):
        return ["result.json fork does not name its prefix (commands, prefix_sha256)"]
    if prefix_digest(log[:k]) != digest:
        return [f"the first {k} commands are not the prefix result.json's fork records"]
    parent = origin.get("parent")
    if isinstance(parent, str) and parent not in ("snapshot", "result"):
        where = Path(parent) if Path(parent).is_absolute() else root / parent
        for folder in (Path(parent), where):
            if RunDir(folder).is_finished():
                if prefix_digest(read_command_log(folder)[:k]) != digest:
                    return [f"the parent run {parent!r} does not start with the prefix the fork continued"]
                break
    return []


def _comparable(lines: list[str], *, drop_aborted_end: bool) -> tuple[list[tuple[int, str]], int]:
    """``(line number, line)`` of the records a replay must give back, and how many refused unknown inputs."""
    kept, unknown = [], 0
    for i, line in enumerate(lines, 1):
        record = loads_untrusted(line, MAX_RECORD_DEPTH)
        if isinstance(record, dict) and record.get("kind") == "cmd" and record.get("name") == "?":
            unknown += 1
            continue
        kept.append((i, line))
    if drop_aborted_end and kept:
        last = loads_untrusted(kept[-1][1], MAX_RECORD_DEPTH)
        data = last.get("data") if isinstance(last, dict) else None
        if isinstance(data, dict) and last.get("name") == "episode_end" and data.get("status") == "error":
            kept.pop()
    return kept, unknown


def _compare_trajectory(file: Path, world: World) -> list[str]:
    if not file.exists():
        return [f"{file.name} is missing"]
    try:
        recorded = lines_of(read_text_file(file, file.name, MAX_RUN_LOG_BYTES))
    except ConfigError as exc:
        return [f"{file.name} cannot be read: {exc}"]
    try:
        want, want_unknown = _comparable(recorded, drop_aborted_end=not world.done)
    except ValueError as exc:
        return [f"{file.name} is damaged: {exc}"]
    got, got_unknown = _comparable(lines_of(world.trajectory.to_jsonl()), drop_aborted_end=False)
    problems = []
    for (line_no, a), (_, b) in zip(want, got):
        if a != b:
            problems.append(f"{file.name} line {line_no} differs: recorded {a[:_SHOWN]} / replayed {b[:_SHOWN]}")
            break
    else:
        if len(want) != len(got):
            problems.append(f"{file.name} holds {len(want)} records the replay must give back; it gave {len(got)}")
    if want_unknown != got_unknown:
        problems.append(f"{file.name} records {want_unknown} refused unknown commands; the replay made {got_unknown}")
    return problems


def _compare_end(recorded: dict[str, Any], world: World) -> list[str]:
    """The recorded terminal reason against the replayed world's end (when the world itself ended the episode)."""
    from bizsim.runs.episode import TERMINAL_REASONS

    if not world.done or world.status is Status.ERROR:  # an agent's stop (a cap, API failures) is not in the log
        return []
    reason = TERMINAL_REASONS[world.status]
    if recorded.get("terminal_reason") != reason:
        return [f"result.json terminal_reason={recorded.get('terminal_reason')!r} but the replay ends in {reason!r}"]
    return []


def _compare_summary(recorded: dict, summary: dict) -> list[str]:
    replayed = json.loads(json.dumps(summary, default=str))
    return [f"result.json {key}={recorded[key]!r} but the replay gives {value!r}"
            for key, value in replayed.items() if key in recorded and recorded[key] != value]
