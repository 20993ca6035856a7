"""The vending agent's default prompt text (our words for the reference's role line and rules)."""

from __future__ import annotations

from .._ecogym import system_prompt

__all__ = ["ROLE", "SYSTEM_PROMPT"]

#: The role line: who the agent is and what it is judged on.
ROLE = (
    "You run a retail shop. Research products at the supplier, order stock, and set retail prices to make as "
    "much profit as you can: you are judged on your net worth at the end (cash, plus stock and undelivered "
    "orders at wholesale cost)."
)

#: The default system prompt (four actions a day).
SYSTEM_PROMPT = system_prompt(ROLE, 4)
