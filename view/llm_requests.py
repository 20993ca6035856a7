"""What an LLM run's model received, call by call, rebuilt by replaying the run with its recorded answers.

``llm_calls.jsonl`` keeps each request's hash, not its text (a year's requests repeat the same history thousands
of times). The run is deterministic given the answers, so replaying it rebuilds every request; each rebuilt
request's hash is checked against the recorded one, so what the viewer shows is what the model was sent.
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

__all__ = ["Requests", "memory_at", "rebuild_requests"]


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
        from bizsim.agents.llm.runlog import digest
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
        world = self.world
        self.out.calls.append({
            "messages": ids, "tools": self._tools[tools_digest], "params": params, "verified": matches,
            "t_us": getattr(world, "now_us", None),
            "scratchpad": clip(world.scratchpad) if world is not None and getattr(world, "has_scratchpad", False) else None,
            "memory": memory_at(getattr(self.agent, "memory", None)),
        })
        if not rec.get("ok", True):
            raise FatalModelError(f"recorded failure: {(rec.get('errors') or ['no answer'])[-1]}")
        return Response.from_record(rec.get("response") or {})


def memory_at(memory: Any) -> dict | None:
    """What an agent's memory modules held for this call: the notes kept by the note tool and what was recalled
    into the system prompt, by section (``None`` for an agent without memory modules)."""
    if not memory:
        return None
    notes = next((m.notes for m in memory.modules if getattr(m, "keeps_notes", False)), None)
    return {
        "modules": [m.name for m in memory.modules],
        "notes": None if notes is None else clip(notes),
        # The notes' own recall repeats the notes (shown above, or as the world's scratchpad).
        "recalls": [{"section": r.section, "text": clip(r.text), "score": round(float(r.score), 4), "turn": r.turn}
                    for r in memory.last_recalls if r.section != "notes"],
    }


def rebuild_requests(run_dir: Path, calls: Sequence[dict]) -> Requests:
    """Replay the LLM run in ``run_dir`` against its recorded answers; the requests it makes, checked by hash.

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
