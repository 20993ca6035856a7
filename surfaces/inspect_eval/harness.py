"""bizsim's own LLM harness as an Inspect agent: the world's registered protocol, the model Inspect evaluates.

The YC-Bench protocol is more than a tool loop: a status message every turn, the
last K rounds kept, an automatic ``sim resume`` after idle turns, the reference's
tool messages. Published prompts and scripted policies rely on it, so preset
``reference`` of the startup task plays through it: the harness runs on a worker
thread (its world is a SimPy process) and asks Inspect's model for each turn, so
the run is bizsim's own LLM run (its run directory, ``run.json`` and
``llm_calls.jsonl`` included) while Inspect records every model call, counts
tokens and cost, and applies its limits.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
from bizsim.agents.llm import LLMAgentConfig
from bizsim.agents.llm.errors import RunAborted, TransientModelError
from bizsim.agents.llm.types import ModelResponse, ToolCall, Usage
from inspect_ai.agent import Agent, AgentState, agent
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.tool import ToolCall as InspectToolCall
from inspect_ai.tool import ToolInfo, ToolParams
from inspect_ai.util import LimitExceededError

from bizsim.surfaces.inspect_eval.sample import sample_plan

__all__ = ["InspectModelClient", "bizsim_harness", "to_inspect_messages"]


def to_inspect_messages(messages: Sequence[dict]) -> list[ChatMessage]:
    """OpenAI-style chat messages (the harness's requests) as Inspect's."""
    out: list[ChatMessage] = []
    for m in messages:
        role, content = m.get("role"), m.get("content") or ""
        if role == "system":
            out.append(ChatMessageSystem(content=content))
        elif role == "user":
            out.append(ChatMessageUser(content=content))
        elif role == "assistant":
            calls = [InspectToolCall(id=c["id"], function=c["function"]["name"],
                                     arguments=_arguments(c["function"]["arguments"])) for c in m.get("tool_calls") or ()]
            out.append(ChatMessageAssistant(content=content, tool_calls=calls or None))
        elif role == "tool":
            out.append(ChatMessageTool(content=content, tool_call_id=m.get("tool_call_id")))
    return out


def _arguments(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _tool_info(tool: dict) -> ToolInfo:
    f = tool["function"]
    return ToolInfo(name=f["name"], description=f.get("description", ""),
                    parameters=ToolParams.model_validate(f.get("parameters") or {}))


class InspectModelClient:
    """A bizsim :class:`~bizsim.agents.llm.client.ModelClient` asking Inspect's model, from the harness's thread.

    Every call goes through ``Model.generate`` on Inspect's event loop, so the
    sample's transcript, usage, limits and cache are Inspect's. Each request's new
    messages (those after its last assistant message) and the answer are appended
    to the agent state, so the transcript holds the whole episode and message
    limits count it. An Inspect limit reached ends the bizsim run as a cap does
    (``terminal_detail`` ``inspect_LIMIT_limit``); it is raised again once the run
    directory is written (:attr:`limit`).
    """

    #: Inspect's own generation config (``--max-tokens``) caps the answers: the harness sends no default cap.
    caps_answers = True

    def __init__(self, model: Model, state: AgentState) -> None:
        self.inspect_model = model
        self.model = str(model)
        self.endpoint = f"inspect:{model}"
        self.state = state
        self.limit: LimitExceededError | None = None
        # The event loop's cancellation exception, taken here: a worker thread cannot ask which loop it serves.
        self._cancelled = anyio.get_cancelled_exc_class()

    def cost(self, model: str, usage: Usage) -> float | None:
        """Unknown here: Inspect prices calls itself (its ``cost_limit``), bizsim records ``None``."""
        return None

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None, **params: Any) -> ModelResponse:
        """One chat completion through Inspect (called on the harness's worker thread)."""
        try:
            anyio.from_thread.check_cancelled()
        except self._cancelled:
            # Inspect cancelled the sample (its time or working limit, an interrupt): the run ends here, recorded;
            # the cancellation reaches Inspect once the harness has written the run directory.
            raise RunAborted("inspect_cancelled", "Inspect cancelled the sample") from None
        try:
            return anyio.from_thread.run(self._generate, list(messages), list(tools or ()), params)
        except self._cancelled:  # cancelled while Inspect's model answered: end the run as above, recorded
            raise RunAborted("inspect_cancelled", "Inspect cancelled the sample") from None

    async def _generate(self, messages: list[dict], tools: list[dict], params: dict[str, Any]) -> ModelResponse:
        last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=0)
        config = GenerateConfig(**{k: v for k, v in params.items() if k in ("temperature", "max_tokens")})
        try:
            self.state.messages.extend(to_inspect_messages(messages[last + 1 if last else 0:]))
            output: ModelOutput = await self.inspect_model.generate(
                to_inspect_messages(messages), [_tool_info(t) for t in tools], config=config)
            self.state.messages.append(output.message)
        except LimitExceededError as exc:
            self.limit = exc
            raise RunAborted(f"inspect_{exc.type}_limit", str(exc)) from None
        self.state.output = output
        if output.error:
            raise TransientModelError(str(output.error))
        usage = output.usage
        calls = tuple(ToolCall(c.id, c.function, json.dumps(c.arguments)) for c in output.message.tool_calls or ())
        return ModelResponse(
            content=output.message.text or None, tool_calls=calls,
            usage=Usage(usage.input_tokens, usage.output_tokens) if usage is not None else Usage(),
            latency_s=float(output.time or 0.0), model=output.model or self.model, finish_reason=output.stop_reason,
        )


@agent(name="bizsim_harness")
def bizsim_harness(**options: Any) -> Agent:
    """bizsim's own harness for the sample's world (its registered protocol), asking the evaluated model.

    Args:
        options: :class:`~bizsim.agents.llm.LLMAgentConfig` fields (``max_turns``, ``history_rounds``, ...).
    """

    async def execute(state: AgentState) -> AgentState:
        from bizsim.runs.llm_run import run_llm
        from bizsim.runs.runspec import RunSpec

        plan = sample_plan()
        model = get_model()
        client = InspectModelClient(model, state)
        state.messages = []  # the harness writes the conversation itself, turn by turn
        settings = {**options, "model": str(model)}
        LLMAgentConfig.from_options(settings)  # bad options fail here, before the run directory is made
        spec = RunSpec(plan["world"], plan["preset"], "llm", plan["seed"], agent_options=settings)
        await anyio.to_thread.run_sync(lambda: run_llm(spec, out=plan["run_dir"], client=client))
        if client.limit is not None:
            raise client.limit
        return state

    return execute
