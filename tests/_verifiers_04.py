"""The skip of the verifiers 0.4 test modules: verifiers 0.4 pins mcp 2.0.0 and openai below 3, so it is never
installed beside the test extra; those modules run in an environment of their own (docs/rl.md says how)."""

from __future__ import annotations

import pytest


def _verifiers_version() -> tuple[int, ...]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return tuple(int(p) for p in version("verifiers").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return ()


def needs_verifiers_04() -> None:
    """Skip the calling module unless verifiers 0.4 or later is installed (read from its metadata: importing
    verifiers 0.1 to find out would take seconds)."""
    if _verifiers_version() < (0, 4):
        pytest.skip("needs verifiers 0.4 (not in the test extra: it pins mcp 2.0.0)", allow_module_level=True)
