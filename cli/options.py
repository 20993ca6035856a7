"""Agent options as the command line gives them: ``--agent-opt KEY=VALUE``, the value read as JSON when it is."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bizsim.simcore.errors import BizSimError

__all__ = ["agent_options"]


def agent_options(pairs: Sequence[str], flag: str = "--agent-opt") -> dict[str, Any]:
    """``KEY=VALUE`` pairs as a dict: ``3`` is a number, ``true`` a boolean, ``[1, 2]`` a list, ``abc`` text."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, eq, raw = pair.partition("=")
        if not eq or not key:
            raise BizSimError(f"{flag} {pair!r} must look like KEY=VALUE")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out
