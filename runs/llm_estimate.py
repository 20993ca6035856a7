"""The bill before paying it: expected model calls, tokens and dollars of LLM runs, with a range.

The token profile is measured, not guessed: a scripted player plays the run's world, preset and seed through
the same harness (protocol, window of K rounds, auto-advance, memory, block window), offline, and every
request it makes is counted at about four characters a token (messages and tools, as the loopback server
counts them). Calls are the range's axis, since they depend on the model: from the scripted player's own
count (a decisive player) to the most the protocol allows over the same simulated span (on YC-Bench, a model
that never resumes by itself and is moved on by the harness every ``auto_advance`` turns; on the EcoGym
worlds, one that spends every action of every day), capped by ``max_turns``; tokens per call past the first
calls are the profile's mean once the window is full. Dollars use the run's own prices (``prices=``) or
litellm's price map, every prompt token at the input price (a prompt cache can only lower the bill).

The largest prompt of the profile is checked against the model's context window (the ``context_window``
option, the server's own report when the run names one, else litellm's model information), leaving room for
the answer's ``max_tokens``: a run whose prompts will outgrow it is flagged, with the call where it would stop.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

import attrs
from bizsim.agents.llm import LLMAgent, LLMAgentConfig, ModelResponse, ToolCall, Usage
from bizsim.agents.llm.context_window import ContextWindow
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.registry import world_spec

from bizsim.runs.llm_run import llm_settings
from bizsim.runs.runspec import RunSpec, records_calls, world_config

__all__ = ["Estimate", "estimate_run", "estimate_runs", "format_estimates", "model_prices"]


@attrs.frozen
class Estimate:
    """What one LLM run is expected to use: the central figure and its range (``low``, ``high``).

    Dollars are ``None`` when neither the run's prices nor litellm's map price the model.
    """

    run_id: str
    model: str
    calls: int
    calls_low: int
    calls_high: int
    prompt_tokens: int
    completion_tokens: int
    tokens_low: int
    tokens_high: int
    cost_usd: float | None
    cost_low_usd: float | None
    cost_high_usd: float | None
    price_source: str
    largest_prompt_tokens: int = 0
    context_window: int | None = None
    context_source: str | None = None
    #: The answer's cap the context must leave room for (``max_tokens``, default resolved).
    answer_tokens: int = 0
    #: The first call whose prompt will not fit (1-based), or ``None``.
    overflow_call: int | None = None

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens, the central figure."""
        return self.prompt_tokens + self.completion_tokens


class _ProfileClient:
    """A scripted model that plays from the world's state and counts each request as the loopback server does."""

    def __init__(self, model: str, protocol: str) -> None:
        self.model = model
        self.endpoint = "estimate"
        self.protocol = protocol
        self.world: Any = None
        self.requests: list[tuple[int, int]] = []  # (prompt tokens, completion tokens) per call
        self._task: str | None = None

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None, **params: Any) -> ModelResponse:
        """The next scripted answer, with usage counted at about four characters a token."""
        answer = self._yc_bench(messages) if self.protocol == "yc-bench" else self._day_based()
        calls = tuple(ToolCall(f"p{i}", name, json.dumps(args)) for i, (name, args) in enumerate(answer))
        prompt = max(1, (len(json.dumps(list(messages), sort_keys=True)) + len(json.dumps(list(tools or ())))) // 4)
        completion = 1 + sum(len(c.arguments) for c in calls) // 4
        self.requests.append((prompt, completion))
        return ModelResponse(None, calls, Usage(prompt, completion), model=self.model, finish_reason="tool_calls")

    def _yc_bench(self, messages: Sequence[dict]) -> list[tuple[str, dict]]:
        """One task at a time, the top listed one, everyone on it: the papers' greedy floor, as a model would
        play it (read the market, then accept, assign, dispatch and resume in one reply)."""
        def run(*lines: str) -> list[tuple[str, dict]]:
            return [("run_command", {"command": f"yc-bench {line}"}) for line in lines]

        obs = self.world.observation()
        listed = _listed_task(messages)
        if obs.get("active_tasks", 0) == 0 and listed is None:
            return run("employee list", "market browse --limit 1")
        if obs.get("active_tasks", 0) == 0 and listed is not None:
            names = _employee_names(messages)
            assign = [f"task assign --task-id {listed} --employees {','.join(names)}"] if names else []
            return run(f"task accept --task-id {listed}", *assign, f"task dispatch --task-id {listed}", "sim resume")
        return run("sim resume")

    def _day_based(self) -> list[tuple[str, dict]]:
        """End the day at once: one call a day, the fewest a day-based world takes."""
        spec = self.world.commands[self.world.advance_command]
        return [(getattr(spec, "tool_name", None) or spec.name.replace(" ", "_"), {})]


def _tool_results(messages: Sequence[dict]) -> Iterable[dict]:
    """The JSON tool results of the last round, newest first."""
    for m in reversed(messages):
        if m.get("role") == "assistant":
            return
        if m.get("role") == "tool":
            try:
                data = json.loads(m.get("content") or "")
            except (TypeError, ValueError):
                continue
            if isinstance(data, dict):
                yield data


def _listed_task(messages: Sequence[dict]) -> str | None:
    for data in _tool_results(messages):
        tasks = data.get("tasks")
        if isinstance(tasks, list) and tasks and isinstance(tasks[0], dict) and "task_id" in tasks[0]:
            return str(tasks[0]["task_id"])
    return None


def _employee_names(messages: Sequence[dict]) -> list[str]:
    for data in _tool_results(messages):
        people = data.get("employees")
        if isinstance(people, list):
            return [str(e["name"]) for e in people if isinstance(e, dict) and "name" in e]
    return []


def _profile(spec: RunSpec) -> tuple[list[tuple[int, int]], dict, int]:
    """Every request of the scripted year (prompt, completion tokens), the protocol settings, and the advances."""
    config, _, _ = llm_settings(spec)
    # The profile plays offline: no caps that need prices, no run directory, the spec's protocol knobs kept; no
    # context window either, so its prompts are the untrimmed ones the window is checked against.
    config = attrs.evolve(config, max_cost_usd=None, max_tokens_total=None, embedder="hash", context_window=None)
    world = world_spec(spec.world).make(world_config(spec) if spec.overrides else spec.preset, spec.seed)
    settings = LLMAgent(config, client=_ProfileClient(config.model, "")).settings(world)
    client = _ProfileClient(config.model, settings.get("protocol", ""))
    client.world = world
    agent = LLMAgent(config, client=client)
    world.run(agent)
    advances = agent.total.resumes + agent.total.auto_advances
    return client.requests, settings, advances


def model_prices(model: str, prices: dict | None) -> tuple[tuple[float, float] | None, str]:
    """Dollars per token in and out: the run's own prices, else litellm's map, else unknown."""
    if prices and model in prices:
        inp, out = prices[model]
        return (inp / 1e6, out / 1e6), "prices="
    try:
        from bizsim.agents.llm.litellm_client import import_litellm

        litellm = import_litellm()
        inp, out = litellm.cost_per_token(model=model, prompt_tokens=1_000_000, completion_tokens=1_000_000)
    except Exception:  # noqa: BLE001 - no litellm, or a model its map does not know: unknown, not free
        return None, "unknown"
    return (float(inp) / 1e6, float(out) / 1e6), "litellm"


def _context(config: LLMAgentConfig) -> tuple[ContextWindow | None, int]:
    """The model's context window as the run will learn it (no model call), and the answer's ``max_tokens``."""
    if config.context_window is not None:
        window: ContextWindow | None = ContextWindow(config.context_window, "the context_window option")
    else:
        window = None
    client: Any = None
    with contextlib.suppress(Exception):  # no litellm, or an endpoint that does not answer: unknown
        from bizsim.agents.llm.litellm_client import LiteLLMClient

        client = LiteLLMClient(config.model, api_base=config.api_base, api_key_env=config.api_key_env)
        if window is None:
            window = client.context_window()
    reasons = getattr(client, "reasons", None)
    try:
        answer = int(LLMAgent.request_params(config, client if callable(reasons) else None).get("max_tokens") or 0)
    except Exception:  # noqa: BLE001 - litellm cannot say whether the model reasons
        answer = int(LLMAgent.request_params(config).get("max_tokens") or 0)
    return window, answer


def estimate_run(spec: RunSpec, _cache: dict | None = None) -> Estimate:
    """The expected calls, tokens and dollars of the LLM run ``spec``, from a scripted year through its harness.

    Raises:
        ConfigError: ``spec`` is not an LLM run.
    """
    if not records_calls(spec):
        raise ConfigError(f"agent {spec.agent!r} calls no model; --estimate is for --agent llm runs")
    config, _, episodes = llm_settings(spec)
    key = json.dumps([spec.world, spec.preset, spec.overrides, spec.seed, config.to_dict()], sort_keys=True, default=str)
    if _cache is not None and key in _cache:
        requests, settings, advances = _cache[key]
    else:
        requests, settings, advances = _profile(spec)
        if _cache is not None:
            _cache[key] = (requests, settings, advances)
    calls = len(requests)
    prompt = sum(p for p, _ in requests)
    completion = sum(c for _, c in requests)
    # Past the window's filling, a call costs the mean of the profile's full-window calls.
    window = int(settings.get("history_rounds") or 0) + int(settings.get("history_block_rounds") or 0)
    steady = requests[window:] or requests
    per_call = (sum(p + c for p, c in steady) / len(steady)) if steady else 0.0
    if settings.get("protocol") == "yc-bench":
        auto = int(settings.get("auto_advance") or 0)
        most = max(calls, auto * advances) if auto else calls
    else:
        most = calls * (int(settings.get("max_actions_per_day") or 0) + 1)
    cap = settings.get("max_turns")
    high = min(most, int(cap)) if cap else most
    high *= max(1, episodes)  # each restart after a bankruptcy may take as long again
    low = min(calls, int(cap)) if cap else calls
    tokens_low = sum(p + c for p, c in requests[:low])
    tokens_high = round(prompt + completion + max(0, high - calls) * per_call)
    price, source = model_prices(config.model, config.prices)

    def dollars(prompt_tokens: float, completion_tokens: float) -> float | None:
        return None if price is None else prompt_tokens * price[0] + completion_tokens * price[1]

    share = completion / (prompt + completion) if prompt + completion else 0.0
    context, answer = _context(config)
    largest = max((p for p, _ in requests), default=0)
    over = None if context is None else next(
        (i + 1 for i, (p, _) in enumerate(requests) if p + answer > context.tokens), None)
    return Estimate(
        run_id=spec.run_id, model=config.model, calls=calls, calls_low=low, calls_high=max(high, low),
        prompt_tokens=prompt, completion_tokens=completion, tokens_low=tokens_low, tokens_high=max(tokens_high, tokens_low),
        cost_usd=dollars(prompt, completion), cost_low_usd=dollars(tokens_low * (1 - share), tokens_low * share),
        cost_high_usd=dollars(tokens_high * (1 - share), tokens_high * share), price_source=source,
        largest_prompt_tokens=largest, context_window=None if context is None else context.tokens,
        context_source=None if context is None else context.source, answer_tokens=answer, overflow_call=over,
    )


def estimate_runs(specs: Iterable[RunSpec]) -> list[Estimate]:
    """:func:`estimate_run` for every LLM run of ``specs`` (one profile per distinct run; other agents skipped)."""
    cache: dict = {}
    return [estimate_run(s, cache) for s in specs if records_calls(s)]


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.2f}"


def _count(n: float) -> str:
    return f"{n / 1e6:.2f} M" if n >= 1e6 else f"{n / 1e3:.1f} k" if n >= 1e3 else f"{n:.0f}"


def format_estimates(estimates: Sequence[Estimate]) -> str:
    """The estimate as a person reads it: per run, then in all (one line each when there are many)."""
    lines = []
    for e in estimates:
        lines.append(
            f"{e.run_id}  {e.model}: {e.calls} calls ({e.calls_low}-{e.calls_high}), {_count(e.tokens)} tokens "
            f"({_count(e.tokens_low)}-{_count(e.tokens_high)}), {_money(e.cost_usd)} "
            f"({_money(e.cost_low_usd)}-{_money(e.cost_high_usd)})"
        )
    if len(estimates) > 1:
        def total(field: str) -> str:
            values = [getattr(e, field) for e in estimates]
            return _money(None if any(v is None for v in values) else sum(values))

        lines.append(
            f"in all, {len(estimates)} runs: {sum(e.calls for e in estimates)} calls, "
            f"{_count(sum(e.tokens for e in estimates))} tokens "
            f"({_count(sum(e.tokens_low for e in estimates))}-{_count(sum(e.tokens_high for e in estimates))}), "
            f"{total('cost_usd')} ({total('cost_low_usd')}-{total('cost_high_usd')})"
        )
    for e in estimates:
        if e.overflow_call is not None:
            lines.append(
                f"warning: {e.run_id}: its prompts grow to about {_count(e.largest_prompt_tokens)} tokens, and from "
                f"call {e.overflow_call} they leave less than the answer's {e.answer_tokens} tokens (max_tokens) of the "
                f"model's {e.context_window}-token context window (from {e.context_source}): the run would stop "
                "there (context_window). Lower history_rounds (EcoGym worlds: history_messages) or max_tokens, give "
                "the model a larger context, or set context_overflow=trim"
            )
    sources = sorted({e.price_source for e in estimates})
    lines.append(
        "estimated from a scripted year through the same harness, about 4 characters a token; range: the scripted "
        "player's calls to the most the protocol allows (capped by max_turns); prices from "
        f"{', '.join(sources)}, every prompt token at the input price (a prompt cache lowers the bill)"
    )
    return "\n".join(lines)
