"""Running one episode: a world, a preset, an agent, a seed."""

from __future__ import annotations

from collections.abc import Callable
import time
from pathlib import Path
from typing import Any

import attrs
from bizsim.agents import make_agent
from bizsim.simcore import Status, World
from bizsim.simcore.registry import world_spec
from bizsim.simcore.snapshot import Snapshot, restore, turn_boundaries
from bizsim.simcore.watch import watch

from bizsim.runs.record import RunRecord
from bizsim.runs.rundir import check_run_dir_free, make_output_dir, write_run_dir

__all__ = ["EpisodeResult", "run_episode", "TERMINAL_REASONS"]

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
    cls: type[World], preset: Any, make: Callable, seed: int, *, on_stop: Callable[[World], None] | None = None,
    start: Snapshot | None = None, first: World | None = None, **world_options: Any,
) -> tuple[World, int, str]:
    """One episode of the agent ``make`` on a fresh ``cls(preset, seed, **world_options)``, on the world
    ``start`` restores (its turns are not counted here), or on ``first``, one of these already built.

    The core of :func:`run_episode` without the summaries it builds (a sweep extracts its own record).

    Returns:
        the finished world, the agent's turns, and the terminal reason.
    """
    if first is not None:
        w = first
    else:
        w = cls(preset, seed, **world_options) if start is None else restore(start)
    if on_stop is not None:  # the world as it starts: a live panel shows the date and funds before the first advance
        on_stop(w)
    counter, stalled = [0], [False]
    w.run(_counting(make, counter, stalled, on_stop))
    return w, counter[0], "agent_stalled" if stalled[0] else TERMINAL_REASONS[w.status]


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
    first: World | None = None,
) -> EpisodeResult:
    """Run ``agent`` on a fresh world (or from ``start``) until the episode ends.

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
        first: the first episode's world, already built by the caller (fresh from ``world``, ``preset``, ``seed``
            and ``world_options``, or restored from ``start``) for its own bookkeeping: a run builds one world.

    >>> run_episode("startup", "reference", "greedy-reference", seed=1).final_funds_cents
    -2438278
    """
    if max_episodes < 1:
        raise ValueError(f"max_episodes(={max_episodes}) must be >= 1")
    if out is not None:
        check_run_dir_free(out, overwrite=overwrite)
        make_output_dir(out)  # an unusable path fails now, not after the run
    cls = world_spec(world).world_class()
    prefix_turns = 0
    if start is not None:
        if max_episodes != 1 or world_options:
            raise ValueError("a run from a snapshot plays one episode on the snapshot's own world (no max_episodes, "
                             "no world_options)")
        if (start.world, start.seed) != (cls.name, seed):
            raise ValueError(f"start is a snapshot of {start.world} seed {start.seed}, not {cls.name} seed {seed}")
        prefix_turns = len(turn_boundaries(start.world, start.log))
    if callable(agent):
        from bizsim.agents.declare import AgentDef

        defined = agent if isinstance(agent, AgentDef) else None
        agent_name = defined.name if defined is not None else getattr(agent, "__name__", "custom")
        make = agent
        if defined is not None or agent_options:  # checked and bound as a registered agent's (a typo is refused)
            make = (defined or AgentDef(agent, name=agent_name)).bind(agent_options, label=agent_name)
    else:
        agent_name, make = agent, make_agent(cls.name, agent, agent_options)
    if probe is not None:
        make = watch(make, before=probe, name=agent_name)
    started = time.perf_counter()
    episodes, turns_total, scratchpad, w, worlds = [], 0, "", None, []
    for episode in range(1, max_episodes + 1):
        given = first if episode == 1 else None
        kwargs = {} if given is not None else dict(
            (world_options() if callable(world_options) else world_options) or {})
        if scratchpad:
            kwargs["scratchpad"] = scratchpad
        w, turns, reason = _play(cls, preset, make, seed, on_stop=on_stop, start=start, first=given, **kwargs)
        turns += prefix_turns
        worlds.append(w)
        turns_total += turns
        record = {"episode": episode, "terminal_reason": reason, "turns": turns, **w.summary()}
        episodes.append(record)
        if w.status is not Status.BANKRUPT:
            break
        scratchpad = w.scratchpad
    assert w is not None
    result = EpisodeResult(
        world=cls.name,
        benchmark_id=w.benchmark_id,
        preset=preset if isinstance(preset, str) else "custom",
        seed=seed,
        agent=agent_name,
        agent_options=dict(agent_options or {}),
        terminal_reason=episodes[-1]["terminal_reason"],
        bankrupt=w.status is Status.BANKRUPT,
        turns=turns_total,
        commands=w.trajectory.count("cmd"),
        summary=w.summary(),
        episodes=tuple(episodes),
        final_world=w,
        earlier_worlds=tuple(worlds[:-1]),
        fork=fork,
        wall_s=time.perf_counter() - started,
    )
    if out is not None:
        write_run_dir(out, result)
    return result
