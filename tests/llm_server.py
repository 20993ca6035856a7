"""The loopback OpenAI-compatible server the LLM tests run against (it lives in
:mod:`bizsim.agents.llm.loopback`, so notebooks and examples can start it too), and the litellm import they share."""

from __future__ import annotations

from typing import Any

from bizsim.agents.llm.loopback import FAULTS, LoopbackLLMServer, Reply, usage_for

__all__ = ["FAULTS", "LoopbackLLMServer", "Reply", "require_litellm", "usage_for"]


def require_litellm() -> Any:
    """litellm, imported with its bundled price map (no network), or skip the test module."""
    import os

    import pytest

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return pytest.importorskip("litellm")
