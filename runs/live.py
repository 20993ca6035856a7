"""A live episode: a registered world played from outside, one call at a time, recorded as it goes.

Every surface that lets an outside agent play (the MCP server, ``bizsim serve``/``do``/the ``yc-bench`` shim,
Inspect tasks) sits on :class:`LiveEpisode`. It opens a world of the registry (third-party ones too) on a preset,
seed and config overrides, answers one command line (:meth:`LiveEpisode.call_line`, :meth:`~LiveEpisode.call_argv`)
or one tool call (:meth:`~LiveEpisode.call_tool`) at a time through the kernel's
:class:`~bizsim.simcore.driver.Driver`, and records each call into an ordinary run directory before answering it:

- ``config.toml`` is written when the episode opens;
- the new records of ``trajectory.jsonl`` and ``commands.jsonl`` are appended after each call;
- ``result.json`` is then replaced whole (:class:`~bizsim.simcore.files.SwappedFile`: the next version is written
  beside it and renamed over it), compact while the episode is open, indented once it is closed.

So after every answered call, after the client went away and after the process was killed between two calls,
the directory holds the run up to the last answered call and ``bizsim verify DIR`` passes on it. (A kill that
lands inside the writes of one call, some microseconds, can leave that call's log lines without the
``result.json`` that counts them: the call was never answered; ``verify`` then reports the difference.)
``result.json`` is a baseline run's (``agent`` is the surface's name) plus ``live``: the surface, the clients
that reported themselves, counters, budgets, usage, overrides, metadata, and ``open``.

A call's :class:`CallOutcome` carries its exit status as YC-Bench's command line exits: 0 it ran, 1 the world
refused it, 2 nothing ran (not a command, bad arguments, too long, a hidden command, the episode is over).

Budgets and refusals are the LLM harness's: a turn is one call here (the client's model calls are not seen);
``max_turns`` (default: the world config's ``max_turns`` when it has one), ``max_tokens_total`` and
``max_cost_usd`` for what the client reports with :meth:`LiveEpisode.report_usage`; a budget reached ends the
episode (status ``error``, ``terminal_detail`` names it) as it ends an LLM run. Hidden commands, a world's daily
action budget and the end of the episode are the world's own refusals. Agent text is hostile: a call longer than
:data:`~bizsim.simcore.limits.MAX_CALL_CHARS` is refused before it reaches the world; client names are cut to
:data:`~bizsim.simcore.limits.MAX_CLIENT_NAME_CHARS`.

Calls are serialised (a lock): any number of threads may call one episode.

>>> import tempfile
>>> with LiveEpisode("startup", "default", 1, out=tempfile.mkdtemp(), surface="doc") as ep:
...     ep.call_line("company status").status, ep.call_line("task accept --task-id nope").status
(0, 1)
"""

from __future__ import annotations

import json
import shlex
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, Self

import attrs
from bizsim.simcore.commands import HiddenCommandError
from bizsim.simcore.driver import Driver
from bizsim.simcore.errors import BizSimError, CommandError, ConfigError
from bizsim.simcore.limits import MAX_CLIENT_NAME_CHARS, MAX_REPORTED_COST_USD, MAX_REPORTED_TOKENS, show
from bizsim.simcore.registry import world_spec
from bizsim.simcore.untrusted_json import loads_untrusted
from bizsim.simcore.world import Status, World, scalar_text

from bizsim.runs.budgets import Budgets
from bizsim.runs.call_outcome import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, CallOutcome
from bizsim.runs.episode import TERMINAL_REASONS
from bizsim.runs.live_lock import hold
from bizsim.runs.observation import observation_text
from bizsim.runs.record import RunRecord
from bizsim.runs.rewards import REWARDS, reward_rule
from bizsim.runs.recorder import NullRecorder, Recorder, RunDirRecorder
from bizsim.runs.rundir import RunDir, make_output_dir
from bizsim.runs.runspec import RunSpec, world_config

__all__ = ["EXIT_OK", "EXIT_REFUSED", "EXIT_USAGE", "REWARDS", "Budgets", "CallOutcome", "Episode", "LiveEpisode"]

#: Distinct clients recorded in ``result.json`` (a shell session may see many); later ones are counted only.
_MAX_CLIENTS = 16
#: Distinct clients past those counted in ``other_clients``; past this many the count stays (memory is bounded).
_MAX_OTHER_CLIENTS = 10_000


class Episode:
    """One episode of a registered world, driven from outside one call at a time: every surface's way in.

    The surfaces call it with command lines or tool calls (:meth:`call_line`, :meth:`call_tool`: a
    :class:`CallOutcome` each); reinforcement-learning adapters step it (:meth:`reset`, :meth:`step`,
    :meth:`step_tool`: ``(observation, reward, done, info)``, the reward being the change of the world's metric).
    With ``out`` it records into a run directory as it goes; without, it records nothing and :meth:`reset` starts
    a fresh world as often as asked.

    Args:
        world: a registered world name or versioned id (``startup``, ``startup-v1``, a third-party world).
        preset: a preset name of that world, a ``.toml`` config file, or (not recorded) a config object.
        seed: the world seed.
        out: the run directory to record into (created; must not hold a run unless ``overwrite``); ``None``
            records nothing.
        start: where the episode starts (:class:`~bizsim.agents.start.StartState`, or anything ``start_of`` takes:
            a snapshot); default a fresh world of ``preset``.
        window: how long the episode lasts for :meth:`step` (``done`` with ``info["truncated"]``): a
            :class:`~bizsim.agents.start.Window`, ``N`` agent turns or ``{"days": D}``; default the world's end.
        overrides: config values laid over the preset (``{"initial_funds_cents": 10_000_000}``).
        surface: who drives the episode (``mcp``, ``shell``, ``inspect``), recorded in ``result.json``.
        agent: the ``agent`` column of the run (default: the surface's name).
        budgets: the episode's :class:`Budgets`.
        overwrite: replace a finished run already in ``out`` (an LLM run, or a live episode still open, never).
        fsync: also ``fsync`` the logs after every call (survives power loss, not just a kill; slower).
        metadata: JSON-able facts about the run kept in ``result.json`` under ``live.metadata`` (an Inspect
            sample's id, the harness's log); :meth:`add_metadata` adds more later.
        resumed: the record and command log of the run ``out`` held, replayed before anything is written
            (:meth:`resume` passes them; its counters and wall time carry on).
        reward: how :meth:`step` rewards, one of :data:`~bizsim.runs.rewards.REWARDS` (default ``delta``).
        reward_weights: with ``reward="shaped"``, weights by sub-metric name over the world's defaults
            (:func:`~bizsim.runs.rewards.reward_rule` checks them).

    Raises:
        ConfigError: an unknown world or preset, bad overrides, a directory that holds a run (or a live
            episode), or one that cannot be written.
    """

    def __init__(
        self,
        world: str,
        preset: str = "default",
        seed: int = 1,
        *,
        out: str | Path | None = None,
        start: Any = None,
        window: Any = None,
        overrides: Mapping[str, Any] | None = None,
        surface: str = "python",
        agent: str | None = None,
        budgets: Budgets | None = None,
        overwrite: bool = False,
        fsync: bool = False,
        metadata: Mapping[str, Any] | None = None,
        resumed: tuple[RunRecord, Sequence[tuple[int, str]]] | None = None,
        _held: Any = None,
        reward: str = "delta",
        reward_weights: Mapping[str, float] | None = None,
    ) -> None:
        from bizsim.agents.start import Window, start_of

        self._reward = reward_rule(world, reward, reward_weights)
        self.reward = self._reward.mode

        config = None if isinstance(preset, (str, PurePath)) else preset
        if config is not None and out is not None:
            raise ConfigError("a recorded episode takes a preset name or a .toml file (its run directory names it); "
                              "give overrides=... for other values")
        self.spec = RunSpec(world, "default" if config is not None else preset, agent or surface, seed,
                            overrides=dict(overrides or {}))
        self._config = config
        self.start = start_of(start)
        if self.start is not None and self.start.world_name != world_spec(self.spec.world).world_class().name:
            raise ConfigError(f"start is a start state of {self.start.world_name}, not {self.spec.world}")
        self.window = Window.of(window)
        self.surface = str(surface)
        self.root = make_output_dir(out) if out is not None else None
        self._lock = threading.RLock()
        self._started = time.perf_counter()
        self._lockfile = _held if _held is not None else hold(RunDir(self.root).live_lock) if self.root is not None \
            else None
        self._recorder: Recorder = NullRecorder() if out is None else RunDirRecorder(out, overwrite=overwrite,
                                                                                         fsync=fsync)
        self._begun = False  # the recorder has begun: result.json is rewritten as the episode changes
        try:
            self._recorder.claim()
            self.world: World = self._new_world()
            self.driver = Driver(self.world)
            if resumed is not None:
                self._replay(resumed[1])
            self._mark_start()
            self.budgets = budgets or Budgets()
            self.max_turns = self.budgets.max_turns if self.budgets.max_turns is not None else getattr(
                self.world.config, "max_turns", None)
            self.fsync = fsync
            self.calls = self.refused = self.not_run = self.advances = 0
            self.prompt_tokens = self.completion_tokens = 0
            self.cost_usd: float | None = None
            self.clients: list[dict[str, str | None]] = []
            self._others: set[tuple[str | None, str | None]] = set()
            self.metadata: dict[str, Any] = {}
            self.add_metadata(**dict(metadata or {}))
            self.stopped: str | None = None  # why the surface ended the episode (a budget, the client leaving)
            self.closed = False
            self._command_count = 0  # command records among them
            self._wall_before = 0.0  # wall seconds of the sessions before a resume
            if resumed is not None:
                self._carry(resumed[0])
            self._counted = 0  # trajectory records whose commands are counted
            self._recorder.begin(self.world, live=True)
            self._begun = True
            self._record()
        except BaseException:
            if self._lockfile is not None:
                self._lockfile.close()
            raise

    @classmethod
    def resume(cls, out: str | Path, *, surface: str, budgets: Budgets | None = None, fsync: bool = False) -> Episode:
        """Continue the live episode recorded in ``out`` (the server was stopped, the client went away).

        Its command log is replayed to rebuild the world, then the directory is written anew and recording goes on:
        counters, clients, metadata and wall time carry on from its ``result.json``.

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
            return cls(record.world, preset, record.seed, out=out, overrides=overrides, surface=surface,
                       agent=record.agent, budgets=budgets if budgets is not None else _recorded_budgets(live),
                       overwrite=True, fsync=fsync, metadata=metadata, resumed=(record, read_command_log(out)),
                       _held=held)
        except BaseException:
            held.close()
            raise

    def _replay(self, log: Sequence[tuple[int, str]]) -> None:
        for _, line in log:
            self.driver.send(line)
        if self.world.command_log() != list(log):
            raise ConfigError(f"{str(self.root)!r}: its command log does not replay on {self.spec.world} preset "
                              f"{self.spec.preset} seed {self.spec.seed}; the directory was edited or written by "
                              "another bizsim version")

    def _carry(self, record: RunRecord) -> None:
        live = record.live or {}
        counts = [live.get(k) for k in ("calls", "refused_calls", "calls_not_run", "advances")]
        if all(type(n) is int and n >= 0 for n in counts):
            self.calls, self.refused, self.not_run, self.advances = (int(n or 0) for n in counts)
        given = live.get("clients")
        clients: list[Any] = given if isinstance(given, list) else []
        self.clients = [{"name": _clip(c.get("name")), "version": None if c.get("version") is None else
                         _clip(c.get("version"))} for c in clients[:_MAX_CLIENTS] if isinstance(c, dict)]
        self._wall_before = float(record.wall_s or 0.0)
        given_usage = live.get("usage")
        usage: dict[str, Any] = given_usage if isinstance(given_usage, dict) else {}
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if all(type(n) is int and 0 <= n <= MAX_REPORTED_TOKENS for n in (prompt, completion)):
            self.prompt_tokens, self.completion_tokens = int(prompt or 0), int(completion or 0)
        cost = usage.get("cost_usd")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool) and 0 <= cost <= MAX_REPORTED_COST_USD:
            self.cost_usd = float(cost)

    @property
    def wall_s(self) -> float:
        """Wall seconds the run has been played, the sessions before a :meth:`resume` included."""
        return self._wall_before + time.perf_counter() - self._started

    # -- stepping (reset, step, reward) ------------------------------------------
    def _new_world(self) -> World:
        if self.start is not None:
            return self.start.world(self.spec.seed)
        config = self._config if self._config is not None else world_config(self.spec)
        return world_spec(self.spec.world).make(config, self.spec.seed)

    def _mark_start(self) -> None:
        #: Where the episode started: its metric and instant, and the agent turns played since.
        summary = self.world.summary()
        self.start_metric = self._metric = float(summary["metric_value"])
        #: The shaping potential (``sum_i w_i x sub_i``; 0 unless ``reward="shaped"``) where it started.
        self.start_potential = self._potential = self._reward.potential(self.world, summary)
        self.start_us, self.turns = self.world.now_us, 0

    @property
    def metric(self) -> float:
        """The world's headline metric after the last step (``summary()["metric_value"]``)."""
        return self._metric

    @property
    def potential(self) -> float:
        """The shaping potential after the last step (``sum_i w_i x sub_i``; 0 unless ``reward="shaped"``)."""
        return self._potential

    @property
    def truncated(self) -> bool:
        """True once the episode's window is over (never without a window)."""
        if self.window is None:
            return False
        return self.window.ends(self.turns, self.window.days_since(self.start_us, self.world.now_us))

    def reset(self, seed: int | None = None) -> str:
        """Start the episode again on a fresh world (on ``seed``, else the last one); return the first observation,
        the world's opening prompt. The previous world is freed first: read what you need of it before.

        Raises:
            ConfigError: a recorded episode that has already answered a call, or asked for another seed: a run
                directory holds one run (open another episode for the next).
        """
        with self._lock:
            if self.root is not None:
                if self.calls or (seed is not None and int(seed) != self.spec.seed):
                    raise ConfigError("a recorded episode is one run; open another episode, in another run "
                                      "directory, for the next")
                return self.system_prompt()
            if seed is not None:
                self.spec = attrs.evolve(self.spec, seed=int(seed))
            self.world.close()  # a finished world would otherwise wait for the cyclic garbage collector
            self.world = self._new_world()
            self.driver = Driver(self.world)
            self._mark_start()
            self.calls = self.refused = self.not_run = self.advances = 0
            self.stopped, self.closed = None, False
            return self.system_prompt()

    def step(self, command: Any) -> tuple[str, float, bool, dict]:
        """Run one command line; return ``(observation, reward, done, info)``.

        The observation is the command's answer as canonical JSON text (a refusal's is its ``{"error", "hint"}``
        and changes nothing); the reward is the change of the world's metric the step caused (with
        ``reward="terminal"``, 0 until the last step, which gets the whole change), so an episode's rewards sum to
        its final metric minus its first. With ``reward="shaped"`` each step also gets ``sum_i w_i x`` the change
        of sub-metric ``i``, so the rewards sum to the metric's change plus ``sum_i w_i x (sub_i at the end -
        sub_i at the start)`` (:mod:`bizsim.runs.rewards`). ``info`` holds the answer as data, ``error``, the
        ``metric``, the world's ``status`` and ``time``, ``truncated`` and the agent ``turns``.

        Raises:
            BizSimError: the episode has ended (call :meth:`reset`), or ``command`` is not text.
        """
        self._require_playable()
        if not isinstance(command, str):
            raise BizSimError(f"command(={show(command)}) must be a command line (str), e.g. 'help'")
        before = len(self.world.trajectory)
        return self._stepped(self.call_line(command), before)

    def step_tool(self, name: str, arguments: Mapping[str, Any] | None) -> tuple[str, float, bool, dict]:
        """Run one tool call (a command's tool name and JSON arguments); as :meth:`step`."""
        self._require_playable()
        before = len(self.world.trajectory)
        return self._stepped(self.call_tool(name, arguments), before)

    def _require_playable(self) -> None:
        if self.done or self.truncated:
            why = self.world.status.value if self.world.done else (
                "its window is over" if self.truncated else self.stopped or "it was closed")
            raise BizSimError(f"the episode has ended ({why}); call reset() to start another")

    def _stepped(self, outcome: CallOutcome, before: int) -> tuple[str, float, bool, dict]:
        world = self.world
        # An advance command ends the agent's turn, even one the world refused (as turns count in a run's log).
        if ("cmd", world.advance_command) in world.trajectory.heads_since(before):
            self.turns += 1
        summary = world.summary()
        metric, potential = float(summary["metric_value"]), self._reward.potential(world, summary)  # 0 unshaped
        reward = (metric - self._metric) + (potential - self._potential)
        self._metric, self._potential = metric, potential
        truncated = not world.done and self.truncated
        if self.reward == "terminal":
            reward = metric - self.start_metric if outcome.done or truncated else 0.0
        result = outcome.result
        info = {"result": result, "error": isinstance(result, dict) and "error" in result, "metric": metric,
                "status": world.status.value, "time": world.now_iso, "truncated": truncated, "turns": self.turns}
        return observation_text(result), reward, outcome.done or truncated, info

    # -- what the agent reads ---------------------------------------------
    @property
    def done(self) -> bool:
        """True once the episode has ended (the world's end, a budget, or :meth:`close`)."""
        return self.world.done or self.stopped is not None or self.closed

    @property
    def advance_command(self) -> str:
        """The command that moves the clock (``sim resume``, ``task_done``...)."""
        return self.world.advance_command

    def tools(self) -> list[dict[str, Any]]:
        """OpenAI-style function declarations of the world's visible commands, the advance command included.

        Each is ``{"type": "function", "function": {"name", "description", "parameters"}}``; the name is the
        command's tool name (``task_accept``), the parameters the JSON schema derived from its declaration.
        """
        return self.world.commands.tool_schemas()

    def command_help(self, name: str) -> str:
        """A command's usage and one line per argument (``name`` as a command or tool name)."""
        spec = self.world.commands.by_name.get(name) or self.world.commands.by_tool_name(name)
        return spec.help_text()

    def system_prompt(self) -> str:
        """The world's system prompt (else its role line and command list), as the text drivers show it."""
        from bizsim.runs.observation import prompt_text

        return prompt_text(self.world)

    def rules(self) -> str:
        """The episode's rules as Markdown: the world, its budgets, the advance command and every command's help."""
        lines = [
            f"# {self.world.benchmark_id}, preset {self.preset_label}, seed {self.spec.seed}", "",
            f"Time moves only with `{self.advance_command}`; every other command takes no simulated time.",
            "A refused command changes nothing and answers {\"error\", \"hint\"}.",
            f"Budgets: {self._budget_text()}.", "", "## Commands", "",
        ]
        for spec in self.world.commands.visible():
            lines += ["```text", spec.help_text(), "```", ""]
        return "\n".join(lines)

    def observation(self) -> dict[str, Any]:
        """What the agent sees at a decision point without issuing a command."""
        with self._lock:
            return self.world.observation()

    @property
    def preset_label(self) -> str:
        """The preset as ``result.json`` names it: its name, or ``custom`` with overrides or a config object."""
        return self.spec.preset if not self.spec.overrides and self._config is None else "custom"

    # -- who plays -----------------------------------------------------------
    def set_client(self, name: Any, version: Any = None) -> None:
        """Record who plays, as the client reports itself (MCP ``clientInfo``, ``BIZSIM_CLIENT``); text is cut."""
        entry = {"name": _clip(name), "version": None if version is None else _clip(version)}
        with self._lock:
            if entry in self.clients:
                return
            if len(self.clients) >= _MAX_CLIENTS:
                if len(self._others) < _MAX_OTHER_CLIENTS:
                    self._others.add((entry["name"], entry["version"]))
            else:
                self.clients.append(entry)
            if not self.closed:
                self._write_result()

    def add_metadata(self, **facts: Any) -> None:
        """Keep JSON-able facts in ``result.json`` (``live.metadata``), e.g. ``add_metadata(sample_id="s1")``.

        Raises:
            ConfigError: a value is not JSON data.
        """
        try:
            facts = json.loads(json.dumps(facts, allow_nan=False))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"metadata must be JSON data: {exc}") from None
        with self._lock:
            self.metadata.update(facts)
            if self._begun and not self.closed:
                self._write_result()

    def report_usage(self, prompt_tokens: int = 0, completion_tokens: int = 0, cost_usd: float | None = None) -> None:
        """Add what the client's model spent (when the client reports it); a budget reached ends the episode.

        Raises:
            ConfigError: a token count that is not an integer from 0 to ``MAX_REPORTED_TOKENS``, or a cost that is
                not a finite number of dollars from 0 to ``MAX_REPORTED_COST_USD`` (nothing is added then).
        """
        for label, n in (("prompt_tokens", prompt_tokens), ("completion_tokens", completion_tokens)):
            if type(n) is not int or not 0 <= n <= MAX_REPORTED_TOKENS:
                raise ConfigError(f"{label} must be an integer from 0 to {MAX_REPORTED_TOKENS:,}, got {_clip(n)}")
        if cost_usd is not None and (isinstance(cost_usd, bool) or not isinstance(cost_usd, (int, float))
                                     or not 0.0 <= cost_usd <= MAX_REPORTED_COST_USD):  # NaN fails the range too
            raise ConfigError(f"cost_usd must be a number of dollars from 0 to {MAX_REPORTED_COST_USD:,.0f}, "
                              f"got {_clip(cost_usd)}")
        with self._lock:
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens
            if cost_usd is not None:
                self.cost_usd = (self.cost_usd or 0.0) + float(cost_usd)
            if not self.closed:
                self._settle_budgets(ran=False)

    # -- calls -------------------------------------------------------------
    def call_line(self, line: Any) -> CallOutcome:
        """Run one command line (``market browse --limit 5``; a leading ``yc-bench`` is dropped).

        ``... --help`` answers the help text without running anything, as a command-line program does.
        """
        line = _clean(line)
        with self._lock:
            refused = self._precheck(line if isinstance(line, str) else None, "A command line must be text.")
            if refused is not None:
                return refused
            help_text = self.world.commands.help_for(line)
            if help_text is not None:
                return self._answer({"help": help_text}, EXIT_OK, None, advanced=False, ran=False)
            try:
                spec, _ = self.world.commands.parse(line, allow_hidden=False)
            except HiddenCommandError as exc:
                # A built-in agent's command, with or without its options: refused here as unknown, since a replay
                # (which may issue them) would run it.
                return self._not_run(exc.message, exc.hint or self.world.commands.suggest(""))
            except CommandError:
                spec = None  # the world refuses it too, and records the refusal: a replay refuses it again
            usage = spec is None
            before = self.world.now_us
            result = self.driver.send(line)
            return self._settle(result, None if usage or spec is None else spec, usage, before)

    def call_argv(self, argv: Sequence[str]) -> CallOutcome:
        """Run one command given as words (``["task", "accept", "--task-id", "Task-42"]``), as a program gets its
        argv: each word is one argument, whatever quotes or spaces it holds (no shell ever reads it)."""
        if isinstance(argv, str) or not all(isinstance(w, str) for w in argv):
            return self.call_line(None)
        return self.call_line(shlex.join(list(argv)))

    def call_tool(self, name: Any, arguments: Mapping[str, Any] | str | None = None) -> CallOutcome:
        """Run one tool call: a tool name from :meth:`tools` and its arguments (a JSON object, or its text)."""
        name, arguments = _clean(name), _clean(arguments)
        with self._lock:
            if isinstance(arguments, str):
                text = arguments
            else:
                try:
                    text = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
                except (TypeError, ValueError, RecursionError):
                    text = None
            refused = self._precheck(text, "Tool arguments must be one JSON object.")
            if refused is not None:
                return refused
            if isinstance(arguments, str):
                try:
                    arguments = _clean(loads_untrusted(arguments)) if arguments.strip() else {}
                except (ValueError, RecursionError) as exc:
                    return self._not_run(f"The tool arguments are not valid JSON: {exc}.", "Send one JSON object.")
            if arguments is not None and not isinstance(arguments, Mapping):
                return self._not_run(f"Tool arguments must be a JSON object, got {type(arguments).__name__}.",
                                     "Send one JSON object.")
            try:
                spec = self.world.commands.by_tool_name(name) if isinstance(name, str) else None
            except CommandError:
                spec = None
            if spec is not None and spec.hidden:
                return self._not_run(f"Unknown tool '{name}'.", self.world.commands.suggest(spec.name))
            before = self.world.now_us
            result = self.driver.send_tool(name if isinstance(name, str) else repr(name), dict(arguments or {}))
            usage = spec is None or (isinstance(result, dict) and "error" in result and
                                                     self._bind_fails(spec, arguments))
            return self._settle(result, None if usage else spec, usage, before)

    # -- the end -------------------------------------------------------------
    def close(self, detail: str | None = None) -> dict[str, Any]:
        """End the episode for this surface (the client went away, the server stops) and write it a last time.

        A world still running keeps its state (``terminal_reason`` ``agent_stopped``; ``detail`` says why). Safe
        to call twice. Returns what ``result.json`` holds.
        """
        with self._lock:
            if not self.closed:
                if self.stopped is None and not self.world.done and detail:
                    self.stopped = _clip(detail)
                self.closed = True
                self._recorder.finish([self.world], self.record())
                if self._lockfile is not None:
                    self._lockfile.close()
            return self.result()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close("closed")

    def result(self) -> dict[str, Any]:
        """What ``result.json`` holds now: the run's figures (as a baseline run's), plus ``live``."""
        with self._lock:
            return self.record().to_dict()

    # -- inside --------------------------------------------------------------
    def _precheck(self, text: str | None, wrong_type: str) -> CallOutcome | None:
        if self.closed:
            why = f" ({self.stopped})" if self.stopped else ""
            return self._not_run(f"The episode is closed{why}.", "Start a new episode.", record=False)
        if self.done:
            detail = self.world.terminal_detail or self.stopped
            status = self.world.status.value + (f": {detail}" if detail else "")
            # Not counted either: the episode's figures stay those of its end.
            return self._not_run(f"The episode has ended ({status}).", "Start a new episode.", record=False)
        if text is None:
            return self._not_run(wrong_type, "Try 'help'.")
        if len(text) > self.budgets.max_call_chars:
            return self._not_run(f"The call is {len(text):,} characters long; the limit is "
                                 f"{self.budgets.max_call_chars:,}.", "Send shorter arguments.")
        return None

    @staticmethod
    def _bind_fails(spec: Any, arguments: Any) -> bool:
        try:
            spec.bind_json(arguments)
        except CommandError:
            return True
        return False

    def _not_run(self, message: str, hint: str, *, record: bool = True) -> CallOutcome:
        """A call refused before the world saw it: nothing changed, nothing to replay; only counted."""
        if record:
            self.calls += 1
            self.not_run += 1
            self._settle_budgets(ran=False)
        return CallOutcome({"error": message, "hint": hint}, EXIT_USAGE, None, False, self.done)

    def _settle(self, result: dict[str, Any], spec: Any, usage: bool, before: int) -> CallOutcome:
        failed = isinstance(result, dict) and "error" in result
        status = EXIT_USAGE if usage else EXIT_REFUSED if failed else EXIT_OK
        advanced = spec is not None and spec.advances and not failed
        return self._answer(result, status, None if spec is None else spec.name, advanced=advanced, ran=True,
                            moved=self.world.now_us != before)

    def _answer(self, result: dict[str, Any], status: int, command: str | None, *, advanced: bool, ran: bool,
                moved: bool = False) -> CallOutcome:
        self.calls += 1
        if status == EXIT_REFUSED:
            self.refused += 1
        elif status == EXIT_USAGE:
            self.not_run += 1
        if advanced or moved:
            self.advances += 1
        self._settle_budgets(ran=ran)
        return CallOutcome(result, status, command, advanced, self.done)

    def _settle_budgets(self, *, ran: bool) -> None:
        """Check the budgets and write what changed: the world's new records when it ran or a budget ended it."""
        if self._check_budgets() or ran:
            self._record()
        else:
            self._write_result()

    def _check_budgets(self) -> bool:
        """End the episode as the LLM harness ends a run: the world is aborted with the budget's name.

        Returns:
            whether a budget ended it now (its ``episode_end`` record is then still to be written).
        """
        if self.world.done or self.stopped is not None:
            return False
        reason = None
        if self.max_turns is not None and self.calls >= self.max_turns:
            reason = f"the episode reached max_turns={self.max_turns}", "max_turns"
        elif self.budgets.max_tokens_total is not None and (
                self.prompt_tokens + self.completion_tokens >= self.budgets.max_tokens_total):
            reason = f"used {self.prompt_tokens + self.completion_tokens} tokens", "max_tokens_total"
        elif self.budgets.max_cost_usd is not None and self.cost_usd is not None and (
                self.cost_usd >= self.budgets.max_cost_usd):
            reason = f"spent ${self.cost_usd:.4f}", "max_cost_usd"
        if reason is None:
            return False
        self.stopped = reason[1]
        self.world.abort(reason[1])
        return True

    def _record(self) -> None:
        """Record the world's new trajectory records and commands, then rewrite ``result.json``."""
        if self.root is None:
            return
        traj = self.world.trajectory
        if self._counted < len(traj):
            self._command_count += sum(1 for _ in traj.of_kind("cmd", self._counted))
            self._counted = len(traj)
        self._recorder.checkpoint(self.world, self.record())

    def _write_result(self) -> None:
        if self.root is not None:
            self._recorder.checkpoint(self.world, self.record(), logs=False)

    def record(self) -> RunRecord:
        """The typed record ``result.json`` holds now: a baseline run's, plus ``live``."""
        w = self.world
        return RunRecord(
            world=w.name, benchmark_id=w.benchmark_id, preset=self.preset_label, seed=self.spec.seed,
            agent=self.spec.agent, agent_options={}, terminal_reason=TERMINAL_REASONS[w.status],
            bankrupt=w.status is Status.BANKRUPT, turns=self.calls, commands=self._command_count, summary=w.summary(),
            terminal_detail=w.terminal_detail if w.done else self.stopped,
            live={
                "surface": self.surface, "clients": list(self.clients), "other_clients": len(self._others),
                "calls": self.calls, "refused_calls": self.refused, "calls_not_run": self.not_run,
                "advances": self.advances, "open": not self.closed,
                "budgets": {"max_turns": self.max_turns, "max_tokens_total": self.budgets.max_tokens_total,
                            "max_cost_usd": self.budgets.max_cost_usd, "max_call_chars": self.budgets.max_call_chars},
                "usage": {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                          "cost_usd": self.cost_usd},
                "overrides": self.spec.overrides, "base_preset": self.spec.preset, "metadata": self.metadata,
            },
            wall_s=round(self.wall_s, 6),
        )

    def _budget_text(self) -> str:
        parts = [f"{self.max_turns} calls" if self.max_turns is not None else "no call limit"]
        if self.budgets.max_tokens_total is not None:
            parts.append(f"{self.budgets.max_tokens_total} tokens")
        if self.budgets.max_cost_usd is not None:
            parts.append(f"${self.budgets.max_cost_usd}")
        parts.append(f"calls up to {self.budgets.max_call_chars:,} characters")
        return ", ".join(parts)


#: The name the surfaces have always used.
LiveEpisode = Episode

def _recorded_budgets(live: Mapping[str, Any]) -> Budgets:
    """The budgets a live episode recorded (a resumed one keeps them); what is missing is no limit."""
    recorded = live.get("budgets")
    given: Mapping[str, Any] = recorded if isinstance(recorded, Mapping) else {}
    names = ("max_turns", "max_tokens_total", "max_cost_usd", "max_call_chars")
    return Budgets(**{k: given[k] for k in names if given.get(k) is not None})


def _clean(value: Any) -> Any:
    """Lone surrogates (JSON escapes and undecodable argv bytes carry them; no UTF-8 file can hold them) as U+FFFD,
    in text, keys and nested values, as the world cleans a command line."""
    if isinstance(value, str):
        return scalar_text(value)
    if isinstance(value, Mapping):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _clip(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = text[:MAX_CLIENT_NAME_CHARS]
    return text.encode("utf-8", "backslashreplace").decode("utf-8")



