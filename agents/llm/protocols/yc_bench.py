"""The YC-Bench protocol (startup world): one ``run_command`` tool, status turns, K rounds, auto-advance.

Faithful to specs/startup.md §14 where that is the benchmark's design:
a turn is one model call whose tool calls run in order (the model sees
their results on the next turn); the history keeps the last K=20 rounds
behind a marker; the scratchpad is appended to the system prompt; after
``auto_advance_after_turns`` (5) turns without a ``sim resume`` the harness
resumes itself; a refused resume counts as a resume.

Fixed in preset ``default`` and reproduced when the world config asks
(preset ``reference``): with ``reference_outputs`` the turn after a resume
is labelled one lower, the start message recommends ``task assign-all``,
failures hide their cash penalty, only the last resume's events are
shown (and none when it reported none), event money is in whole dollars,
the history countdown runs on the turn label, the harness adds no notes
(empty reply, automatic resume), and the tool, its results and its reading
of arguments (any tool name runs its ``command``) are the reference
harness's (:mod:`.yc_bench_wire`); with ``stale_scratchpad`` the system prompt shows the scratchpad as
it was when the last non-resume turn began (§14.6). Otherwise events of every
resume since the last turn are listed and the scratchpad is always current.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, cast

import simpy
from bizsim.models.startup import prompt
from bizsim.simcore.errors import CommandError, ConfigError
from bizsim.simcore.untrusted_json import loads_untrusted

from ..arena_prompt import arena_text
from ..conversation import Msg, flatten, msg, rounds_window, sent_calls, to_content, tool_result
from bizsim.simcore.digests import canonical_digest as digest
from ..types import ModelResponse
from . import yc_bench_wire as wire
from ._calls import clip_reply, parse_arguments
from .base import Request

if TYPE_CHECKING:
    from bizsim.models.startup import StartupWorld
    from bizsim.simcore.world import World

    from ..config import LLMAgentConfig
    from ..session import Session

__all__ = ["RUN_COMMAND_TOOL", "YCBenchProtocol"]

RUN_COMMAND_TOOL = {
    "type": "function",
    "function": {
        "name": "run_command",
        "description": "Run one yc-bench command line in the simulation and return its JSON output.",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command line, e.g. `yc-bench market browse --limit 10`."}
            },
            "required": ["command"],
        },
    },
}

#: How YC-Bench's harness recognises a resume: the line starts with exactly this.
_RESUME_LINE = "yc-bench sim resume"


def _help_for(commands: Any, line: str) -> str | None:
    """Help text for a line that asks for it with ``--help`` (one command's, a group's or all), else ``None``."""
    return commands.help_for(line)


class YCBenchProtocol:
    """The published YC-Bench agent protocol, for the startup world."""

    name = "yc-bench"

    def configure(self, world: World, config: LLMAgentConfig) -> dict:
        """Resolve K, auto-advance and max turns from the agent config over the world config."""
        wc = world.config
        self.keep = config.history_rounds if config.history_rounds is not None else wc.history_keep_rounds
        self.block = config.history_block_rounds
        self.auto = config.auto_advance if config.auto_advance is not None else wc.auto_advance_after_turns
        self._max_turns = config.max_turns if config.max_turns is not None else wc.max_turns
        self.faithful = bool(getattr(wc, "reference_outputs", False))
        if self.block is not None and self.faithful:
            raise ConfigError(
                f"history_block_rounds(={self.block}) changes what the model sees, and preset reference reproduces "
                "YC-Bench's own window; use it on another preset, or drop it"
            )
        if config.context_overflow == "trim" and self.faithful:
            raise ConfigError(
                "context_overflow(='trim') drops rounds YC-Bench's window keeps, and preset reference reproduces that "
                "window; lower history_rounds instead, or use another preset"
            )
        self.stale = bool(getattr(wc, "stale_scratchpad", False))
        self.max_calls = config.max_tool_calls_per_turn
        self.max_chars = config.max_command_chars
        self.max_reply = config.max_reply_chars
        self.advance_command = world.advance_command
        # A later version of the world (startup-v2) adds what its mechanics need said; v1 has nothing to add.
        extra = getattr(world, "prompt_extra", None)
        self._system = prompt.system_prompt(self.keep) + (extra() if callable(extra) else "") + arena_text(world)
        self._marker = prompt.history_marker(self.keep, self.block)
        settings = {
            "protocol": self.name, "tools": ["run_command"], "history_rounds": self.keep, "auto_advance": self.auto,
            "max_turns": self._max_turns, "reference_prompt_quirks": self.faithful, "stale_scratchpad": self.stale,
        }
        if self.block is not None:  # only when set: the settings recorded by every other run stay as they were
            settings["history_block_rounds"] = self.block
        if config.context_overflow == "trim":  # likewise
            settings["context_overflow"] = "trim"
        return settings

    def max_turns(self) -> int | None:
        """Model calls allowed per episode."""
        return self._max_turns

    def begin(self, session: Session) -> None:
        """A fresh conversation (a new episode starts over, banner first)."""
        self.rounds: list[list[Msg]] = []
        self.rounds_seen = 0
        self.idle = 0
        self.events: list[dict] | None = None
        self.notes: list[str] = []
        self.resumed_last = False
        self._resume_counts = False  # set by each call on preset reference (see _run_call_reference)
        self.snapshot = session.world.scratchpad
        self._tools: list[dict] | None = None

    def before_call(self, session: Session) -> Generator[simpy.Event, Any, None]:
        """Nothing: YC-Bench's harness acts after a turn (auto-advance)."""
        return
        yield  # a generator, for the agent loop's ``yield from``

    def _user_text(self, session: Session, turn: int) -> str:
        world = session.world
        obs = world.observation()
        if self.rounds_seen == 0:
            text = prompt.start_message(obs, faithful=self.faithful)
            return prompt.restart_banner(session.episode) + text if session.episode > 1 else text
        label = turn - 1 if self.faithful and self.resumed_last else turn
        titles: dict[str, str] | None = None
        if self.events and any(e.get("type") == "task_half" for e in self.events):
            startup = cast("StartupWorld", world)  # only the startup world reports task_half events
            titles = {e["task_id"]: str(getattr(startup.find_task(e["task_id"]), "title", e["task_id"]))
                      for e in self.events if "task_id" in e}
        return prompt.turn_message(
            label, obs, keep_rounds=self.keep, rounds_seen=self.rounds_seen, events=self.events, notes=self.notes,
            faithful=self.faithful, titles=titles,
        )

    def request(self, session: Session) -> Request:
        """System prompt with the scratchpad, the last K rounds, and this turn's status message."""
        world = session.world
        turn = session.turn + 1
        text = self._user_text(session, turn)
        self.events, self.notes = None, []
        if not self.stale or turn == 1 or not self.resumed_last:
            self.snapshot = world.scratchpad
        notes = self.snapshot if self.stale else world.scratchpad
        self.rounds.append([msg("user", text)])
        self.rounds_seen += 1
        if len(self.rounds) > self.keep + (self.block or 1) + 1:
            del self.rounds[0]  # keeps the marker decision (len > keep + 1) while bounding memory
        session.remember(text, "user")
        system = self._system + prompt.scratchpad_section(notes) + session.memory.section(text[-200:], session.now_h)
        self._last_system = msg("system", system)
        window, _ = rounds_window(self.rounds, self._shown(), self._marker)
        messages, digests = flatten([self._last_system, *window])
        if self._tools is None:
            self._tools = [wire.REFERENCE_RUN_COMMAND_TOOL if self.faithful else RUN_COMMAND_TOOL, *session.memory.tools()]
            self._tools_digest = digest(self._tools)
        return Request(messages, digests, self._tools, self._tools_digest)

    def trimmed(self, session: Session, drop: int) -> Request | None:
        """This turn's request with its ``drop`` oldest earlier rounds left out too (``context_overflow='trim'``),
        or ``None`` when it has fewer earlier rounds than that. The marker says how many rounds are kept."""
        shown = min(self._shown(), len(self.rounds) - 1)
        if drop < 1 or drop > shown:
            return None
        kept = shown - drop
        window, _ = rounds_window(self.rounds, kept, prompt.history_marker(kept))  # always drops: kept < shown
        messages, digests = flatten([self._last_system, *window])
        return Request(messages, digests, self._tools or [], self._tools_digest)

    def _shown(self) -> int:
        """Earlier rounds in this turn's window: K, or with blocks of B, K to K+B-1 (B are dropped at once)."""
        earlier = self.rounds_seen - 1
        if self.block is None or earlier <= self.keep:
            return self.keep
        return self.keep + (earlier - self.keep) % self.block

    def after_call(self, session: Session, response: ModelResponse) -> Generator[simpy.Event, Any, None]:
        """Run every tool call in order; auto-advance after K idle turns."""
        current = self.rounds[-1]
        content, cut = clip_reply(response.content, self.max_reply)
        if cut:
            session.bump("oversized_replies")
        calls = response.tool_calls
        if not calls:
            session.bump("text_replies" if (content or "").strip() else "empty_replies")
            if not (content or "").strip() and not self.faithful:  # the reference's harness says nothing
                self.notes.append(prompt.EMPTY_REPLY_NOTE)
        # A reply with no call keeps "" (chat APIs refuse an assistant message with neither content nor calls).
        assistant: dict = {"role": "assistant", "content": content if content is not None or calls else ""}
        sent = sent_calls(calls, session.episode, session.turn, self.max_reply)
        if calls:
            assistant["tool_calls"] = sent
        assistant.update(response.echo)
        current.append(Msg(assistant))
        if content:
            session.remember(content, "assistant")
        resumed = False
        events: list[dict] = []
        for i, call in enumerate(calls):
            command, text = None, None
            if session.world.done and i > 0:
                result, _, text = self._refused("Not run: the episode has ended.", "")
            elif i >= self.max_calls:
                session.bump("dropped_tool_calls")
                result, _, text = self._refused(f"Not run: at most {self.max_calls} tool calls are executed per turn.", "")
            else:
                result, command, text = yield from self._run_call(session, call.name, call.arguments)
            counts = not self.faithful or self._resume_counts  # preset reference: as its harness counts a resume
            if command == self.advance_command and isinstance(result, dict) and counts:
                resumed = True
                if self.faithful:
                    events = []
                events.extend(result.get("wake_events") or [])
            current.append(tool_result(sent[i]["id"], result if text is None else text))
            session.remember(to_content(result)[:2000], "tool", command=command, data=result)
        if resumed:
            self.idle = 0
            session.bump("resumes")
        else:
            self.idle += 1
            if self.auto and self.idle >= self.auto and not session.world.done:
                report = yield from session.advance("harness")
                session.bump("auto_advances")
                if not self.faithful:  # the reference's harness resumes silently
                    self.notes.append(prompt.AUTO_ADVANCE_NOTE.format(n=self.idle))
                self.idle = 0
                resumed = True
                if isinstance(report, dict):
                    events.extend(report.get("wake_events") or [])
        if resumed:
            self.events = events
        self.resumed_last = resumed

    def _run_call(
        self, session: Session, name: str, arguments: str
    ) -> Generator[simpy.Event, Any, tuple[Any, str | None, str | None]]:
        """Run one tool call: ``(result, command name or None, tool message text)``.

        The text is the reference harness's result object on preset
        ``reference`` (:mod:`.yc_bench_wire`), else ``None`` (the result as JSON).
        """
        name = name.removeprefix("functions.")
        args, error = parse_arguments(arguments, name or "the tool call")
        command = args.get("command") if isinstance(args, dict) else None
        if name != "run_command" and args is not None:
            handled = session.memory.handle_tool(name, args)
            if handled is not None:
                session.bump("memory_tool_calls")
                session.log_call(name, args, handled)
                return handled, None, None
        if self.faithful:
            return (yield from self._run_call_reference(session, name, arguments))
        if name != "run_command":
            session.bump("unknown_tools")
            return self._refused(f"Unknown tool '{name}'. The only tool is run_command(command: string).", command)
        if error is not None:
            session.bump("invalid_arguments")
            return self._refused(error, "")
        if not isinstance(command, str) or not command.strip():
            session.bump("invalid_arguments")
            return self._refused("run_command needs a 'command' string, e.g. {\"command\": \"yc-bench company status\"}.",
                                 command)
        if len(command) > self.max_chars:
            session.bump("oversized_replies")
            return self._refused(f"The command is {len(command)} characters long; the limit is {self.max_chars}.", command)
        text = _help_for(session.world.commands, command)
        if text is not None:
            return {"help": text}, None, None
        result, spec_name = yield from session.run_line(command)
        return result, spec_name, None

    def _run_call_reference(
        self, session: Session, name: str, arguments: str
    ) -> Generator[simpy.Event, Any, tuple[Any, str | None, str | None]]:
        """A call as YC-Bench's harness runs it: whatever the tool's name, its ``command`` argument runs.

        A resume counts (turn label, events, idle count) only as that harness counts one: a line that starts with
        ``yc-bench sim resume`` exactly and prints a result, not a usage error.
        """
        self._resume_counts = False
        if name != "run_command":
            session.bump("unknown_tools")
        try:
            command = loads_untrusted(arguments).get("command", "")
        except Exception:  # noqa: BLE001 - the reference's harness runs "" for any argument it cannot read
            command = ""
        refused = wire.refusal(command)
        if refused is not None:
            session.bump("invalid_arguments")
            return self._refused(refused, command)
        if len(command) > self.max_chars:
            session.bump("oversized_replies")
            return self._refused(f"The command is {len(command)} characters long; the limit is {self.max_chars}.", command)
        text = _help_for(session.world.commands, command)
        if text is not None:  # the reference's command-line parser prints help and exits 0 (in its own words)
            return {"help": text}, None, wire.tool_message(command, exit_code=0, stdout=text + "\n")
        usage = None
        try:
            session.world.commands.parse(command)
        except CommandError as exc:
            usage = exc.message
        self._resume_counts = usage is None and command.startswith(_RESUME_LINE)
        result, spec_name = yield from session.run_line(command)
        failed = isinstance(result, dict) and "error" in result
        if usage is not None or (failed and spec_name is None):
            return result, spec_name, wire.tool_message(command, exit_code=2, stderr=f"Error: {usage or result['error']}\n")
        return result, spec_name, wire.tool_message(command, result, exit_code=1 if failed else 0)

    def _refused(self, message: str, command: Any) -> tuple[dict, None, str | None]:
        """A call that runs nothing: bizsim's error, or on preset ``reference`` a usage refusal (exit code 2)."""
        text = wire.tool_message("" if command is None else command, exit_code=2, stderr=message) if self.faithful else None
        return {"error": message}, None, text
