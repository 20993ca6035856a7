"""The loopback OpenAI-compatible server the LLM tests run against (it lives in
:mod:`bizsim.agents.llm.loopback`, so notebooks and examples can start it too), and the litellm import they share."""

from __future__ import annotations

from typing import Any

from bizsim.agents.llm.loopback import FAULTS, LoopbackLLMServer, Reply, usage_for

__all__ = ["FAULTS", "LoopbackLLMServer", "Reply", "needs_litellm", "require_litellm", "usage_for"]


def require_litellm() -> Any:
    """litellm, imported with its bundled price map (no network), or skip the test module."""
    import os

    import pytest

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return pytest.importorskip("litellm")


def needs_litellm() -> None:
    """Skip the test module when litellm is not installed, without importing it: its import takes seconds, which
    every pytest-xdist worker would pay while collecting, whether or not it runs the module's tests."""
    import importlib.util
    import os

    import pytest

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if importlib.util.find_spec("litellm") is None:
        pytest.skip("needs litellm (bizsim[llm])", allow_module_level=True)
