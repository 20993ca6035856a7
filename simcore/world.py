"""The base every world builds on: clock, commands, status, trajectory."""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Generator, Mapping
from marshal import dumps as _dumps
from typing import TYPE_CHECKING, Any, ClassVar

import simpy

from .calendar import Calendar
from .commands import CommandSet, CommandSpec, HiddenCommandError
from .env import SimEnvironment
from .errors import CommandError, ConfigError, NotInProcessError
from .streams import RandomStreams
from .trajectory import Trajectory

if TYPE_CHECKING:
    from .snapshot import Snapshot

__all__ = ["World", "Status", "Agent", "agent_process"]

#: An agent: a function from a world to a SimPy process generator.
Agent = Callable[["World"], Generator[simpy.Event, Any, Any]]


#: How the command log writes a hidden command an agent was refused: a word no world knows, so a replay (which
#: may run hidden commands, the built-in agents' own) refuses it again.
REFUSED_HIDDEN = "?hidden "
_SURROGATE = re.compile("[\ud800-\udfff]")


def scalar_text(text: str) -> str:
    """``text`` with every lone surrogate (which JSON escapes can carry and no UTF-8 file can hold) as U+FFFD.

    A command line is cleaned so before the world reads it, so the line the log keeps is the line that ran and
    its replay runs the same; an escaped form could replay as another, accepted command.
    """
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def _clean(error: dict[str, Any]) -> dict[str, Any]:
    return {k: scalar_text(v) if isinstance(v, str) else v for k, v in error.items()}


def _printable(text: Any) -> str:
    """Refused input as loggable UTF-8 text."""
    return scalar_text(text) if isinstance(text, str) else scalar_text(repr(text))


class Status(str, enum.Enum):
    """Where an episode stands."""

    RUNNING = "running"
    BANKRUPT = "bankrupt"
    HORIZON = "horizon_reached"
    COLLAPSED = "collapsed"
    ERROR = "error"


def agent_process(agent: Agent, world: World) -> Generator[simpy.Event, Any, Any]:
    """``agent(world)``, checked to be the generator a SimPy process needs.

    Raises:
        ConfigError: the agent returned something else (it never yields: a ``yield world.advance()`` is missing).
    """
    process = agent(world)
    if not isinstance(process, Generator):
        name = getattr(agent, "__name__", type(agent).__name__)
        raise ConfigError(f"agent {name!r} returned {type(process).__name__}, not a generator: an agent is a generator "
                        "function that yields world.advance() (or another event) to let time run; add the yield")
    return process


class World:
    """A simulated business: a SimPy model plus the commands an agent may issue.

    Subclasses set ``name``, ``version``, ``commands`` and ``advance_command``,
    build their state and processes in ``__init__`` (signature
    ``(config_or_preset, seed, **world_options)``), set :attr:`horizon_us`, and
    implement :meth:`summary`, :meth:`state`, :meth:`observation` and
    :meth:`invariants`; :meth:`system_prompt` has a default. A world that keeps
    the agent's notes across a restart takes ``scratchpad=`` in its constructor
    and holds them in :attr:`scratchpad`. ``check_world`` checks the contract.

    Commands run in zero simulated time. Only the advance command moves the
    clock: it returns a SimPy event that fires at the next stop with the
    stop's report. An agent is a process that yields that event.
    """

    name: ClassVar[str] = "world"
    version: ClassVar[int] = 1
    #: The commands an agent may issue (a class attribute; a world may give one instance its own set).
    commands: CommandSet
    advance_command: ClassVar[str]
    #: The instant the episode reaches its horizon, in microseconds (progress bars; the window of a run).
    horizon_us: int
    #: Whether the world keeps the agent's notes itself (a ``scratchpad`` command; the startup world).
    has_scratchpad: ClassVar[bool] = False
    #: The agent's notes, carried into the next episode after a bankruptcy (worlds with :attr:`has_scratchpad`).
    scratchpad: str = ""
    #: One line telling an agent who it is in this world, for harnesses that compose the prompt.
    agent_role: ClassVar[str | None] = None
    #: Fields of command answers that hold money without saying so in their name (``*_cents`` says it), and
    #: their unit, ``"cents"`` or ``"dollars"``: what a person's surface (the shell) shows as dollars. Names
    #: fixed by a reference protocol (``balance_delta``) keep their names; this says what they hold. A field whose
    #: value is a mapping (``prices``: product name -> dollars) says the unit of its values.
    money_fields: ClassVar[Mapping[str, str]] = {}
    #: Constructor keyword options a snapshot must carry to rebuild the world (plain data only).
    restore_options: dict[str, Any]
    #: Why this world cannot be snapshotted (built with objects no snapshot can carry), or ``None``.
    snapshot_refusal: str | None = None

    def __init__(self, config: Any, seed: int, calendar: Calendar, *, env: SimEnvironment | None = None) -> None:
        """``env``: the environment to live in, shared with other worlds (the seats of an arena); default a new one."""
        self.config = config
        self.seed = int(seed)
        self.calendar = calendar
        self.env = SimEnvironment() if env is None else env
        self.streams = RandomStreams(self.seed)
        self.trajectory = Trajectory()
        # Commands append packed records directly: one call less per record on the hot path.
        self._record = self.trajectory.appender()
        self.status = Status.RUNNING
        self.terminal_detail: str | None = None
        self.finished = self.env.event()
        self._now_us = 0
        self._waiter: simpy.Event | None = None
        #: Counted commands are refused while this is true (see :meth:`_refuse`); a day-based world sets it.
        self._actions_closed = False
        self.restore_options = {}

    # clock ---------------------------------------------------------------
    @property
    def now_us(self) -> int:
        """The current instant in microseconds since the episode start."""
        return self._now_us

    @property
    def now_iso(self) -> str:
        """The current instant as ISO-8601 text."""
        return self.calendar.iso(self._now_us)

    @property
    def status(self) -> Status:
        """Where the episode stands; setting it keeps :attr:`done` in step."""
        return self._status

    @status.setter
    def status(self, value: Status) -> None:
        self._status = value
        #: True once the episode has ended (a plain attribute: agents read it every turn).
        self.done = value is not Status.RUNNING

    @property
    def benchmark_id(self) -> str:
        """Versioned id, e.g. ``startup-v1``; bumped whenever dynamics change."""
        from .registry import benchmark_id

        return benchmark_id(self.name, self.version)

    # commands -------------------------------------------------------------
    def execute(
        self, line: str, *, allow_hidden: bool = False, driven: bool = False
    ) -> dict[str, Any] | simpy.Event:
        """Run a command line; bad input comes back as ``{"error", "hint"}``.

        Returns the result dict, or for the advance command the event to yield.
        Hidden commands (internal to built-in agents) are refused unless
        ``allow_hidden`` (replay sets it).

        Args:
            driven: the caller runs the environment to the advance command's
                event itself (:class:`~bizsim.simcore.driver.Driver`, replay),
                so the event is returned even outside a process.

        Raises:
            NotInProcessError: the advance command, issued outside a running
                process without ``driven``; nothing ran or was recorded.
        """
        if type(line) is str and not line.isascii():
            line = scalar_text(line)
        try:
            spec, kwargs = self.commands.parse(line, allow_hidden=allow_hidden)
        except CommandError as exc:
            hidden = isinstance(exc, HiddenCommandError)
            error = _clean(exc.to_dict())
            record: dict[str, Any] = {"line": _printable(line), "error": error}
            if hidden:  # the log must replay it as a refusal, though a replay may run hidden commands
                record["hidden"] = True
            self.trajectory.add(self._now_us, "cmd", "?", record)
            return error
        if spec.advances and not driven:
            self._check_in_process(spec)
        return self._invoke(spec, kwargs, raise_errors=False)

    def execute_tool(
        self, tool_name: str, arguments: Mapping[str, Any] | None, *, driven: bool = False
    ) -> dict[str, Any] | simpy.Event:
        """Run a command given as a tool call (name and JSON arguments); ``driven`` as for :meth:`execute`."""
        if type(tool_name) is str and not tool_name.isascii():
            tool_name = scalar_text(tool_name)
        try:
            spec = self.commands.by_tool_name(tool_name)
            if spec.hidden:
                raise CommandError(f"Unknown tool '{tool_name}'.", self.commands.suggest(spec.name))
            kwargs = spec.bind_json(arguments)
        except CommandError as exc:
            error = _clean(exc.to_dict())  # it may quote the arguments, which JSON escapes could fill with surrogates
            self.trajectory.add(self._now_us, "cmd", "?", {"tool": _printable(tool_name), "error": error})
            return error
        if spec.advances and not driven:
            self._check_in_process(spec)
        return self._invoke(spec, kwargs, raise_errors=False)

    def _check_in_process(self, spec: CommandSpec) -> None:
        # The advance command's answer is an event only a SimPy process can wait for; handed to plain code it
        # would be a bare `<Event()>` and the clock would never move.
        if self.env.active_process is None:
            raise NotInProcessError(
                f"'{spec.name}' moves time, which only a running agent can wait for: run your agent with "
                f"world.run(agent) and yield what it returns, or step the world from outside with "
                f"bizsim.simcore.driver.Driver(world).send('{spec.name}')."
            )

    def call(self, name: str, **kwargs: Any) -> Any:
        """Run a command from Python; a refusal raises :class:`CommandError`."""
        commands = self.commands
        spec = commands.by_name.get(name) or commands[name]  # commands[name] only to raise for an unknown name
        return self._invoke(spec, spec.bind_json(kwargs), raise_errors=True)

    def advance(self) -> simpy.Event:
        """Issue the world's advance command; yield the returned event."""
        out = self._invoke(self.commands.by_name[self.advance_command], {}, raise_errors=False)
        if isinstance(out, simpy.Event):
            return out
        refused = self.env.event()
        refused.succeed(out)
        return refused

    # Every command of every world passes through here: one frame, with the rare cases in methods of their own.
    def _invoke(
        self, spec: CommandSpec, kwargs: dict[str, Any], *, raise_errors: bool
    ) -> dict[str, Any] | simpy.Event:
        if self.done or (self._actions_closed and spec.counted):
            return self._refuse(spec, kwargs, raise_errors)
        try:
            result: dict[str, Any] | simpy.Event = spec.func(self, **kwargs)
        except CommandError as exc:
            self._record((self._now_us, "cmd", spec.name, _dumps({"args": kwargs, "error": exc.to_dict()})))
            if raise_errors:
                raise
            return exc.to_dict()
        self._record((self._now_us, "cmd", spec.name, _dumps({"args": kwargs, "result": None if spec.advances else result})))
        if self._counts_actions and spec.counted and not (isinstance(result, dict) and "error" in result):
            self._action_taken()
        return result

    def refuses_now(self, spec: CommandSpec) -> bool:
        """Whether the world's state refuses ``spec`` now, whatever its arguments: the episode is over, or counted
        commands are closed (a day-based world's daily budget is spent), or the command is declared
        :attr:`~bizsim.simcore.commands.CommandSpec.disabled`. A person's surface offers no form for it."""
        # The same test as _invoke's first line (kept inline there: every command of every run passes it).
        return self.done or (self._actions_closed and spec.counted) or spec.disabled

    #: Whether :meth:`_action_taken` hears of every accepted counted command.
    _counts_actions: ClassVar[bool] = False

    def _action_taken(self) -> None:
        """An accepted counted command has run (only when :attr:`_counts_actions`)."""

    def _refuse(self, spec: CommandSpec, kwargs: dict[str, Any], raise_errors: bool) -> dict[str, Any]:
        """Refuse a command: the episode is over, or counted commands are closed."""
        exc = CommandError(f"The episode has ended ({self.status.value}).", "Start a new episode.")
        self._record((self._now_us, "cmd", spec.name, _dumps({"args": kwargs, "error": exc.to_dict()})))
        if raise_errors:
            raise exc
        return exc.to_dict()

    def command_log(self, start: int = 0) -> list[tuple[int, str]]:
        """Every accepted or refused command as ``(t_us, canonical line)``: enough to replay.

        ``start`` is a trajectory record number: only the commands recorded from there on (a live recorder's
        increments).
        """
        out = []
        for t, name, data in self.trajectory.of_kind("cmd", start):
            if name == "?":
                if "hidden" in data:
                    out.append((t, f"{REFUSED_HIDDEN}{data['line']}"))
                else:
                    out.append((t, data["line"] if "line" in data else f"?tool {data.get('tool')}"))
            else:
                out.append((t, self.commands[name].to_line(data["args"])))
        return out

    # snapshots -------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """The world as a small immutable value (world, version, config, seed, command log so far).

        :func:`bizsim.simcore.snapshot.restore` rebuilds it by replay; ``pickle`` and ``copy.deepcopy`` go
        through it. Take it between commands, from outside the world's processes.
        """
        from .snapshot import snapshot_of

        return snapshot_of(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # A live world holds SimPy generators, which cannot be pickled: it travels as its snapshot.
        from .snapshot import restore

        return (restore, (self.snapshot(),))

    def __deepcopy__(self, memo: dict[int, Any]) -> World:
        from .snapshot import restore

        return restore(self.snapshot())

    # stops and the end ---------------------------------------------------
    def _await_stop(self) -> simpy.Event:
        """The event the current advance request will get its report on."""
        if self._waiter is None:
            self._waiter = self.env.event()
        return self._waiter

    def _deliver_stop(self, report: dict[str, Any], priority: float) -> None:
        """Wake whoever waits on an advance, at the current instant."""
        waiter, self._waiter = self._waiter, None
        self._record((self._now_us, "stop", self.advance_command, _dumps(report)))
        if waiter is not None:
            self.env.succeed_at(waiter, self._now_us, priority, report)

    def _end(self, status: Status, detail: str | None = None) -> None:
        """Mark the episode terminal and fire :attr:`finished`."""
        if self.done:
            return
        self.status = status
        self.terminal_detail = detail
        self.trajectory.add(self._now_us, "event", "episode_end", {"status": status.value, "detail": detail})
        self.env.succeed_at(self.finished, self._now_us, 1_000_000, status)

    def abort(self, detail: str) -> None:
        """End the episode with status ``error``: the agent gave up (API failures, a spending cap, a turn limit).

        The world's state is kept as it is; ``terminal_detail`` says why.
        """
        self._end(Status.ERROR, detail)

    def close(self) -> None:
        """Free the world's memory now; the world cannot be used afterwards.

        A world, its SimPy environment and its processes refer to one another,
        so a dropped world waits for the cyclic garbage collector, which walks
        every object it holds. Closing breaks those cycles and frees it at
        once. For callers done with a world (a sweep worker, once it has the
        record); any later use raises ``AttributeError``.

        Raises:
            RuntimeError: called from inside the world's own processes (an agent); the world is left as it was.
        """
        env = self.__dict__.get("env")
        if env is not None:
            env.release()
        self.__dict__.clear()
        self.closed = True

    def record_event(self, name: str, data: dict[str, Any], t_us: int | None = None) -> None:
        """Append a world event to the trajectory, at ``t_us`` (default: now; a day-based world's process that
        runs within a day gives its own instant, since the world's clock moves a whole day at a time)."""
        self._record((self._now_us if t_us is None else t_us, "event", name, _dumps(data)))

    # running -------------------------------------------------------------
    def run(self, agent: Agent) -> simpy.Process:
        """Run ``agent`` as a process until it returns or the episode ends."""
        proc = self.env.process(agent_process(agent, self))
        self.env.run(until=self.env.any_of([proc, self.finished]))
        if proc.triggered and not proc.ok:
            raise proc.value  # type: ignore[misc]  # simpy types value Optional[Any]; a failed one holds the error
        return proc

    # to implement ----------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """The episode's figures as JSON-able data; ``metric`` names the headline figure, ``metric_value`` holds it."""
        raise NotImplementedError

    def system_prompt(self) -> str | None:
        """The world's own system prompt for an agent, or ``None``: harnesses then compose one from
        :attr:`agent_role` and the commands."""
        return None

    def state(self) -> dict[str, Any]:
        """The complete state as JSON-able data (equal states, equal states)."""
        raise NotImplementedError

    def invariants(self) -> list[str]:
        """Broken invariants, described; empty when all hold."""
        return []

    def observation(self) -> dict[str, Any]:
        """What an agent sees at a decision point without issuing a command."""
        return {"time": self.now_iso, "status": self.status.value}
