"""The operation agent's default prompt text (our words for the reference's role line and rules)."""

from __future__ import annotations

from .._ecogym import system_prompt

__all__ = ["ROLE", "SYSTEM_PROMPT"]

#: The role line: who the agent is and what it is judged on.
ROLE = (
    "You operate a content platform. Your goal is to grow the platform's daily active users (DAU) and keep them "
    "high for the whole year: you are judged on the average DAU over all days."
)

#: The default system prompt (one action a day).
SYSTEM_PROMPT = system_prompt(ROLE, 1)
