"""What a company in a startup arena is told beyond the YC-Bench prompt."""

from __future__ import annotations

from .commands import MAX_INBOX, MAX_MESSAGE

__all__ = ["arena_section"]


def arena_section(company: str, rivals: list[str]) -> str:
    """The arena's rules as a section appended to the system prompt."""
    return (
        f"\n\n## The Arena\n"
        f"You are {company}. Rival companies share your market: {', '.join(rivals)}. A task a rival accepts is "
        "gone from your market (its replacement appears at once); your funds, employees, client trust, prestige "
        "and tasks are your own, and rivals cannot see them, nor you theirs.\n"
        f"- `yc-bench arena companies` lists the companies.\n"
        f"- `yc-bench message send --to <company> --text <text>` sends a message (at most {MAX_MESSAGE:,} "
        "characters); `yc-bench message inbox` shows what you received.\n"
        "- `yc-bench finance transfer --to <company> --amount-cents <n>` pays a rival from your funds "
        "(never more than you hold).\n"
        f"An inbox holds at most {MAX_INBOX} messages and payments; a company whose inbox is full refuses more."
    )
