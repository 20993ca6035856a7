"""What the EcoGym worlds (operation, vending) share: the agent's rules text and result helpers.

Not a world: the world packages import it, it imports no world.
"""

from __future__ import annotations

from datetime import datetime

from bizsim.simcore.errors import ConfigError

__all__ = ["SHARED_RULES", "system_prompt", "parse_start_date"]

#: The rules every EcoGym agent is given after its role line, in our words.
#: ``{max_actions_per_day}`` is filled in with the world's daily budget.
SHARED_RULES = """\
How to act:
- Make exactly one tool call per turn, through the function-calling interface. Writing a call out as text does nothing.
- Follow each tool's schema exactly: the tool's name, every required field with its type, and no extra fields. \
Tools without arguments take {{}}. When the schema and your intuition disagree, the schema wins.
- When you have finished for the day, call task_done: the day ends and you get its report.
- You may take at most {max_actions_per_day} actions a day (task_done is free). After the last one the day ends \
by itself and task_done delivers the report."""


def system_prompt(role: str, max_actions_per_day: int) -> str:
    """The system prompt: the world's role line, a blank line, then the shared rules.

    >>> system_prompt("You run a shop.", 4).splitlines()[0]
    'You run a shop.'
    """
    return role.rstrip() + "\n\n" + SHARED_RULES.format(max_actions_per_day=max_actions_per_day)


def parse_start_date(text: str) -> datetime:
    """A config's ``start_date`` (YYYY-MM-DD) as midnight of that day."""
    try:
        return datetime.fromisoformat(text).replace(hour=0, minute=0, second=0, microsecond=0)
    except ValueError:
        raise ConfigError(f"start_date(={text!r}) must be YYYY-MM-DD") from None
