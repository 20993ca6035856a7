"""Errors of the LLM harness, rooted at :class:`BizSimError`."""

from __future__ import annotations

import os

from bizsim.simcore.errors import BizSimError

__all__ = [
    "ContextWindowError", "FatalModelError", "ModelError", "PreflightError", "RunAborted", "TransientModelError", "run_secrets", "scrub",
]


class ModelError(BizSimError):
    """A model call failed."""


class TransientModelError(ModelError):
    """A failure worth retrying: timeout, connection error, 429, 5xx, an answer without choices.

    ``retry_after_s`` is how long the endpoint asked to be left alone (a 429's ``Retry-After``), if it said.
    """

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class FatalModelError(ModelError):
    """A failure retrying cannot fix: bad key, unknown model, malformed request."""


class ContextWindowError(FatalModelError):
    """The provider refused the prompt as too long for the model's context window (retrying cannot fix it)."""


class PreflightError(ModelError):
    """The pre-flight call failed: the model, key or endpoint is wrong."""


class RunAborted(BizSimError):
    """The harness gives up on the run (API failures, a cap); the episode ends with status ``error``.

    ``detail`` is the short reason recorded as the episode's ``terminal_detail``.
    """

    def __init__(self, detail: str, message: str | None = None, failed_attempts: int = 0) -> None:
        super().__init__(message or detail)
        self.detail = detail
        self.failed_attempts = failed_attempts


def scrub(text: str, secrets: tuple[str | None, ...]) -> str:
    """``text`` with every secret (API key) replaced by ``***``, so none reaches a log.

    >>> scrub("bad key sk-123 given", ("sk-123",))
    'bad key *** given'
    """
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def run_secrets(model: str, api_key_env: str | None, api_key: str | None = None) -> tuple[str | None, ...]:
    """The keys a run may send, for :func:`scrub`: one given in memory, the named variable's value, and the
    variable litellm reads for the model's provider when none is named (``openai/...`` -> ``OPENAI_API_KEY``)."""
    provider = model.split("/", 1)[0] if "/" in model else ""
    default = "".join(c if c.isalnum() else "_" for c in provider).upper()
    return (
        api_key,
        os.environ.get(api_key_env) if api_key_env else None,
        os.environ.get(f"{default}_API_KEY") if default else None,
    )
