"""What a company in a startup arena is told beyond the YC-Bench prompt."""

from __future__ import annotations

from .commands import INBOX_PAGE, MAX_FROM_ONE, MAX_MESSAGE

__all__ = ["arena_section"]


def arena_section(seat: int, company: str, rivals: list[tuple[int, str]]) -> str:
    """The arena's rules as a section appended to the system prompt."""
    others = ", ".join(f"seat {k} ({name})" for k, name in rivals)
    return (
        f"\n\n## The Arena\n"
        f"You are seat {seat}, {company}. Rival companies share your market: {others}. A task a rival accepts is "
        "gone from your market (its replacement appears at once); your funds, employees, client trust, prestige "
        "and tasks are your own, and rivals cannot see them, nor you theirs.\n"
        f"- `yc-bench arena companies` lists the companies.\n"
        f"- `yc-bench message send --to <seat> --text <text>` sends a message (at most {MAX_MESSAGE:,} "
        f"characters); `yc-bench message inbox [--offset <n>]` shows what you received (messages and payments, "
        f"{INBOX_PAGE} at a time).\n"
        "- `yc-bench finance transfer --to <seat> --amount-cents <n>` pays a rival from your funds "
        "(never more than you hold).\n"
        f"An inbox holds at most {MAX_FROM_ONE} messages and payments from each rival; more are refused."
    )
