"""Every request an LLM run sent, rebuilt from its ``llm_calls.jsonl`` alone: no harness, no replay, no model.

Each chat record of a run made by this bizsim holds ``sent``, its request as a delta on the request the same
conversation sent the turn before (the format: :mod:`bizsim.simcore.request_delta`). Reading the records in
order rebuilds every request, and each is checked against the record's ``request`` hash. A run made before
requests were stored (records without ``sent``) has only the hashes: :func:`has_requests` says so, and its
requests can only be rebuilt by replaying the run (the viewer does).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import attrs

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.request_delta import Sent, decode

__all__ = ["MAX_TOTAL_MESSAGES", "SentRequest", "has_requests", "iter_requests", "read_requests"]

#: The most messages :func:`read_requests` hands back over all requests (a hostile log could name its whole base
#: again on every line); an honest 2,000-turn run with a history of 20 rounds holds about 200,000.
MAX_TOTAL_MESSAGES = 20_000_000


@attrs.frozen
class SentRequest:
    """One chat call's request, rebuilt.

    ``messages`` are shared with the requests before it (a message kept in the history is one object), so treat
    them as read-only. ``role`` is a world role's name (``auditor``) for its calls, ``None`` for the agent's;
    ``turn`` is the agent's turn or the role's call number. ``verified``: the rebuilt request has the recorded hash.
    """

    episode: int
    turn: int
    role: str | None
    ok: bool
    messages: list[dict]
    digests: list[str]
    tools: Any
    model: Any
    params: Any
    t_us: int | None
    scratchpad: Any
    memory: Any
    verified: bool


def _chats(rows: Iterable[dict]) -> Iterator[dict]:
    return (r for r in rows if isinstance(r, dict) and r.get("kind") == "chat")


def has_requests(rows: Iterable[dict]) -> bool:
    """Whether every chat record holds its request (a run made by a bizsim that stores them, from its start)."""
    chats = list(_chats(rows))
    return bool(chats) and all("sent" in r for r in chats)


def _int(value: Any, default: int) -> int:
    return value if type(value) is int else default


def iter_requests(rows: Iterable[dict], *, max_messages: int = MAX_TOTAL_MESSAGES) -> Iterator[SentRequest]:
    """Each chat record's request, in the order of the records.

    The bound holds for the whole log, not only for each record: past ``max_messages`` messages over all the
    requests so far (a hostile log can add 100,000 tiny messages once and name them all again on every line, a
    few bytes each), reading stops with a ConfigError before the next request is handed back.

    Raises:
        ConfigError: a record holds no request, or one that cannot be rebuilt (the log was damaged or edited),
            or the requests hold more than ``max_messages`` messages in all; the message names the record and
            what is wrong.
    """
    last: dict[tuple[int, int], Sent] = {}  # (episode, turn) -> the agent's latest request of that turn
    total = 0
    for n, row in enumerate(_chats(rows), 1):
        episode = _int(row.get("episode"), 1)
        role = row.get("role")
        role = str(role) if role is not None else None
        turn = _int(row.get("call") if role is not None else row.get("turn"), 0)
        where = f"chat record {n} (episode {episode}, {f'{role} call' if role else 'turn'} {turn})"
        sent = row.get("sent")
        if sent is None:
            raise ConfigError(f"{where} holds no request (a run made before requests were stored); replay the run "
                              "to rebuild its requests")
        base = None
        if role is None and isinstance(sent, dict) and "base" in sent:
            if sent["base"] != turn - 1 or (episode, turn - 1) not in last:
                raise ConfigError(f"{where} builds on turn {str(sent['base'])[:20]}, whose request is not before it "
                                  "in the log: the log was damaged or edited")
            base = last[(episode, turn - 1)]
        try:
            request = decode(base, sent, role_digests=role is not None)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        total += len(request.messages)
        if total > max_messages:
            raise ConfigError(f"{where}: the run's requests hold more than max_messages(={max_messages:,}) messages "
                              "in all, more than any run bizsim records; the log was edited or damaged")
        if role is None:
            last[(episode, turn)] = request
            # A retried turn (a failed call resumed) builds on the same base; nothing older is named again.
            for key in [k for k in last if k[0] != episode or k[1] < turn - 1]:
                del last[key]
        yield SentRequest(
            episode=episode, turn=turn, role=role, ok=bool(row.get("ok", True)), messages=request.messages,
            digests=request.digests, tools=request.tools, model=request.model, params=request.params,
            t_us=request.t_us, scratchpad=request.scratchpad, memory=request.memory,
            verified=request.request_digest() == row.get("request"),
        )


def read_requests(rows: Iterable[dict], *, max_messages: int = MAX_TOTAL_MESSAGES) -> list[SentRequest]:
    """Every chat record's request, in the order of the records (the agent's and any world role's).

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from bizsim.agents.llm import ScriptedClient, reply
    >>> from bizsim.runs.llm_run import run_llm
    >>> from bizsim.runs.runspec import RunSpec
    >>> run = Path(tempfile.mkdtemp()) / "run"
    >>> _ = run_llm(RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 3}),
    ...             out=run, client=ScriptedClient([reply("yc-bench company status")] * 3))
    >>> rows = [json.loads(line) for line in (run / "llm_calls.jsonl").read_text().splitlines()]
    >>> requests = read_requests(rows)
    >>> [(r.turn, len(r.messages), r.verified) for r in requests]
    [(1, 2, True), (2, 5, True), (3, 8, True)]
    >>> requests[0].messages[0]["role"]
    'system'

    Raises:
        ConfigError: a record's request cannot be rebuilt (see :func:`iter_requests`), or the requests hold more
            than ``max_messages`` messages in all.
    """
    return list(iter_requests(rows, max_messages=max_messages))
