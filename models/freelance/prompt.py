"""The freelance agent's default prompt text (our words for the reference's role line)."""

from __future__ import annotations

from .._ecogym import system_prompt

__all__ = ["ROLE", "SYSTEM_PROMPT", "role_for"]

_ROLE = (
    "You are a freelancer in a gig economy for one year. Find tasks, solve them and get paid, while keeping "
    "Money > 0, Energy > 0 and Stress < 100: reaching any limit ends your career. Every day costs $10 of living "
    "expenses, restores 5 energy and relieves 10 stress. You may submit at most 3 solutions a day; a right answer "
    "earns the quoted payment and raises your skill in that category, a wrong one raises stress and lowers skill.{burnout} "
    "Maximise your Career Score (wealth and skills)."
)
_BURNOUT = (" Even a right answer is sometimes rejected for slips (more often on tasks above your skill), and three "
            "times as often while your stress is 70 or more.")


def role_for(burnout: bool) -> str:
    """The role line, telling of the burnout spiral only when the world applies it."""
    return _ROLE.format(burnout=_BURNOUT if burnout else "")


#: The role line of the ``default`` preset.
ROLE = role_for(True)

#: The default system prompt (five actions a day).
SYSTEM_PROMPT = system_prompt(ROLE, 5)
