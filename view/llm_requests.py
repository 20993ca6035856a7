"""What an LLM run's model received, call by call: read from ``llm_calls.jsonl``, or for an older run rebuilt by
replaying it with its recorded answers.

A run made by this bizsim stores each request with its call record, as a delta on the one before
(:mod:`bizsim.runs.llm_record` rebuilds them without the harness). An older run kept only each request's hash; the
run is deterministic given the answers, so replaying it rebuilds every request, and each rebuilt request's hash is
checked against the recorded one. Either way what the viewer shows is what the model was sent, checked by hash.
Messages are kept once each, by digest, and a request is the list of its messages' digests.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from bizsim.view._records import clip

if TYPE_CHECKING:
    from bizsim.agents.llm.types import ModelResponse

__all__ = ["MAX_PAGE_MESSAGES", "Requests", "read_requests", "rebuild_requests"]


@attrs.define
class Requests:
    """Rebuilt requests: ``messages`` (digest -> message), ``calls`` (one per recorded chat call, in order)."""

    messages: dict[str, Any] = attrs.field(factory=dict)
    tools: list[Any] = attrs.field(factory=list)
    calls: list[dict] = attrs.field(factory=list)
    problem: str | None = None


class _Capture:
    """A model client that answers from the recorded calls and keeps every request it is sent."""

    def __init__(self, rows: Sequence[dict], model: str, out: Requests) -> None:
        self._rows = deque(r for r in rows if r.get("kind") == "chat" and not r.get("role"))
        self.model = model
        self.endpoint = "replay"  # no endpoint: nothing is sent anywhere
        self.out = out
        self.world: Any = None
        self.agent: Any = None
        self._tools: dict[str, int] = {}

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None = None, **params: Any) -> ModelResponse:
        from bizsim.agents.llm.conversation import Msg
        from bizsim.agents.llm.errors import FatalModelError
        from bizsim.agents.llm.gateway import request_digest
        from bizsim.simcore.digests import canonical_digest as digest
        from bizsim.agents.llm.sent import memory_snapshot
        from bizsim.agents.llm.types import ModelResponse as Response

        if not self._rows:
            raise FatalModelError("the replay asked for more calls than the run recorded")
        rec = self._rows.popleft()
        ids = []
        for m in messages:
            d = Msg(m).digest  # the digest the harness hashed into the request
            ids.append(d)
            if d not in self.out.messages:
                self.out.messages[d] = clip(m)
        tools_digest = digest(tools)
        if tools_digest not in self._tools:
            self._tools[tools_digest] = len(self.out.tools)
            self.out.tools.append(clip(list(tools or [])))
        matches = rec.get("request") == request_digest(self.model, params, tools_digest, ids)
        if not matches and "max_tokens" in params:  # a run recorded before the harness sent a default max_tokens
            older = {k: v for k, v in params.items() if k != "max_tokens"}
            if rec.get("request") == request_digest(self.model, older, tools_digest, ids):
                params, matches = older, True
        world = self.world
        self.out.calls.append({
            "messages": ids, "tools": self._tools[tools_digest], "params": params, "verified": matches,
            "t_us": getattr(world, "now_us", None),
            "scratchpad": clip(world.scratchpad) if world is not None and getattr(world, "has_scratchpad", False) else None,
            "memory": clip(memory_snapshot(getattr(self.agent, "memory", None))),
        })
        if not rec.get("ok", True):
            raise FatalModelError(f"recorded failure: {(rec.get('errors') or ['no answer'])[-1]}")
        return Response.from_record(rec.get("response") or {})


def rebuild_requests(run_dir: Path, calls: Sequence[dict]) -> Requests:
    """Replay the LLM run in ``run_dir`` against its recorded answers; the requests it makes, checked by hash (for
    a run whose records hold no requests: see :func:`read_requests`).

    Never raises for a run that cannot be replayed (another bizsim version, an LLM auditor, a damaged log):
    :attr:`Requests.problem` says why, and the viewer shows the answers without the requests.
    """
    out = Requests()
    try:
        from bizsim.runs.llm_run import llm_settings, load_run_spec, run_llm
        from bizsim.simcore.errors import BizSimError

        spec, _ = load_run_spec(run_dir)
        config, auditor, _ = llm_settings(spec)
        if auditor != "deterministic":
            out.problem = "the requests of a run with an LLM auditor are not rebuilt"
            return out
        client = _Capture(calls, config.model, out)

        def at_stop(world: Any) -> None:
            client.world = world

        def with_agent(agent: Any) -> None:
            client.agent = agent

        # No directory: nothing is written.
        run_llm(spec, client=client, on_stop=at_stop, probe=at_stop, on_agent=with_agent)
    except (BizSimError, KeyError, TypeError, ValueError) as exc:
        out.problem = f"the requests could not be rebuilt: {str(exc)[:300]}"
        return out
    wrong = sum(1 for c in out.calls if not c["verified"])
    if len(out.calls) != len([r for r in calls if r.get("kind") == "chat" and not r.get("role")]):
        out.problem = f"the replay made {len(out.calls)} calls, the run recorded another number; requests may be off"
    elif wrong:
        out.problem = f"{wrong} rebuilt request(s) differ from the recorded hash (marked); bizsim's version may differ"
    return out


#: The most message references the page holds over all calls (each call lists its messages' digests): an honest
#: 2,000-turn run with a history of 20 rounds holds about 200,000. Past it, the later calls' requests are not shown.
MAX_PAGE_MESSAGES = 500_000


def read_requests(run_dir: Path, calls: Sequence[dict]) -> Requests:
    """The requests of the LLM run in ``run_dir``: read from its call records when they hold them, else rebuilt by
    replaying the run (:func:`rebuild_requests`). Never raises: :attr:`Requests.problem` says what went wrong.

    The page holds at most :data:`MAX_PAGE_MESSAGES` message references in all, however the log was crafted."""
    from bizsim.runs.llm_record import has_requests, iter_requests
    from bizsim.simcore.errors import ConfigError

    if not has_requests(calls):
        return rebuild_requests(run_dir, calls)
    out = Requests()
    tools: dict[str, int] = {}  # tools change rarely: one copy of each
    last_tools: Any = object()
    key = ""
    try:
        for request in iter_requests(calls, max_messages=MAX_PAGE_MESSAGES):
            if request.role is not None:
                continue  # a world role's calls are not turns of the page
            for d, m in zip(request.digests, request.messages, strict=True):
                if d not in out.messages:
                    out.messages[d] = clip(m)
            if request.tools is not last_tools:  # a request that keeps its base's tools holds the same list
                last_tools, key = request.tools, repr(request.tools)
                if key not in tools:
                    tools[key] = len(out.tools)
                    out.tools.append(clip(request.tools or []))
            out.calls.append({
                "messages": request.digests, "tools": tools[key], "params": request.params,
                "verified": request.verified, "t_us": request.t_us, "scratchpad": clip(request.scratchpad),
                "memory": clip(request.memory),
            })
    except ConfigError as exc:
        out.problem = f"the requests after call {len(out.calls)} could not be read: {str(exc)[:300]}"
        return out
    wrong = sum(1 for c in out.calls if not c["verified"])
    if wrong:
        out.problem = f"{wrong} stored request(s) differ from the recorded hash (marked): the log was edited or damaged"
    return out
