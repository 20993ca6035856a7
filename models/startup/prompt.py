"""The text an LLM agent reads in the startup world (the YC-Bench protocol), in bizsim's own words.

The content follows the benchmark's published prompt (specs/startup.md §14.2
and §14.3): same role, same workflow, same commands, same mechanics bullets,
same per-turn status. The wording is ours. Functions here are pure: they turn
plain data (an observation, a stop's wake events) into text.

``faithful=True`` reproduces the reference harness's visible quirks (preset
``reference``): the start message recommends the disabled ``task assign-all``,
failure lines hide the cash penalty, and payroll shows as a bare event line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "AUTO_ADVANCE_NOTE",
    "EMPTY_REPLY_NOTE",
    "event_lines",
    "history_marker",
    "money",
    "restart_banner",
    "scratchpad_section",
    "start_message",
    "system_prompt",
    "turn_message",
]

_SYSTEM = """\
You are the chief executive of an AI startup inside a business simulation. Your goal is to finish the \
simulated year with as much money as possible while building prestige. Never let funds drop below zero: \
that is bankruptcy, and the run ends.

You act only through the `run_command` tool. Each call runs one `yc-bench` command line and returns its \
output as JSON.

Your routine, every turn:
1. Look at the market: `yc-bench market browse`.
2. Take a task: `yc-bench task accept --task-id <ID>`.
3. Staff it: `yc-bench task assign --task-id <ID> --employees Emp_1,Emp_2,...`. Check the skill rates in \
`yc-bench employee list` first and pick people who are strong in the task's domains.
4. Start it: `yc-bench task dispatch --task-id <ID>`.
5. Let time pass: `yc-bench sim resume`. It only works while at least one task is active.
Always keep at least one task running. Several tasks running side by side earn more: dispatch a second task \
before you resume.

Only the last {keep} turns of this conversation are kept. Write what you learn and want to keep (rules, \
client warnings, plans) to your scratchpad with `yc-bench scratchpad write --content "..."`: the scratchpad \
stays in this system prompt for the whole run.

Commands that observe:
- `yc-bench company status`: funds, prestige per domain, payroll, runway
- `yc-bench employee list`: employees with tier, salary and skill rate per domain
- `yc-bench market browse [--domain D] [--reward-min-cents N] [--limit N]`: tasks you can accept now
- `yc-bench task list [--status S]`: your tasks
- `yc-bench task inspect --task-id <ID>`: one task in detail
- `yc-bench client list`: clients and your trust with each
- `yc-bench client history`: successes and failures per client
- `yc-bench finance ledger [--from MM/DD/YYYY] [--to MM/DD/YYYY] [--category C]`: every money movement
Commands that act:
- `yc-bench task accept --task-id <ID>`
- `yc-bench task assign --task-id <ID> --employees A,B,C`
- `yc-bench task dispatch --task-id <ID>`
- `yc-bench task cancel --task-id <ID> --reason "..."`: drop a task (prestige penalty)
- `yc-bench sim resume`: advance time to the next event
- `yc-bench scratchpad write --content "..."` and `yc-bench scratchpad append --content "..."`

How the business works:
- Whenever a task completes, every employee assigned to it gets a raise, so payroll grows.
- An employee working on N active tasks splits their effort N ways: on two tasks, each gets half.
- Finish a task before its deadline and you earn its reward plus prestige in its domain. Miss the \
deadline and you lose prestige and get no reward.
- Successful work raises a client's trust. Higher trust means less work per task and unlocks that \
client's better tasks. Working for one client slowly wears down trust with the others.
- Not every client can be relied on: check `yc-bench client history` before committing to one.
- Salaries are paid every month. If funds fall below zero, the company is bankrupt.
- Prestige in a domain unlocks tasks there that pay more.
"""

#: Appended to the next user message after a reply with neither text nor tool calls.
EMPTY_REPLY_NOTE = (
    "Note from the harness: your previous reply was empty (no text, no tool call). "
    "Act through the `run_command` tool."
)
#: Shown when the harness resumed time itself.
AUTO_ADVANCE_NOTE = "The harness ran `yc-bench sim resume` for you after {n} turns without one."


def money(cents: int | None) -> str:
    """Cents as dollars, ``$1,234.56``.

    >>> money(20000000), money(-150)
    ('$200,000.00', '-$1.50')
    """
    if cents is None:
        return "n/a"
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def system_prompt(keep_rounds: int = 20) -> str:
    """The system prompt without the scratchpad section."""
    return _SYSTEM.format(keep=keep_rounds)


def scratchpad_section(notes: str) -> str:
    """The scratchpad as appended to the system prompt; empty notes add nothing."""
    if not notes:
        return ""
    return "\n\n## Your Scratchpad Notes\n" + notes


def history_marker(keep_rounds: int, block_rounds: int | None = None) -> str:
    """The user message standing in for dropped turns (with ``block_rounds``, a window that drops them in blocks)."""
    kept = f"only the last {keep_rounds}" if block_rounds is None else \
        f"the last {keep_rounds} to {keep_rounds + block_rounds - 1}"
    return f"[Earlier turns were removed; {kept} turns are kept. Your scratchpad in the system prompt still holds your notes.]"


def _status_lines(obs: Mapping[str, Any]) -> list[str]:
    runway = obs.get("runway_months")
    return [
        f"- Current time: {obs['sim_time']}",
        f"- Horizon end: {obs['horizon_end']}",
        f"- Funds: {money(obs['funds_cents'])} ({obs['funds_cents']} cents)",
        f"- Monthly payroll: {money(obs['monthly_payroll_cents'])}",
        f"- Runway: {'~' + format(runway, '.1f') + ' months' if runway is not None else 'n/a'}",
        f"- Employees: {obs['employees']}",
        f"- Active tasks: {obs['active_tasks']}",
        f"- Planned tasks: {obs['planned_tasks']}",
    ]


def restart_banner(episode: int) -> str:
    """The heading of the first message of episode ``episode`` (> 1) after a bankruptcy."""
    return (
        f"## Episode {episode} — Restarting After Bankruptcy\n"
        "Your company went bankrupt in the previous episode. This is a fresh start in the same world: same "
        "employees, clients and market. Your scratchpad notes were kept; read them in the system prompt and "
        "avoid the mistakes that led to bankruptcy.\n\n"
    )


def start_message(obs: Mapping[str, Any], *, faithful: bool = False) -> str:
    """The first user message of an episode."""
    assign = (
        "`yc-bench task assign-all --task-id <ID>`" if faithful
        else "`yc-bench task assign --task-id <ID> --employees Emp_1,Emp_2,...`"
    )
    lines = ["## Simulation Start — Take Immediate Action", *_status_lines(obs), ""]
    lines += [
        "Get work running right away:",
        "1. `yc-bench market browse` to see the tasks you can take.",
        "2. `yc-bench task accept --task-id <ID>` for a promising one.",
        f"3. {assign} to staff it.",
        "4. `yc-bench task dispatch --task-id <ID>` to start it.",
        "5. `yc-bench sim resume` to let the work happen.",
        "You may run several commands in one turn; read each result before relying on it.",
        "If `task accept` is refused (trust or prestige too low), pick another task.",
        "",
        "Do not call `sim resume` before a task is active: it is refused and no time passes.",
    ]
    return "\n".join(lines)


def _dollars(cents: int) -> str:
    """Whole dollars, as the reference's event lines print money: ``$17,380``."""
    return f"${cents / 100:,.0f}"


def event_lines(events: Iterable[Mapping[str, Any]], *, faithful: bool = False, titles: Mapping[str, str] | None = None) -> list[str]:
    """One line per event a stop reported (completions, payroll, milestones, the horizon).

    ``faithful`` (preset ``reference``) prints money as the reference does: whole dollars, a zero reward
    or raise left out.
    """
    out = []
    for ev in events:
        kind = ev.get("type")
        if kind == "task_completed" and faithful:
            bump, n = ev["salary_bump_total_cents"], ev["employees_assigned"]
            team = f" | {n} employees, +{_dollars(bump)}/mo payroll" if bump > 0 else (f" | {n} employees" if n else "")
            head = f"- {ev['task_title']} (client: {ev['client_name']}): "
            if ev["success"]:
                paid = f" +{_dollars(ev['funds_delta'])}" if ev["funds_delta"] else ""
                out.append(f"{head}SUCCESS{paid} [{ev['deadline_margin']}]{team}")
            else:
                out.append(f"{head}FAILED — missed deadline [{ev['deadline_margin']}], no reward")
        elif kind == "task_completed":
            head = f"- {ev['task_title']} (client: {ev['client_name']}): "
            team = f"{ev['employees_assigned']} employees, +{money(ev['salary_bump_total_cents'])}/mo payroll"
            if ev["success"]:
                out.append(f"{head}SUCCESS +{money(ev['funds_delta'])} [{ev['deadline_margin']}] | {team}")
            elif not ev.get("funds_delta"):
                out.append(f"{head}FAILED — missed deadline [{ev['deadline_margin']}], no reward")
            else:
                out.append(
                    f"{head}FAILED — missed deadline [{ev['deadline_margin']}], no reward, "
                    f"penalty {money(ev['funds_delta'])}"
                )
        elif kind == "monthly_payroll":
            out.append("- Event: monthly_payroll" if faithful else f"- Payroll paid; funds now {money(ev['funds_after'])}")
        elif kind == "task_half":
            title = (titles or {}).get(ev.get("task_id", ""), ev.get("task_id", "?"))
            out.append(f"- {title} reached {ev.get('milestone_pct')}% progress")
        elif kind == "horizon_end":
            out.append("- Event: horizon_end (the year is over)")
        elif kind in _V2_EVENTS:  # startup-v2's events (v1 never reports them)
            out.append("- " + _V2_EVENTS[kind].format_map(_Blank(ev)))
        else:
            out.append(f"- Event: {kind}")
    return out


#: startup-v2's wake events, as lines.
_V2_EVENTS = {
    "employee_started": "{employee} ({tier}) started work at {productivity:.0%} productivity",
    "market_downturn": "Market downturn: rewards paid until {until} are cut by {reward_cut:.0%}",
    "client_collapsed": "{client_name} went under; cancelled unpaid: {tasks_cancelled}",
    "employee_resigned": "{employee} resigned; left tasks: {left_tasks}",
    "disruption_warning": "Warning: a {kind} is coming on {starts_at} {client_name}",
    "late_payment": "Late payment received for {task_title}: +{amount_cents} cents",
}


class _Blank(dict):  # type: ignore[type-arg]
    """Event fields for a line; one an event lacks reads as empty."""

    def __missing__(self, key: str) -> str:
        return ""


def turn_message(
    label: int,
    obs: Mapping[str, Any],
    *,
    keep_rounds: int,
    rounds_seen: int,
    events: Iterable[Mapping[str, Any]] | None = None,
    notes: Iterable[str] = (),
    faithful: bool = False,
    titles: Mapping[str, str] | None = None,
) -> str:
    """The user message of a later turn: status bullets, memory note, events since the last turn.

    Args:
        label: the turn number shown.
        obs: ``StartupWorld.observation()``.
        keep_rounds: K, the rounds the history keeps.
        rounds_seen: rounds already in the conversation before this one.
        events: wake events of the stops since the last turn (``None``: time did not move).
        notes: extra lines from the harness (an empty reply, an automatic resume).
        faithful: as the reference (preset ``reference``): the countdown runs on the turn label, and a resume
            that reported nothing adds no events section.
    """
    lines = [f"## Turn {label} — Simulation State", *_status_lines(obs)]
    left = keep_rounds - (label if faithful else rounds_seen)
    if left > 0:
        lines.append(f"- Memory: your history keeps the last {keep_rounds} turns; {left} more turns before the oldest start dropping.")
    else:
        lines.append(f"- Memory: older turns have been dropped (only the last {keep_rounds} are kept); rely on your scratchpad.")
    lines.extend(f"- {n}" for n in notes)
    if events is not None and (events or not faithful):
        rendered = event_lines(events, faithful=faithful, titles=titles)
        lines += ["", "### Events since last turn", *(rendered or ["- (none)"])]
    lines.append("")
    if obs["active_tasks"] == 0 and obs["planned_tasks"] == 0:
        lines.append("ACTION REQUIRED: no task is running. Accept and dispatch a task; `sim resume` is refused until one is active.")
    elif obs["active_tasks"] == 0:
        lines.append("ACTION REQUIRED: tasks are planned but none is active. Assign employees and dispatch before `sim resume`.")
    else:
        lines.append("Decide your next actions and run them with `run_command`.")
    return "\n".join(lines)
