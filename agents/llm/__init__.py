"""The LLM agent harness: any model, any world, nothing lost.

``LLMAgent`` plays a world through a model client (litellm by default, imported
only when a call is made) following the benchmark's protocol for that world
(YC-Bench for ``startup``, EcoGym for the day-based worlds), with memory
modules, retries, budgets, token and cost accounting, and a run log that lets
an interrupted run resume without paying twice.
"""

from .agent import LLMAgent, llm_agent
from .client import EmbeddingClient, ModelClient, PricedClient, endpoint_key
from .config import MEMORY_NAMES, LLMAgentConfig
from .errors import FatalModelError, ModelError, PreflightError, RunAborted, TransientModelError
from .gateway import ModelGateway, backoff_delay, request_digest
from .limits import EndpointLimiter, RunStopped
from .litellm_client import LiteLLMClient
from .pricing import Pricing
from .protocols import EcoGymProtocol, HarnessProtocol, YCBenchProtocol, make_protocol, register_protocol
from .role_client import RoleClient
from .scripted import ScriptedClient, reply
from .stats import HarnessStats
from .types import ModelResponse, ToolCall, Usage

__all__ = [
    "RoleClient",
    "MEMORY_NAMES",
    "EcoGymProtocol",
    "EmbeddingClient",
    "EndpointLimiter",
    "FatalModelError",
    "HarnessProtocol",
    "HarnessStats",
    "LLMAgent",
    "LLMAgentConfig",
    "LiteLLMClient",
    "ModelClient",
    "ModelError",
    "ModelGateway",
    "ModelResponse",
    "PreflightError",
    "PricedClient",
    "Pricing",
    "RunAborted",
    "RunStopped",
    "ScriptedClient",
    "ToolCall",
    "TransientModelError",
    "Usage",
    "YCBenchProtocol",
    "backoff_delay",
    "endpoint_key",
    "llm_agent",
    "make_protocol",
    "register_protocol",
    "reply",
    "request_digest",
]
