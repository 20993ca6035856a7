"""The startup world's commands: the reference's names, arguments, fields and errors."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Literal, cast

from bizsim.simcore.commands import Arg, CommandSet
from bizsim.simcore.errors import CommandError
from bizsim.simcore.limits import clip

from .state import DOMAINS, TASK_STATUSES, Task

if TYPE_CHECKING:
    from .world import StartupWorld

__all__ = ["COMMANDS", "REFERENCE_COMMANDS"]

COMMANDS = CommandSet(programs=("yc-bench", "bizsim"))
command = COMMANDS.command

Domain = Literal["research", "inference", "data_environment", "training"]
LEDGER_CATEGORIES = ("monthly_payroll", "task_reward", "task_fail_penalty", "task_cancel_penalty", "payment_dispute")
_TASK_ID = Arg("Task UUID or title (e.g. Task-42)")
_MAX_NOTE = 100_000


def _task(world: StartupWorld, task_id: str, *, owned_first: bool = False) -> Task:
    task = world.find_task(task_id, owned_first=owned_first)
    if task is None:
        raise CommandError(f"Task '{clip(task_id)}' not found.", "Use `market browse` or `task list` to see task ids.")
    return task


def _iso(world: StartupWorld, t_us: int | None) -> str | None:
    return None if t_us is None else world.calendar.iso(t_us)


# sim -------------------------------------------------------------------------
@command("sim resume", "Advance time to the next event: a task completion, payroll, or the horizon.", advances=True)
def sim_resume(world: StartupWorld):
    return world.request_advance(require_active=True)


# company, employees, clients ---------------------------------------------------
@command("company status", "Show funds, prestige per domain, task counts, payroll and runway.")
def company_status(world: StartupWorld) -> dict:
    payroll = world.monthly_payroll_cents
    return {
        "company_id": world.company_uid,
        "company_name": world.company_name,
        "funds_cents": world.funds_cents,
        "prestige": {d: float(world.prestige[d]) for d in sorted(DOMAINS)},
        "sim_time": world.now_iso,
        "horizon_end": _iso(world, world.horizon_us),
        "tasks": {
            "active": len(world.active),
            "planned": world.count("planned"),
            "completed": world.count("completed_success") + world.count("completed_fail"),
            "cancelled": world.count("cancelled"),
        },
        "employees": len(world.employees),
        "next_payroll": world.calendar.next_month_start(world.now_us).isoformat(),
        "monthly_payroll_cents": payroll,
        "risk": {
            "months_runway": round(world.funds_cents / payroll, 2) if payroll > 0 else None,
            "bankrupt": world.funds_cents < 0,
        },
    }


@command("employee list", "List employees with tier, salary, per-domain skill rates and active tasks.")
def employee_list(world: StartupWorld) -> dict:
    rows = [
        {
            "name": e.name,
            "tier": e.tier,
            "salary_cents": e.salary_cents,
            "skill_rates": {d: round(float(e.rates[d]), 2) for d in sorted(DOMAINS)},
            "active_tasks": [t.title for t in world.active if e in t.assignees],
        }
        for e in world.employees
    ]
    return {"count": len(rows), "employees": rows}


@command("client list", "Show all clients with current trust levels.")
def client_list(world: StartupWorld) -> dict:
    rows = [
        {"client_id": c.uid, "name": c.name, "trust_level": float(c.trust), "tier": c.tier, "specialties": list(c.specialties)}
        for c in world.clients_by_name
    ]
    return {"count": len(rows), "clients": rows}


@command("client history", "Show per-client task successes, failures and failure rate.")
def client_history(world: StartupWorld) -> dict:
    rows = []
    for c in world.clients_by_name:
        won = sum(1 for t in world.tasks if t.client is c and t.status == "completed_success")
        lost = sum(1 for t in world.tasks if t.client is c and t.status == "completed_fail")
        total = won + lost
        rows.append(
            {
                "client_name": c.name,
                "trust_level": float(c.trust),
                "tasks_succeeded": won,
                "tasks_failed": lost,
                "failure_rate_pct": round(lost / total * 100, 1) if total > 0 else 0.0,
            }
        )
    return {"count": len(rows), "client_history": rows}


# market ------------------------------------------------------------------------
@command("market browse", "Browse market tasks the company can accept now, highest reward first.")
def market_browse(
    world: StartupWorld,
    domain: Annotated[Domain | None, Arg("Filter by requirement domain")] = None,
    reward_min_cents: Annotated[int | None, Arg("Min reward in cents")] = None,
    limit: Annotated[int | None, Arg("Max results (default from the preset)", minimum=1)] = None,
    offset: Annotated[int, Arg("Offset for pagination", minimum=0)] = 0,
) -> dict:
    if limit is None:
        limit = world.config.market_browse_default_limit
    prestige = {d: int(float(p)) for d, p in world.prestige.items()}
    top, floor = max(prestige.values()), min(prestige.values())
    # Per level above the floor, the domains whose prestige falls short of it.
    short = {need: frozenset(d for d, p in prestige.items() if p < need) for need in range(floor + 1, top + 1)}
    trust: dict = {}  # client -> its trust as a float, for the gated tasks met on the way
    results, skipped = [], 0
    for task in world.market_up_to(top):
        if reward_min_cents is not None and task.reward_cents < reward_min_cents:
            break
        need = task.required_prestige
        if domain is not None and domain not in task.required:
            continue
        if need > floor and not short[need].isdisjoint(task.required):
            continue
        gate = task.required_trust
        if gate > 0:
            client = task.client
            level = trust.get(client)
            if level is None:
                level = trust[client] = float(client.trust)
            if level < gate:
                continue
        if skipped < offset:
            skipped += 1
            continue
        results.append(_market_row(task))
        if len(results) >= limit:
            break
    return {"total": len(results), "offset": offset, "limit": limit, "tasks": results}


def _market_row(task: Task) -> dict:
    return {
        "task_id": task.title,
        "client_name": task.client.name,
        "required_prestige": task.required_prestige,
        "required_trust": task.required_trust,
        "reward_funds_cents": task.reward_cents,
        "reward_prestige_delta": float(task.delta),
        "skill_boost_pct": float(task.boost),
        "requirements": [{"domain": d, "required_qty": float(q)} for d, q in task.required.items()],
    }


# tasks -------------------------------------------------------------------------
def _check_acceptable(world: StartupWorld, task: Task, task_id: str) -> None:
    if task.status != "market":
        raise CommandError(f"Task {clip(task_id)} is not in market status (current: {task.status}).")
    for d in task.required:
        p = float(world.prestige[d])
        if task.required_prestige > p:
            raise CommandError(f"Company prestige in {d} ({p:.1f}) does not meet task requirement ({task.required_prestige}).")
    trust = float(task.client.trust)
    if task.required_trust > 0 and trust < task.required_trust:
        raise CommandError(
            f"Client trust with {task.client.name} ({trust:.1f}) does not meet task requirement ({task.required_trust})."
        )


@command("task accept", "Accept a market task: it becomes planned, its deadline starts, the market refills.",
         marked=True)
def task_accept(world: StartupWorld, task_id: Annotated[str, _TASK_ID]) -> dict:
    task = _task(world, task_id)
    _check_acceptable(world, task, task_id)
    fresh = world.accept(task)
    return {
        "task_id": task.title,
        "status": task.status,
        "accepted_at": _iso(world, task.accepted_at),
        "deadline": _iso(world, task.deadline),
        "replacement_task_id": fresh.title,
    }


def _owned(task: Task, task_id: str, allowed: tuple[str, ...], verb: str) -> None:
    if task.status not in allowed:
        raise CommandError(f"Task {clip(task_id)} must be {' or '.join(allowed)} to {verb} (current: {task.status}).")


@command("task assign", "Assign employees (comma-separated names) to a planned or active task.")
def task_assign(
    world: StartupWorld,
    task_id: Annotated[str, _TASK_ID],
    employees: Annotated[str, Arg("Comma-separated employee names (e.g. Emp_1,Emp_4,Emp_7)")],
) -> dict:
    names = [e.strip() for e in employees.split(",") if e.strip()]
    task = _task(world, task_id, owned_first=True)
    _owned(task, task_id, ("planned", "active"), "assign")
    staff = []
    for name in names:
        emp = world.find_employee(name)
        if emp is None:
            raise CommandError(f"Employee '{name}' not found.", "Use `employee list` to see names.")
        staff.append(emp)
    if world.config.assign_duplicates_fail:
        fresh = [e for e in staff if e not in task.assignees]
        twice = next((e for i, e in enumerate(fresh) if e in fresh[:i]), None)
        if twice is not None:
            raise CommandError(
                f"task assign failed in the reference behaviour: {twice.name} is named twice (the reference "
                "implementation fails on it); nobody was assigned.",
                "Name each employee once.",
            )
    added = world.assign(task, staff)
    return {
        "task_id": task.title,
        "status": task.status,
        "newly_assigned": [e.name for e in added],
        "total_assigned": [e.name for e in task.assignees],
    }


@command("task assign-all", "Disabled, as in the reference: use `task assign`.", disabled=True)
def task_assign_all(world: StartupWorld, task_id: Annotated[str, _TASK_ID]) -> dict:
    raise CommandError(
        "assign-all is not available. Use `task assign --task-id <ID> --employees Emp_1,Emp_4,Emp_7` to assign specific employees."
    )


@command("task dispatch", "Start work on a planned task that has employees assigned.")
def task_dispatch(world: StartupWorld, task_id: Annotated[str, _TASK_ID]) -> dict:
    task = _task(world, task_id, owned_first=True)
    _owned(task, task_id, ("planned",), "dispatch")
    if not task.assignees:
        raise CommandError(
            "No employees assigned. Use `task assign-all` or `task assign --employee-id Emp_1` first.",
            f"Assign first: task assign --task-id {task.title} --employees Emp_1,Emp_2",
        )
    world.dispatch(task)
    return {
        "task_id": task.title,
        "status": task.status,
        "assignment_count": len(task.assignees),
        "assigned_employees": [e.name for e in task.assignees],
    }


@command("task list", "List the company's tasks, newest accepted first.")
def task_list(
    world: StartupWorld,
    status: Annotated[str | None, Arg("Filter by task status")] = None,
) -> dict:
    if status is not None and status not in TASK_STATUSES:
        raise CommandError(f"Invalid status: {clip(status)}. Valid: {list(TASK_STATUSES)}")
    owned = [t for t in world.tasks if t.accepted_at is not None and (status is None or t.status == status)]
    owned.sort(key=lambda t: -cast(int, t.accepted_at))  # owned tasks were accepted
    now = world.now_us
    rows = [
        {
            "task_id": t.title,
            "title": t.title,
            "status": t.status,
            "client_name": t.client.name,
            "progress_pct": t.progress_pct(),
            "deadline": _iso(world, t.deadline),
            "at_risk": t.status == "active" and now > cast(int, t.deadline),  # accepted: deadline set
        }
        for t in owned
    ]
    return {"count": len(rows), "tasks": rows}


@command("task inspect", "Show a task in detail (market tasks too): requirements, progress, team.")
def task_inspect(world: StartupWorld, task_id: Annotated[str, _TASK_ID]) -> dict:
    t = _task(world, task_id)
    return {
        "task_id": t.title,
        "title": t.title,
        "status": t.status,
        "client_name": t.client.name,
        "required_prestige": t.required_prestige,
        "required_trust": t.required_trust,
        "reward_funds_cents": t.reward_cents,
        "reward_prestige_delta": float(t.delta),
        "skill_boost_pct": float(t.boost),
        "accepted_at": _iso(world, t.accepted_at),
        "deadline": _iso(world, t.deadline),
        "completed_at": _iso(world, t.completed_at),
        "success": t.success,
        "progress_pct": t.progress_pct(),
        "requirements": [
            {
                "domain": d,
                "required_qty": float(q),
                "completed_qty": float(t.completed[d]),
                "remaining_qty": float(q - t.completed[d]),
            }
            for d, q in t.required.items()
        ],
        "assignments": [{"employee": e.name, "assigned_at": _iso(world, at)} for e, at in zip(t.assignees, t.assigned_at)],
    }


@command("task cancel", "Cancel a planned or active task (prestige and trust penalty, no cash).", marked=True)
def task_cancel(
    world: StartupWorld,
    task_id: Annotated[str, _TASK_ID],
    reason: Annotated[str, Arg("Reason for cancellation", max_length=2000)],
) -> dict:
    task = _task(world, task_id, owned_first=True)
    if task.status not in ("planned", "active"):
        raise CommandError(f"Task {clip(task_id)} cannot be cancelled (current: {task.status}).")
    if not world.config.cancel_enabled:
        raise CommandError(
            "task cancel is unavailable in the reference behaviour (the reference implementation fails on it); nothing changed.",
            "Use preset 'default' for a working cancel.",
        )
    out = world.cancel(task)
    task.cancel_reason = reason
    return {
        "task_id": task.title,
        "status": task.status,
        "reason": reason,
        "cancel_penalty_per_domain": out["penalty"],
        "prestige_changes": out["prestige_changes"],
        "trust_delta": out["trust_delta"],
        "bankrupt": world.funds_cents < 0,
    }


# finance -----------------------------------------------------------------------
def _date(text: str, flag: str, fmt: str, hint: str) -> datetime:
    try:
        return datetime.strptime(text, fmt)
    except ValueError:
        raise CommandError(f"Invalid date format: {clip(text)}. Use {hint}.", f"{flag} takes {hint}") from None


#: What a ledger entry's ``ref_id`` names, by category (``task`` for the rest).
_REF_TYPES = {"monthly_payroll": "employee", "transfer_in": "company", "transfer_out": "company"}


def _entry_id(world: StartupWorld, i: int) -> str:
    digest = hashlib.sha256(f"bizsim:{world.seed}:ledger:{i}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


@command("finance ledger", "View ledger entries, oldest first, with optional date and category filters.")
def finance_ledger(
    world: StartupWorld,
    from_date: Annotated[str | None, Arg("Start date MM/DD/YYYY", flag="--from")] = None,
    to_date: Annotated[str | None, Arg("End date MM/DD/YYYY", flag="--to")] = None,
    category: Annotated[str | None, Arg("Filter by ledger category")] = None,
) -> dict:
    lo = hi = None
    if from_date is not None:
        lo = world.calendar.to_us(_date(from_date, "--from", "%m/%d/%Y", "MM/DD/YYYY"))
    if to_date is not None:
        hi = world.calendar.to_us(_date(to_date, "--to", "%m/%d/%Y", "MM/DD/YYYY"))
    categories = world.ledger_categories
    if category is not None and category not in categories:
        raise CommandError(f"Invalid category: {clip(category)}. Valid: {list(categories)}")
    rows = []
    for i, e in enumerate(world.ledger.entries):
        if (lo is not None and e.t_us < lo) or (hi is not None and e.t_us > hi):
            continue
        if category is not None and e.category != category:
            continue
        rows.append(
            {
                "id": _entry_id(world, i),
                "occurred_at": _iso(world, e.t_us),
                "category": e.category,
                "amount_cents": e.amount_cents,
                "ref_type": _REF_TYPES.get(e.category, "task"),
                "ref_id": e.ref,
            }
        )
    return {"count": len(rows), "total_amount_cents": sum(r["amount_cents"] for r in rows), "entries": rows}


@command("report monthly", "Monthly revenue, cost, return and ending funds.")
def report_monthly(
    world: StartupWorld,
    from_month: Annotated[str | None, Arg("Start month YYYY-MM")] = None,
    to_month: Annotated[str | None, Arg("End month YYYY-MM")] = None,
) -> dict:
    lo = _date(from_month, "--from-month", "%Y-%m", "YYYY-MM").date() if from_month else None
    hi = _date(to_month, "--to-month", "%Y-%m", "YYYY-MM").date() if to_month else None
    if world.config.reference_outputs:
        return {"count": 0, "months": []}
    months = world.monthly_figures()
    rows = [m for m in months if (lo is None or m["month_start"] >= lo.isoformat()) and (hi is None or m["month_start"] <= hi.isoformat())]
    return {"count": len(rows), "months": rows}


# scratchpad --------------------------------------------------------------------
@command("scratchpad read", "Read the scratchpad.")
def scratchpad_read(world: StartupWorld) -> dict:
    return {"content": world.scratchpad}


@command("scratchpad write", "Overwrite the scratchpad (it persists in the system prompt).")
def scratchpad_write(world: StartupWorld, content: Annotated[str, Arg("Text to write (replaces existing content).", max_length=_MAX_NOTE)]) -> dict:
    world.scratchpad = content
    return {"ok": True, "content": world.scratchpad}


@command("scratchpad append", "Append a line to the scratchpad.")
def scratchpad_append(world: StartupWorld, content: Annotated[str, Arg("Text to append to existing content.", max_length=_MAX_NOTE)]) -> dict:
    joined = world.scratchpad + "\n" + content if world.scratchpad else content
    if len(joined) > _MAX_NOTE:
        raise CommandError(f"The scratchpad would hold {len(joined)} characters; the limit is {_MAX_NOTE}.", "Rewrite it shorter with `scratchpad write`.")
    world.scratchpad = joined
    return {"ok": True, "content": world.scratchpad}


@command("scratchpad clear", "Clear the scratchpad.")
def scratchpad_clear(world: StartupWorld) -> dict:
    world.scratchpad = ""
    return {"ok": True}


@command("help", "List the commands, or show one command's arguments.")
def help_(world: StartupWorld, command: Annotated[str | None, Arg("A command name, e.g. 'task accept'")] = None) -> dict:
    if command is not None:
        return {"help": COMMANDS.help_text(command)}
    return {"help": COMMANDS.help_text(), "commands": [s.usage() for s in COMMANDS.visible()]}


# the reference's greedy bot (direct state access, hidden from agents) -------------
@command("bot take", "Reference bot: accept a task inline, assign everyone, start it.", hidden=True)
def bot_take(world: StartupWorld, task_id: Annotated[str, Arg("Task uuid")]) -> dict:
    task = world._by_uid.get(task_id)
    if task is None or task.status != "market":
        raise CommandError(f"Task {clip(task_id)} is not a market task.")
    if any(float(world.prestige[d]) < task.required_prestige for d in task.required):
        raise CommandError(f"Task {clip(task_id)} needs more prestige.")
    if task.required_trust > 0 and float(task.client.trust) < task.required_trust:
        raise CommandError(f"Task {clip(task_id)} needs more trust.")
    fresh = world.accept(task, bot=True)
    world.assign(task, list(world.employees))
    world.dispatch(task)
    return {"task_id": task.title, "replacement_task_id": fresh.title}


@command("bot wait", "Reference bot: advance to the next event even with nothing active.", advances=True, hidden=True)
def bot_wait(world: StartupWorld):
    return world.request_advance(require_active=False)


# the reference's command-line parser (preset ``reference``, ``reference_cli``) -------------
def _strict_date(fmt: str, kind: str, hint: str):
    """A parse-time check of a date option: the reference rejects a malformed one as a usage error (exit 2)."""

    def check(value: str, where: str) -> None:
        try:
            datetime.strptime(value, fmt)
        except ValueError:
            raise CommandError(f"{where}: Invalid {kind} format: {value}. Use {hint}.") from None

    return check


_MDY = _strict_date("%m/%d/%Y", "date", "MM/DD/YYYY")
_YM = _strict_date("%Y-%m", "month", "YYYY-MM")

_REFERENCE = COMMANDS.variant(drop=("help",))
#: The reference's refusal of ``sim init`` once its database holds a simulation, word for word.
SIM_EXISTS = "A simulation already exists. Only one simulation per database is supported."


@_REFERENCE.command("sim init", "Start a simulation (there is one already: refused).")
def sim_init(
    world: StartupWorld,
    seed: Annotated[int, Arg("RNG seed")],
    start_date: Annotated[str, Arg("Start date MM/DD/YYYY")],
    company_name: Annotated[str, Arg("Company name")],
    horizon_years: Annotated[int, Arg("Simulation horizon in years")] = 1,
    employee_count: Annotated[int | None, Arg("Number of employees")] = None,
    market_task_count: Annotated[int | None, Arg("Number of market tasks")] = None,
) -> dict:
    # The reference's own words (the spec promises its messages); the hint is bizsim's, as on every refusal.
    raise CommandError(SIM_EXISTS, "A run has exactly one simulation, started with the episode: go on with "
                       "`yc-bench sim resume` and the other commands.")


#: The commands as the reference's command line takes them: an option given twice takes its last value,
#: ``market browse`` answers any ``--limit`` and ``--offset`` (a limit below 1 still shows one task, a negative
#: offset skips none), a malformed date is a usage error before the command runs (an empty one too), ``help``
#: is no command (``--help`` is the harness's), and ``sim init`` answers that the simulation already exists.
REFERENCE_COMMANDS = _REFERENCE.variant(
    last_option_wins=True,
    params={
        ("market browse", "limit"): {"minimum": None},
        ("market browse", "offset"): {"minimum": None},
        ("finance ledger", "from_date"): {"validate": _MDY},
        ("finance ledger", "to_date"): {"validate": _MDY},
        ("report monthly", "from_month"): {"validate": _YM},
        ("report monthly", "to_month"): {"validate": _YM},
        ("sim init", "start_date"): {"validate": _MDY},
    },
)
