"""A live episode: a registered world played from outside, one call at a time, recorded as it goes.

Every surface that lets an outside agent play (the MCP server, ``bizsim serve``/``do``/the ``yc-bench`` shim,
Inspect tasks, browser play, the stepping drivers) sits on :class:`Episode`. It is a small core with layers
around it, each one concern, composed as Gymnasium composes ``TimeLimit`` around an environment:

- :class:`EpisodeCore` (:mod:`~bizsim.runs.live_core`) opens a world of the registry (third-party ones too) on a
  preset, seed and config overrides, answers one command line (``call_line``, ``call_argv``) or one tool call
  (``call_tool``) at a time through the kernel's :class:`~bizsim.simcore.driver.Driver`, steps and resets, and
  records each call through its recorder before answering it;
- :class:`Budgeted` ends the episode when a budget is reached (calls, reported tokens or dollars);
- :class:`Windowed` truncates a stepped episode after N agent turns or D simulated days;
- :class:`Rewarded` rewards each step by the chosen rule (:mod:`bizsim.runs.rewards`).

``Episode(...)`` builds the stack its arguments ask for; its repr names it. Each layer forwards what it does not
change (:class:`EpisodeLayer`), so a stack answers what its core answers.

What a recorded episode writes, through :class:`~bizsim.runs.recorder.RunDirRecorder`:

- ``config.toml`` is written when the episode opens;
- the new records of ``trajectory.jsonl`` and ``commands.jsonl`` are appended after each call;
- ``result.json`` is then replaced whole (:class:`~bizsim.simcore.files.SwappedFile`: the next version is written
  beside it and renamed over it), compact while the episode is open, indented once it is closed.

So after every answered call, after the client went away and after the process was killed between two calls,
the directory holds the run up to the last answered call and ``bizsim verify DIR`` passes on it. (A kill that
lands inside the writes of one call, some microseconds, can leave that call's log lines without the
``result.json`` that counts them: the call was never answered; ``verify`` then reports the difference. A call
that reaches a budget writes twice, the call and then the end.) ``result.json`` is a baseline run's (``agent`` is
the surface's name) plus ``live``: the surface, the clients that reported themselves, counters, budgets, usage,
overrides, metadata, and ``open``.

A call's :class:`CallOutcome` carries its exit status as YC-Bench's command line exits: 0 it ran, 1 the world
refused it, 2 nothing ran (not a command, bad arguments, too long, a hidden command, the episode is over).

Budgets and refusals are the LLM harness's: a turn is one call here (the client's model calls are not seen);
``max_turns`` (default: the world config's ``max_turns`` when it has one), ``max_tokens_total`` and
``max_cost_usd`` for what the client reports with ``report_usage``; a budget reached ends the episode (status
``error``, ``terminal_detail`` names it) as it ends an LLM run. Hidden commands, a world's daily action budget and
the end of the episode are the world's own refusals. Agent text is hostile: a call longer than
:data:`~bizsim.simcore.limits.MAX_CALL_CHARS` (or the budgets' smaller ``max_call_chars``) is refused by the core
before it reaches the world; client names are cut to :data:`~bizsim.simcore.limits.MAX_CLIENT_NAME_CHARS`.

Calls are serialised (the core's lock, which the layers take too): any number of threads may call one episode.

>>> import tempfile
>>> with Episode("startup", "default", 1, out=tempfile.mkdtemp(), surface="doc") as ep:
...     ep.call_line("company status").status, ep.call_line("task accept --task-id nope").status
(0, 1)
"""


from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bizsim.simcore.errors import ConfigError

from bizsim.runs.budgets import Budgets
from bizsim.runs.call_outcome import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, CallOutcome
from bizsim.runs.live_budgeted import Budgeted
from bizsim.runs.live_core import EpisodeCore
from bizsim.runs.live_layer import EpisodeLayer
from bizsim.runs.live_lock import hold
from bizsim.runs.live_rewarded import Rewarded
from bizsim.runs.live_spec import LiveSpec
from bizsim.runs.live_windowed import Windowed
from bizsim.runs.recorder import NullRecorder, RunDirRecorder
from bizsim.runs.rewards import REWARDS, reward_rule
from bizsim.runs.rundir import RunDir

if TYPE_CHECKING:
    from bizsim.runs.record import RunRecord

__all__ = ["EXIT_OK", "EXIT_REFUSED", "EXIT_USAGE", "REWARDS", "Budgeted", "Budgets", "CallOutcome", "Episode",
           "EpisodeCore", "EpisodeLayer", "LiveSpec", "Rewarded", "Windowed"]


class Episode(EpisodeLayer):
    """One episode of a registered world, driven from outside one call at a time: every surface's way in.

    ``Episode(...)`` opens an :class:`~bizsim.runs.live_core.EpisodeCore` and composes around it, innermost first,
    :class:`~bizsim.runs.live_budgeted.Budgeted` (when a budget applies), :class:`~bizsim.runs.live_windowed.Windowed`
    (when a window is given) and :class:`~bizsim.runs.live_rewarded.Rewarded`; it answers what that stack answers
    and its repr names it. The surfaces call it with command lines or tool calls (``call_line``, ``call_tool``: a
    :class:`~bizsim.runs.call_outcome.CallOutcome` each); reinforcement-learning adapters step it (``reset``,
    ``step``, ``step_tool``: ``(observation, reward, done, info)``). With ``out`` it records into a run directory as
    it goes; without, it records nothing and ``reset`` starts a fresh world as often as asked.

    Args:
        world: a registered world name or versioned id (``startup``, ``startup-v1``, a third-party world).
        preset: a preset name of that world, a ``.toml`` config file, or (not recorded) a config object.
        seed: the world seed.
        out: the run directory to record into (created; must not hold a run unless ``overwrite``); ``None``
            records nothing.
        start: where the episode starts (:class:`~bizsim.agents.start.StartState`, or anything ``start_of`` takes:
            a snapshot); default a fresh world of ``preset``.
        window: how long the episode lasts for ``step`` (``done`` with ``info["truncated"]``): a
            :class:`~bizsim.agents.start.Window`, ``N`` agent turns or ``{"days": D}``; default the world's end.
        overrides: config values laid over the preset (``{"initial_funds_cents": 10_000_000}``).
        surface: who drives the episode (``mcp``, ``shell``, ``inspect``), recorded in ``result.json``.
        agent: the ``agent`` column of the run (default: the surface's name).
        budgets: the episode's :class:`~bizsim.runs.budgets.Budgets`.
        overwrite: replace a finished run already in ``out`` (an LLM run, or a live episode still open, never).
        fsync: also ``fsync`` the logs after every call (survives power loss, not just a kill; slower).
        metadata: JSON-able facts about the run kept in ``result.json`` under ``live.metadata`` (an Inspect
            sample's id, the harness's log); ``add_metadata`` adds more later.
        reward: how ``step`` rewards, one of :data:`~bizsim.runs.rewards.REWARDS` (default ``delta``).
        reward_weights: with ``reward="shaped"``, weights by sub-metric name over the world's defaults
            (:func:`~bizsim.runs.rewards.reward_rule` checks them).

    Raises:
        ConfigError: an unknown world or preset, bad overrides, reward or window, a directory that holds a run (or
            a live episode), or one that cannot be written.

    >>> with Episode("operation", seed=1, window=2, reward="terminal") as ep:
    ...     ep
    Episode(Rewarded(Windowed(EpisodeCore(operation-v1 preset default seed 1))))
    """

    def __init__(
        self, world: str, preset: Any = "default", seed: int = 1, *, out: str | Path | None = None, start: Any = None,
        window: Any = None, overrides: Mapping[str, Any] | None = None, surface: str = "python",
        agent: str | None = None, budgets: Budgets | None = None, overwrite: bool = False, fsync: bool = False,
        metadata: Mapping[str, Any] | None = None, reward: str = "delta", reward_weights: Mapping[str, float] |
        None = None, _resumed: tuple[RunRecord, list[tuple[int, str]]] | None = None, _held: Any = None,
    ) -> None:
        from bizsim.agents.start import Window

        try:  # checked before anything is written; a resume's lock is let go on the way out
            rule = reward_rule(world, reward, reward_weights)
            spec = LiveSpec.of(world, preset, seed, overrides=overrides, surface=surface, agent=agent, start=start,
                               recorded=out is not None)
            limit = Window.of(window)
        except BaseException:
            if _held is not None:
                _held.close()
            raise
        budgets = budgets or Budgets()
        recorder = NullRecorder() if out is None else RunDirRecorder(out, overwrite=overwrite, fsync=fsync)
        core = EpisodeCore(spec, recorder, max_call_chars=budgets.max_call_chars, metadata=metadata,
                           resumed=_resumed, held=_held, begin=False)
        try:
            stack: Any = core
            if budgets.max_turns is not None or budgets.max_tokens_total is not None or \
                    budgets.max_cost_usd is not None or getattr(core.world.config, "max_turns", None) is not None:
                stack = Budgeted(stack, budgets)
            if limit is not None:
                stack = Windowed(stack, limit)
            super().__init__(Rewarded(stack, rule))
            core.begin()  # after the layers declared their limits: the first result.json holds them
        except BaseException:
            core.release()
            raise

    def __repr__(self) -> str:
        return f"Episode({self.episode!r})"

    @classmethod
    def resume(cls, out: str | Path, *, surface: str, budgets: Budgets | None = None, fsync: bool = False) -> Episode:
        """Continue the live episode recorded in ``out`` (the server was stopped, the client went away).

        Its command log is replayed to rebuild the world, then the directory is written anew and recording goes on:
        counters, clients, usage, metadata, budgets and wall time carry on from its ``result.json``.

        Raises:
            ConfigError: ``out`` holds no live episode (a baseline or LLM run), one that has ended, one another
                process is recording, or one whose log does not replay.
        """
        from bizsim.runs.rundir import read_command_log, read_record

        read_record(out)  # a directory without a run is refused before a lock file is made in it
        held = hold(RunDir(out).live_lock)  # read under the lock: a process still recording cannot add a call unseen
        try:
            record = read_record(out)
            live = record.live
            if not isinstance(live, dict):
                raise ConfigError(f"{str(out)!r} holds a {record.agent} run, not a live episode; only live episodes "
                                  "(bizsim play, mcp, serve) resume")
            if record.terminal_reason != "agent_stopped":
                raise ConfigError(f"{str(out)!r} has ended ({record.terminal_reason}); nothing is left to play: "
                                  "start another run")
            overrides = live.get("overrides") if isinstance(live.get("overrides"), dict) else {}
            metadata = live.get("metadata") if isinstance(live.get("metadata"), dict) else {}
            base = live.get("base_preset")
            preset = base if isinstance(base, str) else record.preset
            log = read_command_log(out)
            kept = budgets if budgets is not None else _recorded_budgets(live)
        except BaseException:
            held.close()
            raise
        return cls(record.world, preset, record.seed, out=out, overrides=overrides, surface=surface,
                   agent=record.agent, budgets=kept, overwrite=True, fsync=fsync, metadata=metadata,
                   _resumed=(record, log), _held=held)


def _recorded_budgets(live: Mapping[str, Any]) -> Budgets:
    """The budgets a live episode recorded (a resumed one keeps them); what is missing is no limit."""
    recorded = live.get("budgets")
    given: Mapping[str, Any] = recorded if isinstance(recorded, Mapping) else {}
    names = ("max_turns", "max_tokens_total", "max_cost_usd", "max_call_chars")
    return Budgets(**{k: given[k] for k in names if given.get(k) is not None})
