"""Every model call goes through here: replay, concurrency limit, retries, pricing, the call log.

On a resumed run the gateway first serves the recorded answers, in order,
checking that each request is the one recorded (same hash), without calling
the model; when the records run out it goes live. Live calls are retried
with exponential backoff on transient failures, priced, and appended to
``llm_calls.jsonl`` before the harness acts on them.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence

import attrs
from bizsim.simcore.digests import canonical_digest as digest
from bizsim.simcore.digests import request_digest
from bizsim.simcore.errors import ConfigError, ReplayError
from bizsim.simcore.jsonl import JsonlWriter

from .client import EmbeddingClient, ModelClient
from .errors import ContextWindowError, FatalModelError, RunAborted, TransientModelError, scrub
from .limits import EndpointLimiter
from .pricing import Pricing
from .types import ModelResponse

__all__ = ["ModelGateway", "backoff_delay", "request_digest"]


def backoff_delay(failures: int, base_s: float, max_s: float) -> float:
    """Seconds to wait after the ``failures``-th consecutive failure: base·2^(n−1), capped.

    >>> [backoff_delay(n, 1.0, 5.0) for n in (1, 2, 3, 4)]
    [1.0, 2.0, 4.0, 5.0]
    """
    return min(max_s, base_s * 2 ** max(0, failures - 1))


@contextlib.contextmanager
def _damaged(call: int) -> Iterator[None]:
    """Turn a recorded answer that cannot be read back (a run log edited by hand) into one clear ReplayError."""
    try:
        yield
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise ReplayError(f"recorded call {call} of the run log is damaged ({type(exc).__name__}: {exc}); "
                          "the log cannot be resumed") from None


class ModelGateway:
    """Replay, then live calls with limits, retries, prices and a durable log.

    Args:
        client: the model client.
        model: the model name (for prices and records).
        pricing: prices calls.
        log: the ``llm_calls.jsonl`` writer, or ``None`` to keep nothing.
        replay: recorded rows to serve before going live (resume); a world role's failed
            calls fail again in place, the agent's are asked again live.
        limiter: per-endpoint concurrency limit shared with other runs.
        max_failures: consecutive failed attempts that abort the run.
        backoff: ``(base_s, max_s)`` of the exponential backoff.
        sleep: how to wait between attempts (tests inject a fake).
        secrets: strings never to write (API keys).
        log_raw: keep the provider's raw answers.
    """

    def __init__(
        self,
        client: ModelClient,
        model: str,
        pricing: Pricing,
        *,
        log: JsonlWriter | None = None,
        replay: Sequence[dict] = (),
        limiter: EndpointLimiter | None = None,
        max_failures: int = 6,
        backoff: tuple[float, float] = (1.0, 60.0),
        sleep: Callable[[float], None] = time.sleep,
        secrets: tuple[str | None, ...] = (),
        log_raw: bool = True,
    ) -> None:
        self.client = client
        self.model = model
        self.pricing = pricing
        self.log = log
        # A failed call of the agent ended its run: a resume tries it live again. A failed call of a world's
        # role (the auditor) was survived (the role took its fallback): a resume must fail it again, in place.
        self._replay = deque(
            r for r in replay if r.get("kind") in ("chat", "embed") and (r.get("ok", True) or r.get("role"))
        )
        self.limiter = limiter
        self.max_failures = max_failures
        self.backoff = backoff
        self.sleep = sleep
        self.secrets = secrets
        self.log_raw = log_raw
        self.calls = 0              # answered calls, replayed or live
        self.replayed = 0
        self.live = 0
        self.consecutive_failures = 0

    @property
    def replaying(self) -> bool:
        """True while recorded answers remain to be served."""
        return bool(self._replay)

    @property
    def remaining(self) -> int:
        """Recorded answers not served yet (a resume that ends with some left went another way)."""
        return len(self._replay)

    def peek(self) -> dict | None:
        """The next recorded row to be served (a resume replays the run's own trimming from it), or ``None``."""
        return self._replay[0] if self._replay else None

    def _slot(self) -> contextlib.AbstractContextManager[None]:
        if self.limiter is None:
            return contextlib.nullcontext()
        return self.limiter.slot(getattr(self.client, "endpoint", self.model))

    def _next_recorded(self, kind: str, request: str) -> dict:
        rec = self._replay.popleft()
        if rec.get("kind") != kind or rec.get("request") != request:
            raise ReplayError(
                f"recorded call {self.calls} is a {rec.get('kind')} call for request {str(rec.get('request'))[:12]}…, "
                f"but the run now makes a {kind} call for request {request[:12]}…: the run's spec, bizsim's version "
                "or the log changed, so the recorded answers no longer fit; start a new run instead of resuming"
            )
        self.replayed += 1
        if rec.get("ok", True):
            self.calls += 1
            self.consecutive_failures = 0
        else:
            # A recorded failure leaves the failure streak where the live run left it, so the calls after the
            # resume get the same retry budget they had then.
            with _damaged(self.calls):
                self.consecutive_failures = int(rec.get("consecutive_failures", len(rec.get("errors") or ())))
        return rec

    def chat(
        self, messages: Sequence[dict], tools: Sequence[dict] | None, params: dict, request: str, meta: dict
    ) -> tuple[ModelResponse, int]:
        """Answer one chat request: the recorded answer while replaying, else a live call.

        Returns:
            the response (priced) and the number of failed attempts before it.

        Raises:
            RunAborted: too many consecutive failures, or a fatal one.
            ReplayError: a recorded answer was made for a different request.
        """
        if self._replay:
            rec = self._next_recorded("chat", request)
            if not rec.get("ok", True):
                failed = rec.get("errors") or ["no answer"]
                raise RunAborted("api_error", f"the model call failed (recorded): {failed[-1]}", len(failed))
            with _damaged(self.calls):
                return ModelResponse.from_record(rec["response"]).cleaned(), int(rec.get("failed_attempts", 0))
        errors: list[str] = []
        while True:
            start = time.perf_counter()
            try:
                with self._slot():
                    response = self.client.complete(messages, tools, **params)
            except TransientModelError as exc:
                self.consecutive_failures += 1
                errors.append(scrub(str(exc), self.secrets))
                if self.consecutive_failures >= self.max_failures:
                    self._log_failure(request, meta, errors)
                    raise RunAborted(
                        "api_failures",
                        f"{self.consecutive_failures} consecutive failed model calls; last: {errors[-1]}",
                        len(errors),
                    ) from None
                # The endpoint's own Retry-After wins when it asks for longer than the backoff would wait.
                self.sleep(max(backoff_delay(self.consecutive_failures, *self.backoff), exc.retry_after_s or 0.0))
                continue
            except ContextWindowError as exc:
                # Not the API failing: the same prompt would be refused again, on a resume too.
                errors.append(scrub(str(exc), self.secrets))
                self._log_failure(request, meta, errors)
                raise RunAborted("context_window", "the model's server refused the prompt as longer than its context "
                                 f"window: {errors[-1]}") from None
            except FatalModelError as exc:
                errors.append(scrub(str(exc), self.secrets))
                self._log_failure(request, meta, errors)
                raise RunAborted("api_error", f"the model call failed: {errors[-1]}", len(errors)) from None
            break
        self.consecutive_failures = 0
        latency = response.latency_s or (time.perf_counter() - start)
        # Cleaned before anything else sees it: a lone surrogate would make every later request unsendable.
        priced = attrs.evolve(response.cleaned(), cost_usd=self.pricing.cost(response.usage, response.cost_usd),
                               latency_s=latency)
        self.calls += 1
        self.live += 1
        if self.limiter is not None:  # a sweep's cap counts every dollar paid, the runs' in flight included
            self.limiter.charge(priced.cost_usd)
        if self.log is not None:
            self.log.write(
                {
                    "kind": "chat", "ok": True, **meta, "request": request, "failed_attempts": len(errors),
                    "errors": errors, "response": priced.to_record(include_raw=self.log_raw), "wall_time": time.time(),
                }
            )
        return priced, len(errors)

    def _log_failure(self, request: str, meta: dict, errors: list[str]) -> None:
        if self.log is not None:
            self.log.write({
                "kind": "chat", "ok": False, **meta, "request": request, "errors": errors,
                "consecutive_failures": self.consecutive_failures, "wall_time": time.time(),
            })

    def embed(self, texts: Sequence[str], model: str | None, meta: dict) -> list[list[float]]:
        """Embeddings from the provider, recorded (and replayed) like chat calls."""
        request = digest(["embed", model, list(texts)])
        if self._replay:
            with _damaged(self.calls):
                vectors = self._next_recorded("embed", request)["vectors"]
                if not isinstance(vectors, list) or len(vectors) != len(texts):
                    raise ValueError(f"{len(texts)} vectors expected")
                return [[float(x) for x in v] for v in vectors]
        client = self.client
        if not isinstance(client, EmbeddingClient):
            raise ConfigError(f"{type(client).__name__} has no embed(): use a client that embeds, or the local embedder")
        errors: list[str] = []
        while True:
            try:
                with self._slot():
                    vectors = client.embed(texts, model)
            except TransientModelError as exc:
                self.consecutive_failures += 1
                errors.append(scrub(str(exc), self.secrets))
                if self.consecutive_failures >= self.max_failures:
                    raise RunAborted("api_failures", f"embedding calls keep failing; last: {errors[-1]}") from None
                # The endpoint's own Retry-After wins when it asks for longer than the backoff would wait.
                self.sleep(max(backoff_delay(self.consecutive_failures, *self.backoff), exc.retry_after_s or 0.0))
                continue
            except FatalModelError as exc:
                raise RunAborted("api_error", f"the embedding call failed: {scrub(str(exc), self.secrets)}") from None
            break
        self.consecutive_failures = 0
        self.calls += 1
        self.live += 1
        if self.log is not None:
            self.log.write({"kind": "embed", "ok": True, **meta, "request": request, "vectors": vectors, "wall_time": time.time()})
        return vectors
