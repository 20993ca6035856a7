"""Every knob of the LLM agent, one frozen value recorded with each run."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs
from bizsim.simcore.config import in_range
from bizsim.simcore.errors import ConfigError

from .pricing import check_prices

__all__ = [
    "CONTEXT_OVERFLOW", "DEFAULT_MAX_TOKENS", "MEMORY_NAMES", "REASONING_MAX_TOKENS", "LLMAgentConfig",
    "default_max_tokens",
]

#: Memory modules an agent can switch on by name.
MEMORY_NAMES = ("window", "scratchpad", "state", "episodic")
#: The answer cap sent on every call when ``max_tokens`` is unset. Neither reference harness sends one (YC-Bench's
#: litellm call and EcoGym's OpenAI call leave it out), so the provider's own limit applied there; a local server
#: has none (llama-server generates until its context is full), hence a default.
DEFAULT_MAX_TOKENS = 4096
#: The default for a model that reasons before it answers (its reasoning counts against the cap).
REASONING_MAX_TOKENS = 32768
#: What to do with a prompt that will not fit the model's context window.
CONTEXT_OVERFLOW = ("stop", "trim")


def _memory(value: Any) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    names = tuple(v.strip() for v in value.split(",")) if isinstance(value, str) else tuple(value)
    bad = [n for n in names if n not in MEMORY_NAMES]
    if bad:
        raise ConfigError(f"memory(={', '.join(bad)}) must name modules among {', '.join(MEMORY_NAMES)}")
    return tuple(dict.fromkeys(names))


def _prices(value: Any) -> dict | None:
    return None if value is None else check_prices(value)


#: Request fields the harness sets itself; ``model_params`` may not replace them.
_HARNESS_FIELDS = frozenset({
    "model", "messages", "tools", "tool_choice", "stream", "api_key", "api_base", "base_url", "timeout",
    "max_retries", "num_retries", "drop_params", "n",
})
#: Request fields with an option of their own.
_OWN_FIELDS = frozenset({"temperature", "max_tokens"})


def _model_params(value: Any) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ConfigError(f"model_params(={value!r}) must be a mapping of request field names to values")
    taken = sorted(_HARNESS_FIELDS.intersection(value))
    if taken:
        raise ConfigError(f"model_params may not set {', '.join(taken)}: the harness sets them itself")
    own = sorted(_OWN_FIELDS.intersection(value))
    if own:
        raise ConfigError(f"model_params may not set {', '.join(own)}: use the option of that name (it is checked)")
    try:
        json.dumps(dict(value), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"model_params must be JSON data (they are recorded with the run): {exc}") from None
    return dict(value)


@attrs.frozen
class LLMAgentConfig:
    """The LLM agent's settings. ``None`` means "the world's or the protocol's own value".

    Model and endpoint:
        model: litellm name ``PROVIDER/MODEL``.
        api_base: OpenAI-compatible endpoint URL.
        api_key_env: environment variable holding the key (the key itself is never recorded).
        temperature: sampling; ``None`` is not sent (as in YC-Bench).
        max_tokens: the answer's cap, sent on every call. ``None`` = :data:`DEFAULT_MAX_TOKENS` (4096), or
            :data:`REASONING_MAX_TOKENS` (32768) for a model that reasons (litellm says it does, or
            ``model_params`` asks for ``reasoning_effort`` or ``thinking``); ``0`` sends none (the provider's own
            limit, as the reference harnesses do).
        context_window: the model's context size in tokens; ``None`` = learn it (the server's ``/props`` or
            ``/v1/models``, else litellm's model information; unknown = prompts are not checked).
        context_overflow: a prompt that will not fit: ``stop`` (or ``None``, the default, so that runs recorded
            before the option group with today's) ends the run (``context_window``) naming sizes and fixes;
            ``trim`` drops the oldest rounds (messages on EcoGym worlds) of that call until it fits, recorded in
            the call log; not on preset ``reference``.
        model_params: more fields for every request, as litellm takes them
            (``{"reasoning_effort": "high"}``, ``{"thinking": {"type": "enabled", "budget_tokens": 4096}}``,
            ``{"top_p": 0.9}``); recorded with the run, so keep secrets out.
        timeout_s: per-call timeout in seconds (300, YC-Bench's own; EcoGym's harness waits 120): a call that
            takes longer fails as a transient failure and is retried (``max_api_failures``).
        prompt_caching: ask providers that cache prompts only on request (Claude on Anthropic, Bedrock,
            Vertex AI) to cache the stable prefix (tools, system prompt, the conversation so far); the text the
            model reads is the same. ``False`` sends requests unmarked.
    Protocol:
        protocol: ``yc-bench`` or ``ecogym``; ``None`` = the one registered for the world.
        history_rounds: YC-Bench rounds kept (``None`` = world's ``history_keep_rounds``, 20).
        history_block_rounds: YC-Bench only, not on preset ``reference``: drop old rounds B at a time instead of
            one a turn, so the window holds K to K+B-1 rounds and its prefix (what a prompt cache serves) stays
            the same for B turns. It changes what the model sees (up to B-1 more rounds); ``None`` = YC-Bench's
            window.
        history_messages: EcoGym messages kept (128).
        auto_advance: YC-Bench idle turns before an automatic ``sim resume``
            (``None`` = world's ``auto_advance_after_turns``; 0 = never).
        max_turns: model calls per episode (``None`` = world's ``max_turns``, unset = no limit).
    Budgets:
        max_cost_usd, max_tokens_total: hard caps for the whole run.
        max_stalled_turns: turns in a row without simulated time moving before the run ends
            (a model that never starts work would otherwise be called forever); ``None`` = no limit.
        prices: ``{model: (input $/M, output $/M)}``, winning over litellm's map.
    Faults:
        max_api_failures: consecutive failed API attempts before the run ends with status ``error``.
        backoff_base_s, backoff_max_s: exponential backoff between attempts.
        max_tool_calls_per_turn, max_command_chars, max_reply_chars: limits on oversized replies.
    Memory:
        memory: extra modules among ``window, scratchpad, state, episodic``.
        memory_limit: retrieved items shown per turn.
        episodic_decay_per_day: λ in cosine × exp(−λ·Δt days).
        embedder: ``hash`` (deterministic, local) or ``provider:MODEL``.
    Logging:
        log_raw: keep providers' raw answers in ``llm_calls.jsonl``.
        fsync: fsync every record (slower; survives power loss, not just a crash).
    """

    model: str = attrs.field(default="scripted")
    api_base: str | None = None
    api_key_env: str | None = None
    temperature: float | None = attrs.field(default=None, validator=in_range(0.0, 2.0))
    max_tokens: int | None = attrs.field(default=None, validator=in_range(0))
    model_params: dict | None = attrs.field(default=None, converter=_model_params)
    timeout_s: float = attrs.field(default=300.0, validator=in_range(0.001))
    context_window: int | None = attrs.field(default=None, validator=in_range(1))
    context_overflow: str | None = None
    prompt_caching: bool = True
    protocol: str | None = None
    history_rounds: int | None = attrs.field(default=None, validator=in_range(1))
    history_block_rounds: int | None = attrs.field(default=None, validator=in_range(1))
    history_messages: int = attrs.field(default=128, validator=in_range(2))
    auto_advance: int | None = attrs.field(default=None, validator=in_range(0))
    max_turns: int | None = attrs.field(default=None, validator=in_range(1))
    max_cost_usd: float | None = attrs.field(default=None, validator=in_range(0.0))
    max_tokens_total: int | None = attrs.field(default=None, validator=in_range(1))
    max_stalled_turns: int | None = attrs.field(default=100, validator=in_range(1))
    prices: dict | None = attrs.field(default=None, converter=_prices)
    max_api_failures: int = attrs.field(default=6, validator=in_range(1))
    backoff_base_s: float = attrs.field(default=1.0, validator=in_range(0.0))
    backoff_max_s: float = attrs.field(default=60.0, validator=in_range(0.0))
    max_tool_calls_per_turn: int = attrs.field(default=50, validator=in_range(1))
    max_command_chars: int = attrs.field(default=200_000, validator=in_range(16))
    max_reply_chars: int = attrs.field(default=20_000, validator=in_range(100))
    memory: tuple[str, ...] = attrs.field(default=(), converter=_memory)
    memory_limit: int = attrs.field(default=15, validator=in_range(1))
    episodic_decay_per_day: float = attrs.field(default=0.05, validator=in_range(0.0))
    embedder: str = "hash"
    log_raw: bool = True
    fsync: bool = False

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise ConfigError(f"model(={self.model!r}) must name a model, e.g. openai/gpt-4o-mini")
        if self.protocol is not None and self.protocol not in ("yc-bench", "ecogym"):
            raise ConfigError(f"protocol(={self.protocol!r}) must be 'yc-bench' or 'ecogym' (or unset)")
        if self.context_overflow is not None and self.context_overflow not in CONTEXT_OVERFLOW:
            raise ConfigError(f"context_overflow(={self.context_overflow!r}) must be 'stop' (end the run) or 'trim' "
                              "(drop the oldest rounds until the prompt fits)")
        if not (self.embedder == "hash" or self.embedder.startswith("provider:")):
            raise ConfigError(f"embedder(={self.embedder!r}) must be 'hash' or 'provider:MODEL'")

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> LLMAgentConfig:
        """Build from a dict of options, naming unknown keys."""
        known = {f.name for f in attrs.fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ConfigError(f"unknown LLM agent option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        try:
            return cls(**options)
        except TypeError as exc:
            raise ConfigError(f"LLM agent options: {exc}") from None

    def to_dict(self) -> dict:
        """JSON-able form (no secrets live here: only the key's variable name)."""
        out = attrs.asdict(self)
        out["memory"] = list(self.memory)
        if self.prices is not None:
            out["prices"] = {k: list(v) for k, v in self.prices.items()}
        return out


def default_max_tokens(cfg: LLMAgentConfig, reasons: bool) -> int:
    """The ``max_tokens`` sent when the option is unset: :data:`DEFAULT_MAX_TOKENS`, or for a model that
    reasons (``reasons``, or ``model_params`` asking for ``reasoning_effort`` or ``thinking``)
    :data:`REASONING_MAX_TOKENS`, more when a thinking budget asks for more.

    >>> default_max_tokens(LLMAgentConfig(), False), default_max_tokens(LLMAgentConfig(), True)
    (4096, 32768)
    """
    extra = cfg.model_params or {}
    if not (reasons or "reasoning_effort" in extra or "thinking" in extra):
        return DEFAULT_MAX_TOKENS
    thinking = extra.get("thinking")
    budget = thinking.get("budget_tokens") if isinstance(thinking, dict) else None
    budget = budget if isinstance(budget, int) and not isinstance(budget, bool) else 0
    return max(REASONING_MAX_TOKENS, budget + DEFAULT_MAX_TOKENS)
