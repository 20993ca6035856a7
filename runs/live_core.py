"""The core of a live episode: a registered world answering one call at a time, recorded after each call.

:class:`EpisodeCore` opens the world of a :class:`~bizsim.runs.live_spec.LiveSpec`, answers command lines, argv
and tool calls (:class:`~bizsim.runs.call_outcome.CallOutcome`), steps (``(observation, reward, done, info)``,
the reward 0: rewarding is a layer's) and resets, and hands its recorder the world's new records after each call.
It keeps the counters, the clients and their usage, and carries a resumed run's on. What bounds an episode (its
budgets, its window) and what rewards it are layers around it (:mod:`bizsim.runs.live`); the core keeps only the
bound agent text must never pass: a call longer than ``max_call_chars`` is refused before the world sees it.
"""

from __future__ import annotations

import json
import shlex
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Self

from bizsim.simcore.commands import HiddenCommandError
from bizsim.simcore.driver import Driver
from bizsim.simcore.errors import BizSimError, CommandError, ConfigError
from bizsim.simcore.limits import MAX_CALL_CHARS, show
from bizsim.simcore.untrusted_json import loads_untrusted
from bizsim.simcore.world import Status, World

from bizsim.runs.call_outcome import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, CallOutcome
from bizsim.runs.episode import TERMINAL_REASONS
from bizsim.runs.live_clients import ClientLedger, clean, clip
from bizsim.runs.live_lock import hold
from bizsim.runs.live_spec import LiveSpec
from bizsim.runs.observation import observation_text, prompt_text
from bizsim.runs.record import RunRecord
from bizsim.runs.recorder import NullRecorder, Recorder
from bizsim.runs.rundir import RunDir, make_output_dir
from bizsim.runs.runspec import RunSpec

__all__ = ["EpisodeCore"]

#: The limits a core records when no layer declares its own (``live.budgets`` in ``result.json``).
_NO_LIMITS = {"max_turns": None, "max_tokens_total": None, "max_cost_usd": None}


class EpisodeCore:
    """One episode of a registered world, driven from outside one call at a time, recorded as it goes.

    Args:
        spec: what it plays (world, preset, seed, start, the surface).
        recorder: where it records (a :class:`~bizsim.runs.recorder.RunDirRecorder`); default nothing kept.
        max_call_chars: the longest command line, or tool arguments as JSON text, passed to the world.
        metadata: JSON-able facts kept in ``result.json`` under ``live.metadata``.
        resumed: the record and command log of the run the recorder's directory held, replayed before anything is
            written (:meth:`~bizsim.runs.live.Episode.resume` passes them; counters and wall time carry on).
        held: the directory's lock, when the caller took it already (a resume reads the run under it).
        begin: start recording now (``config.toml``, the first ``result.json``); a composer that still declares
            limits passes ``False`` and calls :meth:`begin` once the stack is built.

    Raises:
        ConfigError: a directory that holds a run (or a live episode), or one that cannot be written; a log that
            does not replay.
    """

    def __init__(self, spec: LiveSpec, recorder: Recorder | None = None, *, max_call_chars: int = MAX_CALL_CHARS,
                 metadata: Mapping[str, Any] | None = None, resumed: tuple[RunRecord, Sequence[tuple[int, str]]]
                 | None = None, held: Any = None, begin: bool = True) -> None:
        self.live_spec = spec
        self.max_call_chars = max_call_chars
        self._recorder: Recorder = recorder if recorder is not None else NullRecorder()
        self.root = make_output_dir(self._recorder.root) if self._recorder.root is not None else None
        #: Calls are serialised: any number of threads may call one episode (layers take it too).
        self.lock = threading.RLock()
        self._started = time.perf_counter()
        self._lockfile = held if held is not None else hold(RunDir(self.root).live_lock) if self.root is not None \
            else None
        self._begun = False  # the recorder has begun: result.json is rewritten as the episode changes
        try:
            self._recorder.claim()
            self.world: World
            self.world, self.driver = self._open()
            if resumed is not None:
                self._replay(resumed[1])
            self._mark_start()
            self.limits: dict[str, Any] = {**_NO_LIMITS, "max_call_chars": max_call_chars}
            self.calls = self.refused = self.not_run = self.advances = 0
            self.ledger = ClientLedger()
            self.ledger.add_metadata(dict(metadata or {}))
            self.stopped: str | None = None  # why the surface ended the episode (a budget, the client leaving)
            self.closed = False
            self._command_count = 0  # command records among them
            self._counted = 0  # trajectory records whose commands are counted
            self._wall_before = 0.0  # wall seconds of the sessions before a resume
            if resumed is not None:
                self._carry(resumed[0])
            if begin:
                self.begin()
        except BaseException:
            self.release()
            raise

    def __repr__(self) -> str:
        return f"EpisodeCore({self.world.benchmark_id} preset {self.preset_label} seed {self.spec.seed})"

    @property
    def unwrapped(self) -> EpisodeCore:
        """The core itself (a layer's ``unwrapped`` is the core beneath it)."""
        return self

    def begin(self) -> None:
        """Start recording: the config, the logs and the first ``result.json`` (once)."""
        if not self._begun:
            self._recorder.begin(self.world, live=True)
            self._begun = True
            self._record()

    def release(self) -> None:
        """Let go of the run directory's lock (an episode that failed to open, or closed)."""
        if self._lockfile is not None:
            self._lockfile.close()

    def declare_limits(self, **limits: Any) -> None:
        """A layer's limits (``max_turns``, ``max_tokens_total``, ``max_cost_usd``), recorded as ``live.budgets``."""
        with self.lock:
            self.limits.update(limits)
            if self._begun and not self.closed:
                self._write_result()

    def _open(self) -> tuple[World, Any]:
        """A fresh world of the spec and what sends it commands (``send``, ``send_tool``: a kernel Driver; an
        arena's outside seat has its own)."""
        world = self.live_spec.new_world()
        return world, Driver(world)

    def _replay(self, log: Sequence[tuple[int, str]]) -> None:
        for _, line in log:
            self.driver.send(line)
        if self.world.command_log() != list(log):
            run = self.spec
            raise ConfigError(f"{str(self.root)!r}: its command log does not replay on {run.world} preset "
                              f"{run.preset} seed {run.seed}; the directory was edited or written by "
                              "another bizsim version")

    def _carry(self, record: RunRecord) -> None:
        live = record.live or {}
        counts = [live.get(k) for k in ("calls", "refused_calls", "calls_not_run", "advances")]
        if all(type(n) is int and n >= 0 for n in counts):
            self.calls, self.refused, self.not_run, self.advances = (int(n or 0) for n in counts)
        self.ledger.carry(live)
        self._wall_before = float(record.wall_s or 0.0)

    def _mark_start(self) -> None:
        #: Where the episode started (the instant) and the agent turns (advance commands) played since.
        self.start_us, self.turns = self.world.now_us, 0
        #: The world's summary as the last step reported it (``None`` before the first step).
        self.step_summary: dict[str, Any] | None = None

    @property
    def wall_s(self) -> float:
        """Wall seconds the run has been played, the sessions before a resume included."""
        return self._wall_before + time.perf_counter() - self._started

    # -- stepping --------------------------------------------------------------
    def reset(self, seed: int | None = None) -> str:
        """Start the episode again on a fresh world (on ``seed``, else the last one); return the first observation,
        the world's opening prompt. The previous world is freed first: read what you need of it before.

        Raises:
            ConfigError: a recorded episode that has already answered a call, or asked for another seed: a run
                directory holds one run (open another episode for the next).
        """
        with self.lock:
            if self.root is not None:
                if self.calls or (seed is not None and int(seed) != self.spec.seed):
                    raise ConfigError("a recorded episode is one run; open another episode, in another run "
                                      "directory, for the next")
                return self.system_prompt()
            if seed is not None:
                self.live_spec = self.live_spec.reseeded(seed)
            self.world.close()  # a finished world would otherwise wait for the cyclic garbage collector
            self.world, self.driver = self._open()
            self._mark_start()
            self.calls = self.refused = self.not_run = self.advances = 0
            self.stopped, self.closed = None, False
            return self.system_prompt()

    def step(self, command: Any) -> tuple[str, float, bool, dict]:
        """Run one command line; return ``(observation, reward, done, info)``.

        The observation is the command's answer as canonical JSON text (a refusal's is its ``{"error", "hint"}``
        and changes nothing); the reward is 0 (a :class:`~bizsim.runs.live_rewarded.Rewarded` layer rewards).
        ``info`` holds the answer as data, ``error``, the world's ``metric``, ``status`` and ``time``, ``truncated``
        (never, without a window layer) and the agent ``turns``.

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

    @property
    def truncated(self) -> bool:
        """Whether the episode's window is over: never for a core (a window is a layer)."""
        return False

    def _require_playable(self) -> None:
        if self.done:
            why = self.world.status.value if self.world.done else self.stopped or "it was closed"
            raise BizSimError(f"the episode has ended ({why}); call reset() to start another")

    def _stepped(self, outcome: CallOutcome, before: int) -> tuple[str, float, bool, dict]:
        world = self.world
        # An advance command ends the agent's turn, even one the world refused (as turns count in a run's log).
        if ("cmd", world.advance_command) in world.trajectory.heads_since(before):
            self.turns += 1
        result = outcome.result
        info = {"result": result, "error": isinstance(result, dict) and "error" in result,
                "metric": float(self.summarize()["metric_value"]), "status": world.status.value,
                "time": world.now_iso, "truncated": False, "turns": self.turns}
        return observation_text(result), 0.0, outcome.done, info

    def summarize(self) -> dict[str, Any]:
        """The world's ``summary()`` now, kept as :attr:`step_summary` (what a step reports; a reward layer reads it
        rather than asking the world again)."""
        self.step_summary = self.world.summary()
        return self.step_summary

    # -- what the agent reads ---------------------------------------------------
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
        return prompt_text(self.world)

    def rules(self) -> str:
        """The episode's rules as Markdown: the world, its budgets, the advance command and every command's help."""
        lines = [
            f"# {self.world.benchmark_id}, preset {self.preset_label}, seed {self.spec.seed}", "",
            f"Time moves only with `{self.advance_command}`; every other command takes no simulated time.",
            "A refused command changes nothing and answers {\"error\", \"hint\"}.",
            f"Budgets: {self._limits_text()}.", "", "## Commands", "",
        ]
        for spec in self.world.commands.visible():
            lines += ["```text", spec.help_text(), "```", ""]
        return "\n".join(lines)

    def observation(self) -> dict[str, Any]:
        """What the agent sees at a decision point without issuing a command."""
        with self.lock:
            return self.world.observation()

    @property
    def preset_label(self) -> str:
        """The preset as ``result.json`` names it: its name, or ``custom`` with overrides or a config object."""
        return self.live_spec.preset_label

    @property
    def spec(self) -> RunSpec:
        """The run as ``result.json`` names it (world, preset, agent, seed, overrides)."""
        return self.live_spec.run

    @property
    def surface(self) -> str:
        """Who drives the episode (``mcp``, ``shell``, ``inspect``...)."""
        return self.live_spec.surface

    # -- who plays -----------------------------------------------------------------
    @property
    def clients(self) -> list[dict[str, str | None]]:
        """The clients that reported themselves (the first ``MAX_CLIENTS``)."""
        return self.ledger.clients

    @property
    def metadata(self) -> dict[str, Any]:
        """The facts kept under ``live.metadata``."""
        return self.ledger.metadata

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens the clients reported."""
        return self.ledger.prompt_tokens

    @property
    def completion_tokens(self) -> int:
        """Completion tokens the clients reported."""
        return self.ledger.completion_tokens

    @property
    def cost_usd(self) -> float | None:
        """Dollars the clients reported (``None``: none reported a cost)."""
        return self.ledger.cost_usd

    def set_client(self, name: Any, version: Any = None) -> None:
        """Record who plays, as the client reports itself (MCP ``clientInfo``, ``BIZSIM_CLIENT``); text is cut."""
        with self.lock:
            if self.ledger.add_client(name, version) and not self.closed:
                self._write_result()

    def add_metadata(self, **facts: Any) -> None:
        """Keep JSON-able facts in ``result.json`` (``live.metadata``), e.g. ``add_metadata(sample_id="s1")``.

        Raises:
            ConfigError: a value is not JSON data.
        """
        with self.lock:
            self.ledger.add_metadata(facts)
            if self._begun and not self.closed:
                self._write_result()

    def report_usage(self, prompt_tokens: int = 0, completion_tokens: int = 0, cost_usd: float | None = None) -> None:
        """Add what the client's model spent (when the client reports it; a budget layer may end the episode).

        Raises:
            ConfigError: a token count that is not an integer from 0 to ``MAX_REPORTED_TOKENS``, or a cost that is
                not a finite number of dollars from 0 to ``MAX_REPORTED_COST_USD`` (nothing is added then).
        """
        with self.lock:
            self.ledger.add_usage(prompt_tokens, completion_tokens, cost_usd)
            if not self.closed:
                self._write_result()

    # -- calls -------------------------------------------------------------------
    def call_line(self, line: Any) -> CallOutcome:
        """Run one command line (``market browse --limit 5``; a leading ``yc-bench`` is dropped).

        ``... --help`` answers the help text without running anything, as a command-line program does.
        """
        line = clean(line)
        with self.lock:
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
                return self.refuse(exc.message, exc.hint or self.world.commands.suggest(""))
            except CommandError:
                spec = None  # the world refuses it too, and records the refusal: a replay refuses it again
            before = self.world.now_us
            result = self.driver.send(line)
            return self._settle(result, spec, spec is None, before)

    def call_argv(self, argv: Sequence[str]) -> CallOutcome:
        """Run one command given as words (``["task", "accept", "--task-id", "Task-42"]``), as a program gets its
        argv: each word is one argument, whatever quotes or spaces it holds (no shell ever reads it)."""
        if isinstance(argv, str) or not all(isinstance(w, str) for w in argv):
            return self.call_line(None)
        return self.call_line(shlex.join(list(argv)))

    def call_tool(self, name: Any, arguments: Mapping[str, Any] | str | None = None) -> CallOutcome:
        """Run one tool call: a tool name from :meth:`tools` and its arguments (a JSON object, or its text)."""
        name, arguments = clean(name), clean(arguments)
        with self.lock:
            refused = self._precheck(_arguments_text(arguments), "Tool arguments must be one JSON object.")
            if refused is not None:
                return refused
            if isinstance(arguments, str):
                try:
                    arguments = clean(loads_untrusted(arguments)) if arguments.strip() else {}
                except (ValueError, RecursionError) as exc:
                    return self.refuse(f"The tool arguments are not valid JSON: {exc}.", "Send one JSON object.")
            if arguments is not None and not isinstance(arguments, Mapping):
                return self.refuse(f"Tool arguments must be a JSON object, got {type(arguments).__name__}.",
                                   "Send one JSON object.")
            try:
                spec = self.world.commands.by_tool_name(name) if isinstance(name, str) else None
            except CommandError:
                spec = None
            if spec is not None and spec.hidden:
                return self.refuse(f"Unknown tool '{name}'.", self.world.commands.suggest(spec.name))
            before = self.world.now_us
            result = self.driver.send_tool(name if isinstance(name, str) else repr(name), dict(arguments or {}))
            usage = spec is None or (isinstance(result, dict) and "error" in result and _bind_fails(spec, arguments))
            return self._settle(result, None if usage else spec, usage, before)

    def refuse(self, message: str, hint: str) -> CallOutcome:
        """Answer a call refused before the world saw it: nothing changed, nothing to replay; it is counted."""
        with self.lock:
            self.calls += 1
            self.not_run += 1
            self._write_result()
            return CallOutcome({"error": message, "hint": hint}, EXIT_USAGE, None, False, self.done)

    def abort(self, detail: str) -> None:
        """End the episode now as the LLM harness ends a run (a budget reached): the world is aborted with
        ``detail`` (status ``error``) and its end recorded."""
        with self.lock:
            self.stopped = detail
            self.world.abort(detail)
            self._record()

    def _precheck(self, text: str | None, wrong_type: str) -> CallOutcome | None:
        if self.closed:
            why = f" ({self.stopped})" if self.stopped else ""
            return _ended(f"The episode is closed{why}.", self.done)
        if self.done:
            detail = self.world.terminal_detail or self.stopped
            status = self.world.status.value + (f": {detail}" if detail else "")
            # Not counted either: the episode's figures stay those of its end.
            return _ended(f"The episode has ended ({status}).", self.done)
        if text is None:
            return self.refuse(wrong_type, "Try 'help'.")
        if len(text) > self.max_call_chars:
            return self.refuse(f"The call is {len(text):,} characters long; the limit is {self.max_call_chars:,}.",
                               "Send shorter arguments.")
        return None

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
        if ran:  # the world's new records too
            self._record()
        else:
            self._write_result()
        return CallOutcome(result, status, command, advanced, self.done)

    # -- the end -------------------------------------------------------------------
    def close(self, detail: str | None = None) -> dict[str, Any]:
        """End the episode for this surface (the client went away, the server stops) and write it a last time.

        A world still running keeps its state (``terminal_reason`` ``agent_stopped``; ``detail`` says why). Safe
        to call twice. Returns what ``result.json`` holds.
        """
        with self.lock:
            if not self.closed:
                if self.stopped is None and not self.world.done and detail:
                    self.stopped = clip(detail)
                self.closed = True
                self._recorder.finish([self.world], self.record())
                self.release()
            return self.result()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close("closed")

    def result(self) -> dict[str, Any]:
        """What ``result.json`` holds now: the run's figures (as a baseline run's), plus ``live``."""
        with self.lock:
            return self.record().to_dict()

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
        w, run, ledger = self.world, self.spec, self.ledger
        return RunRecord(
            world=w.name, benchmark_id=w.benchmark_id, preset=self.preset_label, seed=run.seed,
            agent=run.agent, agent_options={}, terminal_reason=TERMINAL_REASONS[w.status],
            bankrupt=w.status is Status.BANKRUPT, turns=self.calls, commands=self._command_count, summary=w.summary(),
            terminal_detail=w.terminal_detail if w.done else self.stopped,
            live={
                "surface": self.surface, "clients": list(ledger.clients), "other_clients": len(ledger.others),
                "calls": self.calls, "refused_calls": self.refused, "calls_not_run": self.not_run,
                "advances": self.advances, "open": not self.closed, "budgets": dict(self.limits),
                "usage": ledger.usage(), "overrides": run.overrides, "base_preset": run.preset,
                "metadata": ledger.metadata,
            },
            wall_s=round(self.wall_s, 6),
        )

    def _limits_text(self) -> str:
        limits = self.limits
        parts = [f"{limits['max_turns']} calls" if limits["max_turns"] is not None else "no call limit"]
        if limits["max_tokens_total"] is not None:
            parts.append(f"{limits['max_tokens_total']} tokens")
        if limits["max_cost_usd"] is not None:
            parts.append(f"${limits['max_cost_usd']}")
        parts.append(f"calls up to {self.max_call_chars:,} characters")
        return ", ".join(parts)


def _arguments_text(arguments: Any) -> str | None:
    """Tool arguments as the text whose length is bounded: as given, or as JSON (``None``: not JSON data)."""
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None


def _bind_fails(spec: Any, arguments: Any) -> bool:
    try:
        spec.bind_json(arguments)
    except CommandError:
        return True
    return False


def _ended(message: str, done: bool) -> CallOutcome:
    """A call after the end: not counted, not recorded (the episode's figures stay those of its end)."""
    return CallOutcome({"error": message, "hint": "Start a new episode."}, EXIT_USAGE, None, False, done)
