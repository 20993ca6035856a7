"""A model client that answers a world role's calls from a run's ``llm_calls.jsonl`` (rebuilding a finished run)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from bizsim.simcore.digests import canonical_digest as digest
from bizsim.simcore.errors import ReplayError

from .errors import FatalModelError
from .gateway import request_digest
from .types import ModelResponse

__all__ = ["RecordedRoleClient"]


class RecordedRoleClient:
    """``complete(messages, tools, **params)`` served, in order, by the calls a role made in a recorded run.

    A world's own LLM role (the freelance auditor) shapes the episode, so a
    run that used one can only be rebuilt from its command log with the same
    answers. A call that failed in the run fails again here (the role takes
    its fallback again); nothing goes to a model.

    Args:
        rows: the run's ``llm_calls.jsonl`` records (other roles' and the agent's are skipped).
        model: the model the run used (checked against each recorded request).
        role: the role whose calls to serve.
        episode: serve only this episode's calls (a run restarted after a bankruptcy rebuilds its last episode).

    Raises (from :meth:`complete`):
        ReplayError: the rebuilt run asks something the recorded run did not, or asks more.
    """

    def __init__(self, rows: Sequence[dict], model: str, role: str = "auditor", episode: int | None = None) -> None:
        self.model = model
        self.role = role
        self._rows = deque(r for r in rows if r.get("role") == role and r.get("kind") == "chat"
                           and (episode is None or r.get("episode") == episode))
        self.served = 0

    @property
    def remaining(self) -> int:
        """Recorded calls not served yet."""
        return len(self._rows)

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None = None, **params: Any) -> ModelResponse:
        """The next recorded answer of the role, if this is the request it answered."""
        if not self._rows:
            raise ReplayError(f"the rebuilt run makes {self.role} call {self.served + 1}, which the recorded run "
                              f"never made: the log does not belong to this run or bizsim's version changed")
        rec = self._rows.popleft()
        self.served += 1
        request = request_digest(self.model, params, digest(tools), [digest(m) for m in messages])
        if rec.get("request") != request:
            raise ReplayError(f"{self.role} call {self.served} differs from the recorded one (request "
                              f"{request[:12]}…, recorded {str(rec.get('request'))[:12]}…): the log does not belong "
                              "to this run or bizsim's version changed")
        if not rec.get("ok", True):
            raise FatalModelError(f"recorded failure: {(rec.get('errors') or ['no answer'])[-1]}")
        try:
            return ModelResponse.from_record(rec["response"])
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise ReplayError(f"{self.role} call {self.served} of the run log is damaged ({type(exc).__name__}: "
                              f"{exc}); the log cannot be replayed") from None
