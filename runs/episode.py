"""The episode loop every run plays (:func:`play`), its result, and :func:`run_episode`, the simple way in."""

from __future__ import annotations

from collections.abc import Callable
import time
from pathlib import Path
from typing import Any

import attrs
from bizsim.simcore import Status, World
from bizsim.simcore.registry import world_spec
from bizsim.simcore.snapshot import Snapshot, restore, turn_boundaries
from bizsim.simcore.watch import watch

from bizsim.runs.record import RunRecord
from bizsim.runs.recorder import recorder_for
from bizsim.runs.resolve import ResolvedRun, resolve_loose

__all__ = ["EpisodeResult", "play", "run_episode", "TERMINAL_REASONS"]

TERMINAL_REASONS = {
    Status.HORIZON: "horizon_end",
    Status.BANKRUPT: "bankruptcy",
    Status.COLLAPSED: "collapsed",
    Status.ERROR: "error",
    Status.RUNNING: "agent_stopped",
}


@attrs.frozen
class EpisodeResult:
    """What one run produced. ``to_dict`` is the JSON summary; the world holds the rest."""

    world: str
    benchmark_id: str
    preset: str
    seed: int
    agent: str
    agent_options: dict
    terminal_reason: str
    bankrupt: bool
    turns: int
    commands: int
    summary: dict
    episodes: tuple[dict, ...]
    final_world: World = attrs.field(repr=False, eq=False)
    #: The episodes before the last (``max_episodes`` restarts after a bankruptcy), oldest first.
    earlier_worlds: tuple[World, ...] = attrs.field(default=(), repr=False, eq=False)
    #: For a fork: its parent and fork point (see :func:`bizsim.runs.fork.fork`), else ``None``.
    fork: dict | None = None
    #: Wall-clock seconds the run took (outside the simulation, which never reads the clock).
    wall_s: float | None = attrs.field(default=None, eq=False)

    @property
    def worlds(self) -> tuple[World, ...]:
        """Every episode's world, oldest first (the last is :attr:`final_world`)."""
        return (*self.earlier_worlds, self.final_world)

    @property
    def trajectory(self):
        """Every command and event of the (last) episode."""
        return self.final_world.trajectory

    @property
    def command_log(self) -> list[tuple[int, str]]:
        """The timed command log of the (last) episode, enough to replay it."""
        return self.final_world.command_log()

    def __getattr__(self, name: str) -> Any:
        summary = object.__getattribute__(self, "summary")
        if name in summary:
            return summary[name]
        raise AttributeError(f"{type(self).__name__!r} has no attribute {name!r}; the world's figures are "
                             f"{', '.join(sorted(summary)) or 'none'}")

    def __dir__(self) -> list[str]:
        """The attributes and the world's figures (``final_funds_cents``...), so tab completion offers both."""
        return sorted(set(super().__dir__()) | {k for k in self.summary if k.isidentifier()})

    def record(self) -> RunRecord:
        """The typed record ``result.json`` holds."""
        return RunRecord(
            world=self.world, benchmark_id=self.benchmark_id, preset=self.preset, seed=self.seed, agent=self.agent,
            agent_options=self.agent_options, terminal_reason=self.terminal_reason, bankrupt=self.bankrupt,
            turns=self.turns, commands=self.commands, summary=self.summary, episodes=self.episodes, fork=self.fork,
            wall_s=None if self.wall_s is None else round(self.wall_s, 6),
        )

    def to_dict(self) -> dict:
        """JSON-able summary (world figures flattened in): ``result.json``'s object."""
        return self.record().to_dict()


#: Yields at one instant after which an agent is taken to be stuck (e.g. resuming with nothing active).
STALL_LIMIT = 1000


def _counting(agent: Callable, counter: list[int], stalled: list[bool], on_stop: Callable[[World], None] | None) -> Callable:
    last = [-1, 0]  # instant of the previous wake-up, and how many wake-ups in a row at it

    def count(world: World) -> None:
        counter[0] += 1

    def woken(world: World) -> bool:
        last[1] = last[1] + 1 if world.now_us == last[0] else 0
        last[0] = world.now_us
        if last[1] >= STALL_LIMIT:
            stalled[0] = True
            return True
        if on_stop is not None:
            on_stop(world)
        return False

    return watch(agent, before=count, after=woken)


def _play(
    run: ResolvedRun, make: Callable, *, on_stop: Callable[[World], None] | None = None, first: World | None = None,
    **world_options: Any,
) -> tuple[World, int, str]:
    """One episode of the agent ``make`` on ``first`` (the run's first world, built by the caller), on the world
    the run's start snapshot restores (its turns are not counted here), or on a fresh world of the run.

    Returns:
        the finished world, the agent's turns, and the terminal reason.
    """
    if first is not None:
        w = first
    else:
        w = run.new_world(**world_options) if run.spec.start is None else restore(run.spec.start)
    if on_stop is not None:  # the world as it starts: a live panel shows the date and funds before the first advance
        on_stop(w)
    counter, stalled = [0], [False]
    w.run(_counting(make, counter, stalled, on_stop))
    return w, counter[0], "agent_stalled" if stalled[0] else TERMINAL_REASONS[w.status]


def play(
    run: ResolvedRun,
    make: Callable,
    *,
    agent_name: str,
    on_stop: Callable[[World], None] | None = None,
    probe: Callable[[World], None] | None = None,
    world_options: Callable[[], dict] | None = None,
    first: World | None = None,
) -> EpisodeResult:
    """Play the episodes of ``run`` with the agent ``make`` (its factory, options bound): the episode loop every
    run goes through (:func:`~bizsim.runs.pipeline.execute`). It writes nothing.

    Args:
        agent_name: the ``agent`` the result names.
        on_stop: called with the world as it starts and at every decision point (progress bars, the live panel).
        probe: called with the world each time the agent hands time back (a sweep's extraction).
        world_options: world constructor arguments, asked afresh for every episode (a role's player).
        first: the first episode's world, already built by the caller (fresh, or restored from the run's start).
    """
    spec = run.spec
    prefix_turns = len(turn_boundaries(spec.start.world, spec.start.log)) if spec.start is not None else 0
    if probe is not None:
        make = watch(make, before=probe, name=agent_name)
    started = time.perf_counter()
    episodes, turns_total, scratchpad, w, worlds = [], 0, "", None, []
    for episode in range(1, run.max_episodes + 1):
        given = first if episode == 1 else None
        kwargs = {} if given is not None or world_options is None else dict(world_options())
        if scratchpad:
            kwargs["scratchpad"] = scratchpad
        w, turns, reason = _play(run, make, on_stop=on_stop, first=given, **kwargs)
        turns += prefix_turns
        worlds.append(w)
        turns_total += turns
        episodes.append({"episode": episode, "terminal_reason": reason, "turns": turns, **w.summary()})
        if w.status is not Status.BANKRUPT:
            break
        scratchpad = w.scratchpad
    assert w is not None
    return EpisodeResult(
        world=w.name, benchmark_id=w.benchmark_id, preset=run.preset_name, seed=spec.seed, agent=agent_name,
        agent_options=dict(run.agent_options), terminal_reason=episodes[-1]["terminal_reason"],
        bankrupt=w.status is Status.BANKRUPT, turns=turns_total, commands=w.trajectory.count("cmd"),
        summary=w.summary(), episodes=tuple(episodes), final_world=w, earlier_worlds=tuple(worlds[:-1]),
        fork=spec.origin, wall_s=time.perf_counter() - started,
    )


def run_episode(
    world: str = "startup",
    preset: Any = "default",
    agent: str | Callable = "greedy",
    seed: int = 1,
    *,
    agent_options: dict | None = None,
    max_episodes: int = 1,
    out: str | Path | None = None,
    overwrite: bool = False,
    on_stop: Callable[[World], None] | None = None,
    world_options: dict | Callable[[], dict] | None = None,
    probe: Callable[[World], None] | None = None,
    start: Snapshot | None = None,
    fork: dict | None = None,
) -> EpisodeResult:
    """Run ``agent`` on a fresh world (or from ``start``) until the episode ends: a thin wrapper that resolves its
    arguments and hands them to :func:`~bizsim.runs.pipeline.execute`.

    Args:
        world: a registered world name (``startup``).
        preset: a preset name, a ``.toml`` path, or a config object.
        agent: a registered agent name, ``package.module:function``, or an agent function (``world -> generator``,
            declared with ``@agent`` or not).
        seed: the world seed.
        agent_options: options bound to the agent: a function's keyword parameters, checked as a registered
            agent's are.
        max_episodes: after a bankruptcy, start again on the same seed with
            the scratchpad carried over, up to this many episodes.
        out: a directory to write the run into (config, commands, trajectory, result).
        overwrite: replace the run already in ``out``; without it such a directory is refused before the
            run starts. A directory holding an LLM run (``run.json``) is always refused.
        on_stop: called with the world as it starts and at every decision point (progress bars, the live panel).
        world_options: keyword arguments for the world's constructor, e.g.
            ``{"auditor": LLMAuditor(client)}`` for freelance (shared by every episode),
            or a function returning them, called once per episode (a fresh auditor each time).
        probe: called with the world each time the agent hands time back (a sweep's extraction).
        start: a :class:`~bizsim.simcore.snapshot.Snapshot` to start from instead of a fresh world: the agent
            starts afresh on the world it restores (a fork; one episode). ``world``, ``preset`` and ``seed``
            must name the snapshot's world and seed; its turns count in ``turns``.
        fork: what the result records of a fork's parent and fork point (``result.json``'s ``fork``).

    >>> run_episode("startup", "reference", "greedy-reference", seed=1).final_funds_cents
    -2438278
    """
    from bizsim.runs.pipeline import execute

    if max_episodes < 1:
        raise ValueError(f"max_episodes(={max_episodes}) must be >= 1")
    if start is not None:
        if max_episodes != 1 or world_options:
            raise ValueError("a run from a snapshot plays one episode on the snapshot's own world (no max_episodes, "
                             "no world_options)")
        if (start.world, start.seed) != (world_spec(world).world_class().name, seed):
            raise ValueError(f"start is a snapshot of {start.world} seed {start.seed}, not {world} seed {seed}")
    run = resolve_loose(world, preset, agent, seed, agent_options=agent_options, max_episodes=max_episodes,
                        start=start, origin=fork)
    options = world_options if callable(world_options) or world_options is None else (lambda: dict(world_options))
    return execute(run, recorder_for(out, overwrite=overwrite), on_stop=on_stop, probe=probe, world_options=options)
