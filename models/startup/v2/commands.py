"""startup-v2's commands: startup-v1's, plus the labour market (browse candidates, hire, fire)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from bizsim.simcore.commands import Arg
from bizsim.simcore.errors import CommandError
from bizsim.simcore.limits import clip

from ..commands import COMMANDS
from .signals import worded

if TYPE_CHECKING:
    from .world import StartupV2World

__all__ = ["V2_COMMANDS"]

#: The reference's bot commands go: they reach into v1's state and no v2 agent uses them. The answers that show
#: work, skill or deadlines show them in words in presets that ask (``signals.words``).
V2_COMMANDS = COMMANDS.variant(drop=("help", "bot take", "bot wait"), wrap={
    name: worded(name) for name in ("market browse", "task inspect", "task accept", "task list", "employee list")})
command = V2_COMMANDS.command
#: Longest id a hire or fire names (ids are ``Cand-N`` and ``Emp_N``); a longer one is refused unread.
_MAX_ID = 100


def _hiring_on(world: StartupV2World) -> None:
    if not world.config.hiring.enabled:
        raise CommandError("Hiring and firing are off in this preset.", "Play with the staff you have.")


@command("employee candidates", "List the candidates you may hire: tier, salary ask, skill rates; and hires "
         "not yet started.")
@worded("employee candidates")
def employee_candidates(world: StartupV2World) -> dict:
    _hiring_on(world)
    h = world.config.hiring
    return {
        "count": len(world.candidates),
        "candidates": [world.show_candidate(c) for c in world.candidates],
        "pending_hires": [{"name": p.employee.name, "starts_at": world.calendar.iso(p.start_us),
                           "salary_cents": p.employee.salary_cents} for p in world.pending],
        "notice_business_days": h.notice_days,
        "onboarding": world.describe_onboarding(),
        "severance_months": h.severance_months,
        "roster": len(world.employees),
        "max_employees": h.max_employees,
    }


@command("employee hire", "Hire a candidate: they join after the notice period, at their salary ask, and ramp up "
         "to full productivity during onboarding.", marked=True)
def employee_hire(world: StartupV2World, candidate: Annotated[str, Arg("Candidate id, e.g. Cand-3",
                                                                      max_length=_MAX_ID)]) -> dict:
    _hiring_on(world)
    cand = next((c for c in world.candidates if c.name == candidate), None)
    if cand is None:
        raise CommandError(f"Candidate '{clip(candidate)}' not found.", "Use `employee candidates` to see ids.")
    cap = world.config.hiring.max_employees
    if len(world.employees) + len(world.pending) >= cap:
        raise CommandError(f"The roster is full ({cap} staff and hires, the preset's max_employees).",
                           "Fire someone first, or wait for a resignation.")
    pending = world.hire(cand)
    return {"ok": True, "candidate": cand.name, "employee": pending.employee.name, "tier": cand.tier,
            "salary_cents": cand.ask_cents, "starts_at": world.calendar.iso(pending.start_us)}


@command("employee fire", "Fire an employee now: they leave every task at once and are paid severance.",
         marked=True)
def employee_fire(world: StartupV2World, employee: Annotated[str, Arg("Employee name, e.g. Emp_3",
                                                                     max_length=_MAX_ID)]) -> dict:
    _hiring_on(world)
    emp = world.find_employee(employee)
    if emp is None or emp not in world.employees:
        raise CommandError(f"Employee '{clip(employee)}' not found.", "Use `employee list` to see names.")
    if len(world.employees) == 1:
        raise CommandError(f"{emp.name} is the last employee.", "Hire someone before firing the last employee.")
    cost = world.severance_for(emp)
    if cost > world.funds_cents:
        raise CommandError(f"Severance for {emp.name} is {cost} cents; funds are {world.funds_cents}.",
                           "Firing needs the severance in the bank.")
    tasks = world.fire(emp, cost)
    return {"ok": True, "employee": emp.name, "severance_cents": cost, "left_tasks": tasks,
            "funds_cents": world.funds_cents}


@command("help", "List the commands, or show one command's arguments.")
def help_(world: StartupV2World, command: Annotated[str | None, Arg("A command name, e.g. 'employee hire'")] = None
          ) -> dict:
    if command is not None:
        return {"help": V2_COMMANDS.help_text(command)}
    return {"help": V2_COMMANDS.help_text(), "commands": [s.usage() for s in V2_COMMANDS.visible()]}


