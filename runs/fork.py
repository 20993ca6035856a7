"""Forks: continue a recorded run from a turn, a simulated time or a day, with any agent.

A run is (world, config, seed, timed command log), so the world at any turn of a recorded run is its log
cut there and replayed (:mod:`bizsim.simcore.snapshot`). :func:`fork` cuts a parent run (a run directory,
a run record or a snapshot) at a point and lets an agent play on from there; the new run's record names its
parent and the fork point, and ``bizsim verify`` replays it like any run.

Two ways to continue:

- **handover** (any agent; always for an agent other than the parent's): the agent starts afresh on the
  restored world, knowing nothing of the turns before the fork point but what the world shows it.
- **continued** (the parent's own deterministic agent, same options, ``fresh=False``): the agent keeps the
  memory it had at the fork point. A deterministic agent's memory is a function of what it saw, so bizsim
  plays it again from the start (checking that it issues the parent's commands up to the fork point) and
  lets it go on: the fork reproduces the parent exactly.

>>> from bizsim.runs import run_episode
>>> parent = run_episode("startup", "default", "greedy", 1)
>>> child = fork(parent, at=10, agent="planner")
>>> child.fork["at"], child.fork["turn"], child.fork["mode"], child.command_log[:5] == parent.command_log[:5]
({'turn': 10}, 10, 'handover', True)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from bizsim.agents.declare import RECORDS_CALLS
from bizsim.simcore.config import config_to_dict
from bizsim.simcore.errors import ConfigError, ReplayError
from bizsim.simcore.points import FORK_POINTS, cut, fork_point
from bizsim.simcore.registry import world_spec
from bizsim.simcore.snapshot import Snapshot, restore

from bizsim.runs.episode import EpisodeResult
from bizsim.runs.pipeline import execute
from bizsim.runs.rundir import command_log_jsonl
from bizsim.runs.runspec import RunSpec, _canonical, agent_capabilities

__all__ = ["FORK_POINTS", "Parent", "cut", "fork", "fork_point", "load_parent", "prefix_digest"]

@attrs.frozen
class Parent:
    """A recorded run to fork: its whole-run snapshot and what played it.

    Args:
        snapshot: the world at the end of the run (its log is the whole run's).
        spec: the run spec that rebuilds it (world, preset or overrides, agent and options, seed).
        source: how the parent is named in the fork's record: its run directory, or ``"snapshot"``.
        run_id: the parent's run id, when known.
    """

    snapshot: Snapshot
    spec: RunSpec | None
    source: str
    run_id: str | None = None


def prefix_digest(log: Sequence[tuple[int, str]]) -> str:
    """SHA-256 of a log prefix (its JSON lines), so a fork's record pins what it continued."""
    text = command_log_jsonl(log)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _start_t_us(snapshot: Snapshot, k: int) -> int:
    """The instant the fork's first turn starts: when the parent's next command was issued, after the kept prefix's
    last advance (the prefix's last command was issued before its clock moved); past the log's end, the world's."""
    if k < len(snapshot.log):
        return snapshot.log[k][0]
    return restore(snapshot.prefix(k)).now_us


def load_parent(run: Any) -> Parent:
    """The parent a fork continues: a run directory (path), a run record (a dict with ``run_dir``), an
    :class:`~bizsim.runs.episode.EpisodeResult`, or a :class:`~bizsim.simcore.snapshot.Snapshot`.

    Raises:
        ConfigError: it is none of those, or a run that cannot be forked (several episodes; a world role
            played by a model).
    """
    if isinstance(run, Snapshot):
        return Parent(run, _spec_for_snapshot(run), "snapshot")
    if isinstance(run, EpisodeResult):
        if len(run.worlds) > 1:
            raise ConfigError("the parent restarted after a bankruptcy (several episodes); fork a one-episode run")
        snap = run.final_world.snapshot()
        spec = _spec_for_snapshot(snap, run.agent, run.agent_options)
        return Parent(snap, spec, "result", spec.run_id if spec else None)
    if isinstance(run, Mapping):
        if not run.get("run_dir"):
            raise ConfigError("a run record to fork needs its run_dir (a sweep run with runs/ kept, or "
                              "record_from_run_dir); fork the directory itself")
        return load_parent(Path(str(run["run_dir"])))
    if isinstance(run, (str, Path)):
        return _parent_from_dir(Path(run))
    raise ConfigError(f"cannot fork {type(run).__name__}: give a run directory, a run record, a result or a snapshot")


def _parent_from_dir(root: Path) -> Parent:
    from bizsim.runs._replay import _spec_of
    from bizsim.runs.rundir import RunDir, episode_folders, read_command_log, read_record

    if RunDir(root).is_arena():  # its commands are in its seats' folders: reading its own log named a missing file
        raise ConfigError(f"{str(root)!r} holds an arena run; `bizsim fork` continues a one-agent run only: fork an "
                          "arena from Python (bizsim.simcore.arena_replay.replay_arena(factory, logs, turns=n), "
                          "then fork.run(agents))")
    result = read_record(root).to_dict()
    if len(episode_folders(root)) > 1 or len(result.get("episodes") or [1]) > 1:
        raise ConfigError(f"{str(root)!r} restarted after a bankruptcy (several episodes); fork a one-episode run")
    if RunDir(root).is_llm():
        from bizsim.runs.llm_run import recorded_world_options

        if recorded_world_options(root):
            raise ConfigError(f"{str(root)!r}: a model played a role of the world (the freelance auditor); such a "
                              "run cannot be forked yet")
    spec, config = _spec_of(root, result)
    cls = world_spec(spec.world).world_class()
    snap = Snapshot(world=cls.name, version=cls.version, config=config, seed=spec.seed,
                    log=read_command_log(root), preset=str(result.get("preset") or spec.preset))
    if result.get("benchmark_id") not in (None, snap.benchmark_id):
        raise ConfigError(f"{str(root)!r} is a run of {result.get('benchmark_id')}; this install has "
                          f"{snap.benchmark_id}")
    return Parent(snap, spec, str(root), spec.run_id)


def _spec_for_snapshot(snap: Snapshot, agent: str = "unknown", options: Mapping[str, Any] | None = None) -> RunSpec:
    spec = world_spec(snap.world)
    table = spec.preset_table()
    data = config_to_dict(snap.config)
    preset = snap.preset if snap.preset in table else None
    if preset is not None and config_to_dict(table[preset]) == data:
        return RunSpec(snap.world, preset, agent, snap.seed, agent_options=dict(options or {}))
    overrides = json.loads(json.dumps(data, default=str))
    return RunSpec(snap.world, "default", agent, snap.seed, overrides=overrides, agent_options=dict(options or {}),
                   label=snap.preset or "custom")


def fork(
    run: Any,
    at: Any = None,
    agent: str = "greedy",
    *,
    agent_options: Mapping[str, Any] | None = None,
    fresh: bool = False,
    out: str | Path | None = None,
    overwrite: bool = False,
    **llm_options: Any,
) -> Any:
    """Continue a recorded run from a point with an agent; the result's ``fork`` names the parent and the point.

    Args:
        run: the parent: a run directory, a run record (with ``run_dir``), an ``EpisodeResult`` or a snapshot.
        at: the fork point: a turn number (the agent's turns played before it), ``{"hours": H}`` or
            ``{"day": D}`` (the first turn starting at or after that simulated time), or ``None`` (the end of
            the parent's log: a snapshot as it stands).
        agent: a registered agent name of the world, or ``"package.module:function"``.
        agent_options: options bound to the agent.
        fresh: start the parent's own agent afresh at the fork point too, instead of continuing it with its
            memory (see the module's description).
        out: write the fork's run directory here (an LLM fork writes it as it goes, and resumes from it).
        overwrite: replace a run already in ``out`` (never an LLM run).
        llm_options: for ``agent="llm"``: ``client``, ``api_key``, ``preflight``... as
            :func:`~bizsim.runs.pipeline.execute` takes them. The model plays on from the fork point (its
            settings are the agent options: ``model``, ``api_base``, ``max_turns``...); the fork is an LLM run
            (``run.json``, call log) that starts from the snapshot.

    Returns:
        an :class:`~bizsim.runs.episode.EpisodeResult`, or for the LLM agent an
        :class:`~bizsim.runs.llm_run.LLMRunResult`.

    Raises:
        ConfigError: the parent cannot be read or forked, or the point is past its end.
        ReplayError: the parent's own agent, played again, does not issue the parent's commands (another
            bizsim version, or an agent that is not deterministic).
    """
    from bizsim.runs.recorder import recorder_for

    parent = load_parent(run)
    k, turn = cut(parent.snapshot, at)
    prefix = parent.snapshot.prefix(k)
    options = _canonical(dict(agent_options or {}), "agent_options")
    base = parent.spec or _spec_for_snapshot(parent.snapshot)
    calls_model = RECORDS_CALLS in agent_capabilities(base.world, agent)
    continued = (not fresh and parent.spec is not None and agent == parent.spec.agent and not calls_model
                 and options == parent.spec.agent_options)
    origin = {
        "parent": parent.source, "parent_run_id": parent.run_id, "parent_agent": base.agent,
        "at": fork_point(at), "turn": turn, "commands": k, "t_us": _start_t_us(parent.snapshot, k),
        "prefix_sha256": prefix_digest(prefix.log), "mode": "continued" if continued else "handover",
    }
    fields = {"agent": agent, "agent_options": options, "origin": origin}
    if calls_model:
        spec = attrs.evolve(base, max_episodes=1, start=prefix, **fields)
        return execute(spec, out=out, **llm_options)
    if llm_options:
        raise ConfigError(f"{', '.join(sorted(llm_options))} go with the llm agent, not agent {agent!r}")
    recorder = recorder_for(out, overwrite=overwrite)
    recorder.claim()
    if continued:
        spec = attrs.evolve(base, **fields)
    else:
        spec = attrs.evolve(base, start=prefix, **fields)
    result: EpisodeResult = execute(spec)
    if continued and tuple(result.command_log[:k]) != prefix.log:
        raise ReplayError(f"agent {agent!r}, played again, does not issue the parent's first {k} commands (another "
                          "bizsim version, or an agent that is not deterministic); fork with fresh=True")
    recorder.finish(result.worlds, result.record())
    return result
