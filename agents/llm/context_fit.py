"""Fitting each request to the model's context window: learn the window once, count every live prompt, then send
it, trim it (``context_overflow='trim'``) or end the run with a ``context_window`` stop that says what to change."""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING, Any

from bizsim.simcore.errors import ReplayError

from .context_window import TRIM_MARGIN, ContextWindow, char_count, overflow_message
from .errors import RunAborted

if TYPE_CHECKING:
    from .config import LLMAgentConfig
    from .gateway import ModelGateway
    from .protocols.base import Request
    from .session import Session

__all__ = ["ContextFit", "fixes"]


class ContextFit:
    """One agent's context window and the fitting of its requests to it.

    A protocol that can shorten a request offers ``trimmed(session, drop) -> Request | None``: this turn's request
    with its ``drop`` oldest rounds (or messages) left out too, ``None`` when it has not that many.

    Args:
        config: the agent's settings (``context_window``, ``context_overflow``).
        client: the model client; its ``context_window()`` and ``count_tokens()`` are used when it has them.
        gateway: the agent's gateway; while it replays, the recorded calls say what was trimmed.
    """

    def __init__(self, config: LLMAgentConfig, client: Any, gateway: ModelGateway) -> None:
        self.config = config
        self.client = client
        self.gateway = gateway
        self._window: ContextWindow | None = None
        self._known = False

    def window(self) -> ContextWindow | None:
        """The model's context size: the ``context_window`` option, else what the client learns (the server's
        report, litellm's model information); ``None`` when unknown. Learned once, on first use."""
        if not self._known:
            if self.config.context_window is not None:
                self._window = ContextWindow(self.config.context_window, "the context_window option")
            else:
                learn = getattr(self.client, "context_window", None)
                self._window = learn() if callable(learn) else None
            self._known = True
        return self._window

    @property
    def learned(self) -> ContextWindow | None:
        """The window if it was learned already (nothing is asked)."""
        return self._window

    def count(self, req: Request) -> tuple[int, str]:
        """The prompt's tokens and how they were counted (litellm's tokenizer, else 2.5 characters a token)."""
        count = getattr(self.client, "count_tokens", None)
        with contextlib.suppress(Exception):  # a tokenizer litellm cannot load: the conservative count
            if callable(count):
                return int(count(req.messages, req.tools)), "litellm's token_counter"
        return char_count(req.messages, req.tools), "2.5 characters a token"

    def fit(self, protocol: Any, session: Session, req: Request, settings: dict,
            reserve: int) -> tuple[Request, dict | None]:
        """The request to send and, when it was trimmed, the note recorded with its call.

        While replaying, the recorded note says what the run dropped (nothing is counted: the call fit then).
        Live, a prompt that does not fit with ``reserve`` tokens for the answer ends the run (``context_window``)
        or, with ``context_overflow='trim'``, loses its oldest rounds until it fits with :data:`TRIM_MARGIN`.

        Raises:
            RunAborted: ``context_window``, with the sizes and the fixes.
            ReplayError: a recorded trim this run cannot make.
        """
        if self.gateway.replaying:
            row = self.gateway.peek() or {}
            note = row.get("context") if not row.get("role") else None
            drop = note.get("dropped") if isinstance(note, dict) else None
            if drop is None:
                return req, None
            shorter = getattr(protocol, "trimmed", None)
            trimmed = shorter(session, drop) if callable(shorter) and isinstance(drop, int) else None
            if trimmed is None:
                raise ReplayError(f"recorded call {self.gateway.calls} dropped {drop!r} rounds to fit the context "
                                  "window, which this run cannot: the log does not belong to this run")
            return trimmed, note
        window = self.window()
        if window is None:
            return req, None
        size, method = self.count(req)
        trim = self.config.context_overflow == "trim" and callable(getattr(protocol, "trimmed", None))
        budget = window.tokens - reserve
        limit = math.floor(budget / (1 + TRIM_MARGIN)) if trim else budget
        if size <= limit:
            return req, None
        if trim and budget > 0:
            fitted = self._trim(protocol, session, limit)
            if fitted is not None:
                shorter_req, drop, tokens = fitted
                return shorter_req, {"dropped": drop, "prompt_tokens": tokens, "untrimmed_tokens": size,
                                     "context_window": window.tokens, "counted_with": method}
        raise RunAborted("context_window", overflow_message(size, window, reserve, method, fixes(settings, reserve)))

    def _trim(self, protocol: Any, session: Session, limit: int) -> tuple[Request, int, int] | None:
        """The fewest oldest rounds to drop so the prompt counts at most ``limit`` tokens, or ``None`` if none do."""
        if protocol.trimmed(session, 1) is None:
            return None
        most = 1
        while protocol.trimmed(session, most + 1) is not None:
            most += 1
        low, high, best = 1, most, None
        while low <= high:  # the count falls as rounds are dropped: the fewest that fit, by bisection
            mid = (low + high) // 2
            candidate = protocol.trimmed(session, mid)
            if candidate is None:
                high = mid - 1
                continue
            tokens, _ = self.count(candidate)
            if tokens <= limit:
                best, high = (candidate, mid, tokens), mid - 1
            else:
                low = mid + 1
        return best


def fixes(settings: dict, reserve: int) -> str:
    """What to change when prompts outgrow the context window, in the protocol's own option names.

    >>> fixes({"history_rounds": 20}, 0).split(",")[0]
    'To fit'
    """
    if "history_rounds" in settings:
        window = f"lower history_rounds (now {settings['history_rounds']}) so fewer rounds are sent"
    elif "history_messages" in settings:
        window = f"lower history_messages (now {settings['history_messages']}) so fewer messages are sent"
    else:
        window = "send a shorter history"
    answer = f", lower max_tokens (now {reserve})" if reserve else ""
    return (f"To fit, {window}{answer}, or give the model a larger context (llama-server: -c is shared by its -np "
            "slots, so each gets -c/-np; vLLM: --max-model-len); or let bizsim drop the oldest rounds of a call "
            "that does not fit with context_overflow=trim (not on preset reference)")
