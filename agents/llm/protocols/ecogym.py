"""The EcoGym protocol (day-based worlds): one tool per world command, shared rules, 128 messages.

As in specs/ecogym.md §1: the system prompt is the world's role line plus
the shared rules; the tools are the world's commands, their schemas derived
from the command declarations; every tool call of a reply is executed in
order; the history keeps the last 128 messages (leading orphan tool results
dropped); the first call carries a short "begin" message and a reply without
a tool call is followed by a warning; the model sees nothing but tool
results otherwise.

The daily action budget is the world's rule (``simcore.DayWorld``): the
advance command ``task_done`` ends the day, and the action that spends the
budget ends it by itself (``day_ending``, ``actions_left == 0``). Then,
before the next call, the harness issues ``task_done`` — free, no model
call — and shows the model a synthetic ``task_done`` call with the day's
report, as the reference harness does (a model that sends signed thinking
blocks gets the report as a user message: its API refuses a made-up call). With the world config's
``reference_harness`` (the EcoGym presets ``reference``) the harness also
counts as the reference's does: every executed tool call but the advance
(and commands that use no action, such as ``help``) spends one of the day's
actions, refused and unknown ones included; a call whose arguments cannot
be read runs with ``{}``; the step cap counts the advances the harness
issued itself (:meth:`steps_used`); a reply without a structured call whose
text is a JSON ``tool_calls`` object has those calls run; and no stall
stops the run (the agent reads :attr:`reference`). A freelance task inspected
again while its first inspection is still in view is not shown again (the
call is answered with an error and spends its action), as that harness's
guard does.
The system prompt is the world's own
(``world.system_prompt()``) when it has one; otherwise the role line given
to the constructor (or ``world.agent_role``, or a generic line) plus
:data:`SHARED_RULES` with the world's ``daily_budget``.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any

import simpy

from bizsim.simcore.errors import CommandError, ConfigError

from ..arena_prompt import arena_text
from ..conversation import Msg, flatten, messages_window, msg, sent_calls, to_content, tool_result
from bizsim.simcore.digests import canonical_digest as digest
from ..types import ModelResponse, ToolCall
from ._calls import calls_in_text, clip_reply, parse_arguments
from .base import Request

if TYPE_CHECKING:
    from bizsim.simcore.world import World

    from ..config import LLMAgentConfig
    from ..session import Session

__all__ = ["SHARED_RULES", "EcoGymProtocol"]

#: The shared rules block, in bizsim's words (a paraphrase of EcoGym's shared system prompt).
SHARED_RULES = """\
Rules of this environment:
- Make exactly one tool call per turn.
- Call tools only through the structured function-calling interface. Text that merely describes a call \
does nothing and counts as a turn without a call.
- Follow each tool's schema exactly: its name, its required fields, their types, and no extra fields. A \
tool without arguments takes {{}}. When the schema and your intuition disagree, the schema wins.
- When you are finished for the day, call `{done}`.
- You have at most {budget} actions per day. After that the system calls `{done}` for you."""

FIRST_MESSAGE = "The simulation has started. Please proceed: act through the tools."
#: Before the first message of a later episode (a restart after bankruptcy).
RESTART_MESSAGE = ("Episode {n} ended in bankruptcy. The business starts again from the beginning, in the same world "
                   "and with a fresh state. ")
RESTART_NOTES = "Your notes were kept: they are in the system prompt. "
NO_CALL_WARNING = (
    "Your last reply contained no structured tool call, so nothing happened. You must act through the "
    "function-calling interface: exactly one tool call per turn."
)
#: Before the day's report when the harness ended the day for a model that thinks (see ``before_call``).
AUTO_DONE_NOTE = "The day's actions are used up, so the system called `{done}` for you. Its result: "
#: Freelance's inspection tool, which EcoGym's harness will not run twice for a task still in view.
_INSPECT = "task_inspect"
_GENERIC_ROLE = "You run a business in a simulation. Maximise the benchmark's metric over the whole horizon."


class EcoGymProtocol:
    """EcoGym's shared agent protocol, for the day-based worlds."""

    name = "ecogym"

    def __init__(self, role: str | None = None) -> None:
        self._role = role

    def configure(self, world: World, config: LLMAgentConfig) -> dict:
        """Resolve the window, the step limit, the role line and the tools for this world."""
        wc = world.config
        if config.history_block_rounds is not None:
            raise ConfigError(f"history_block_rounds(={config.history_block_rounds}) sets YC-Bench's window (world "
                              f"startup); world {world.name!r} is played with EcoGym's, which keeps history_messages")
        self.keep = config.history_messages
        self._max_turns = config.max_turns if config.max_turns is not None else getattr(wc, "max_steps", None)
        self.world_tools = world.commands.tool_schemas()
        self.done_tool = world.commands[world.advance_command].tool_name
        budget = getattr(world, "daily_budget", None) or getattr(wc, "max_actions_per_day", None)
        own = world.system_prompt() if self._role is None else None
        if own is not None:
            self.system = own  # the world's own role line and rules text
        else:
            role = self._role or world.agent_role or _GENERIC_ROLE
            self.system = role + "\n\n" + SHARED_RULES.format(done=self.done_tool, budget=budget if budget is not None else "unlimited")
        self.system += arena_text(world)  # a seat of an arena is told of the others; a lone world's prompt is as it was
        self.max_calls = config.max_tool_calls_per_turn
        self.max_reply = config.max_reply_chars
        self.budget = budget
        self.reference = bool(getattr(wc, "reference_harness", False))
        if config.context_overflow == "trim" and self.reference:
            raise ConfigError(
                "context_overflow(='trim') drops messages EcoGym's window keeps, and preset reference reproduces that "
                "window; lower history_messages instead, or use another preset"
            )
        self._steps_cap = self.reference and config.max_turns is None
        settings = {
            "protocol": self.name, "tools": [t["function"]["name"] for t in self.world_tools],
            "history_messages": self.keep, "max_turns": self._max_turns, "max_actions_per_day": budget,
            "reference_harness": self.reference,
        }
        if config.context_overflow == "trim":  # only when set: the settings other runs record stay as they were
            settings["context_overflow"] = "trim"
        return settings

    def steps_used(self, session: Session) -> int:
        """What the step cap counts: model calls, plus the harness's own advances when the cap is the world's
        ``max_steps`` under ``reference_harness`` (an agent's ``max_turns`` counts model calls only)."""
        return session.turn + (self._auto if self._steps_cap else 0)

    def max_turns(self) -> int | None:
        """Steps allowed per episode: the world's ``max_steps`` (see :meth:`steps_used`) unless the agent sets
        ``max_turns`` (model calls)."""
        return self._max_turns

    def begin(self, session: Session) -> None:
        """A fresh conversation."""
        self.history: list[Msg] = []
        self.pending_user: str | None = FIRST_MESSAGE
        if session.episode > 1:
            kept = any(getattr(m, "keeps_notes", False) for m in getattr(session.memory, "modules", ()))
            self.pending_user = RESTART_MESSAGE.format(n=session.episode - 1) + (RESTART_NOTES if kept else "") \
                + FIRST_MESSAGE
        self._tools: list[dict] | None = None
        self._auto = 0
        self.thinking = False  # the model sends signed thinking blocks (see before_call)
        self._calls_day: Any = None
        self._calls_today = 0
        self._memory_names: set[str] | None = None
        self._window_start = 0  # where the last request's window began in the history

    def _memory_tools(self, session: Session) -> set[str]:
        """Names of the memory modules' tools (bizsim's own; they never spend an action)."""
        if self._memory_names is None:
            self._memory_names = {t["function"]["name"] for t in session.memory.tools()}
        return self._memory_names

    def _calls_counted(self, session: Session) -> int:
        """Tool calls counted today under ``reference_harness`` (the count restarts when the day changes)."""
        day = getattr(session.world, "day", None)
        if day != self._calls_day:
            self._calls_day, self._calls_today = day, 0
        return self._calls_today

    def before_call(self, session: Session) -> Generator[simpy.Event, Any, None]:
        """End the day for the model when the day's budget is spent (free; no model call)."""
        world = session.world
        spent = getattr(world, "day_ending", False) or getattr(world, "actions_left", None) == 0
        if self.reference and self.budget is not None and self._calls_counted(session) >= self.budget:
            spent = True
        if world.done or not spent:
            return
        result = yield from session.advance("harness")
        self._auto += 1
        if self.thinking:
            # A model that thinks (Anthropic's extended thinking) has its API refuse a tool-use turn whose last
            # assistant message carries no thinking block, and the harness has none to give a call it makes up.
            # The day's report comes as a user message instead.
            self.history.append(msg("user", AUTO_DONE_NOTE.format(done=self.done_tool) + to_content(result)))
        else:
            call_id = f"auto_{session.episode}_{self._auto}"
            self.history.append(msg("assistant", None, tool_calls=[
                {"id": call_id, "type": "function", "function": {"name": self.done_tool, "arguments": "{}"}}
            ]))
            self.history.append(tool_result(call_id, result))
        session.bump("auto_advances")
        session.remember(to_content(result)[:2000], "tool", command=world.advance_command, data=result)

    def request(self, session: Session) -> Request:
        """Role and rules (plus memory), the last 128 messages, then the turn's user message if any, the world's
        tools."""
        window = messages_window(self.history, self.keep)  # EcoGym's harness trims before it adds the user message
        self._window_start = len(self.history) - len(window)
        if self.pending_user is not None:
            note = msg("user", self.pending_user)
            self.history.append(note)
            window.append(note)
            session.remember(self.pending_user, "user")
            self.pending_user = None
        query = next((str(m.data.get("content") or "") for m in reversed(window) if m.data.get("content")), "")[-200:]
        system = self.system + session.memory.section(query, session.now_h)
        self._last = (msg("system", system), window)
        messages, digests = flatten([self._last[0], *window])
        if self._tools is None:
            self._tools = [*self.world_tools, *session.memory.tools()]
            self._tools_digest = digest(self._tools)
        return Request(messages, digests, self._tools, self._tools_digest)

    def trimmed(self, session: Session, drop: int) -> Request | None:
        """This turn's request with its ``drop`` oldest messages left out too (``context_overflow='trim'``; leading
        orphan tool results go with them), or ``None`` when no message before the last would be left."""
        system, window = self._last
        if drop < 1 or drop >= len(window):
            return None
        kept = messages_window(window, len(window) - drop)
        if not kept:
            return None
        self._window_start = len(self.history) - len(kept)
        messages, digests = flatten([system, *kept])
        return Request(messages, digests, self._tools or [], self._tools_digest)

    def after_call(self, session: Session, response: ModelResponse) -> Generator[simpy.Event, Any, None]:
        """Execute every tool call in order; warn after a reply without one."""
        content, cut = clip_reply(response.content, self.max_reply)
        if cut:
            session.bump("oversized_replies")
        calls: Sequence[ToolCall] = response.tool_calls
        if not calls and self.reference:  # EcoGym's harness runs calls a reply wrote out as JSON text
            calls = calls_in_text(response.content, f"text_{session.episode}_{session.turn}_")
            if calls:
                session.bump("text_tool_calls")
        # A reply with no call keeps "" (chat APIs refuse an assistant message with neither content nor calls).
        data: dict = {"role": "assistant", "content": content if content is not None or calls else ""}
        sent = sent_calls(calls, session.episode, session.turn, self.max_reply)
        if calls:
            data["tool_calls"] = sent
        data.update(response.echo)
        if "thinking_blocks" in response.echo:
            self.thinking = True
        self.history.append(Msg(data))
        if content:
            session.remember(content, "assistant")
        if not calls:
            session.bump("text_replies" if (content or "").strip() else "empty_replies")
            self.pending_user = NO_CALL_WARNING
            return
        for i, call in enumerate(calls):
            command = None
            if i >= self.max_calls:
                session.bump("dropped_tool_calls")
                result: Any = {"error": f"Not run: at most {self.max_calls} tool calls are executed per turn."}
            elif session.world.done:
                result = {"error": "Not run: the episode has ended."}
            else:
                result, command = yield from self._run_call(session, call.name, call.arguments)
            self.history.append(tool_result(sent[i]["id"], result))
            session.remember(to_content(result)[:2000], "tool", command=command, data=result)

    def _inspected(self, task_id: Any) -> bool:
        """EcoGym's guard on repeated inspections: a tool result in the kept messages that holds the task id in
        quotes and the word ``selected`` (an inspection's status)."""
        if not task_id:
            return False
        quoted = f'"{task_id}"'
        return any(m.role == "tool" and quoted in (text := str(m.data.get("content") or "")) and "selected" in text
                   for m in self.history[self._window_start:])

    def _run_call(self, session: Session, name: str, arguments: str) -> Generator[simpy.Event, Any, tuple[Any, str | None]]:
        name = name.removeprefix("functions.")
        args, error = parse_arguments(arguments, name or "the tool call")
        if error is not None and self.reference:
            session.bump("invalid_arguments")
            args, error = {}, None  # EcoGym's harness runs a call whose arguments it cannot read with {}
        args = {} if args is None else args  # None only with an error, which returns below before args is read
        if error is None:
            handled = session.memory.handle_tool(name, args)
            if handled is not None:
                session.bump("memory_tool_calls")
                session.log_call(name, args, handled)
                return handled, None
        try:
            spec = session.world.commands.by_tool_name(name)
        except CommandError:
            spec = None
        if self.reference and name != self.done_tool and (spec is None or spec.counted) \
                and name not in self._memory_tools(session):
            self._calls_counted(session)  # executed, so it spends an action, refused or not (bizsim's free help aside)
            self._calls_today += 1
        if error is not None:
            session.bump("invalid_arguments")
            result: dict = {"error": error}
            session.log_call(name, arguments, result)
            return result, None
        if self.reference and name == _INSPECT and self._inspected(args.get("task_id")):
            session.bump("repeat_inspections")
            result = {"error": f"Task {args['task_id']} was inspected already: its details are in the conversation "
                               "above, and it is not shown again.",
                      "hint": "Submit a solution with solution_submit, or move on to another task."}
            session.log_call(name, arguments, result)
            return result, None
        if spec is None or spec.hidden:
            session.bump("unknown_tools")
            names = ", ".join(t["function"]["name"] for t in self._tools or self.world_tools)
            result = {"error": f"Unknown tool '{name}'. Tools: {names}."}
            session.log_call(name, arguments, result)
            return result, None
        result, command = yield from session.run_tool(name, args)
        return result, command
