"""The freelance world's commands: the reference's tool names, arguments and result fields.

``help`` is bizsim's (free). A solution is text: it is checked, judged or
quoted to a model, never executed. Refusals carry the reference's
``status`` next to bizsim's ``error`` and ``hint``; a refusal changes
nothing and uses no action.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from bizsim.simcore.commands import Arg, CommandSet
from bizsim.simcore.errors import CommandError

if TYPE_CHECKING:
    from .world import FreelanceWorld

__all__ = ["COMMANDS", "MAX_SOLUTION_CHARS", "FreelanceError"]

COMMANDS = CommandSet(programs=("bizsim",))
command = COMMANDS.command

#: The longest solution the schema admits (a config may set a lower limit).
MAX_SOLUTION_CHARS = 1_000_000


class FreelanceError(CommandError):
    """A refusal with the reference's ``status`` (``blocked``, ``failed``) and details."""

    def __init__(self, status: str, message: str, hint: str | None = None, **details: Any) -> None:
        super().__init__(message, hint)
        self.status = status
        self.details = details

    def to_dict(self) -> dict:
        return {"status": self.status, **self.details, **super().to_dict()}


@command("tasks_browse", "List the tasks in your pool: id, category, complexity, days left and estimated payment.")
def tasks_browse(world: FreelanceWorld) -> dict:
    tasks = world.browse()
    if not tasks:
        return {"status": "empty", "tasks": [], "message": "Your pool is empty. Use tasks_discover to find tasks."}
    return {"status": "success", "tasks": tasks, "count": len(tasks)}


@command("task_inspect", "Read one task of your pool: its question, quoted payment and effort, and last day. "
         "The reference answer is never shown.")
def task_inspect(world: FreelanceWorld, task_id: Annotated[str, Arg("A task id from tasks_browse, e.g. '17'",
                                                                     max_length=40)]) -> dict:
    task = world.pooled(task_id)
    payment, effort = world.quotes[task.id]
    return {"status": "selected", "task_id": str(task.id), "category": task.category, "complexity": task.complexity,
            "init_payment": payment / 100, "init_effort": effort, "question": task.question,
            "end_day": world.end_days[task.id],
            "message": "Solve it and send your answer with solution_submit; end with a clear final answer."}


@command("tasks_discover", "Look for new tasks. free: -8 energy, +1 stress, 4 tasks. paid: -$2, -5 energy, "
         "+3 stress, 6 tasks. The pool holds at most 10 tasks; the oldest leave first.")
def tasks_discover(world: FreelanceWorld, refresh_type: Annotated[
        Literal["free", "paid"], Arg("'free' or 'paid'", fold_case=True)] = "free") -> dict:
    return world.discover(refresh_type == "paid")


@command("solution_submit", "Submit your solution to a task of your pool (at most 3 submissions a day). A right "
         "answer is paid and raises skill; a wrong one raises stress and lowers skill. Costs energy and stress "
         "by effort and your skill. The task leaves the pool either way.", marked=True)
def solution_submit(
    world: FreelanceWorld,
    task_id: Annotated[str, Arg("A task id from tasks_browse", max_length=40)],
    solution_text: Annotated[str, Arg("Your solution; end it with the final answer", max_length=MAX_SOLUTION_CHARS)],
) -> dict:
    limit = world.config.max_submissions_per_day
    if world.submissions_today >= limit:
        raise FreelanceError("blocked", f"Daily limit reached: {limit} submissions a day.",
                             "Call task_done and submit tomorrow.", reason="daily_limit_reached")
    task = world.pooled(task_id)
    if not solution_text.strip() and not world.config.empty_solution_judged:
        raise FreelanceError("error", "solution_text is empty.", "Write your solution, ending with the final answer.")
    cap = world.config.max_solution_chars
    if len(solution_text) > cap:
        raise FreelanceError("error", f"solution_text is {len(solution_text):,} characters long; the limit is {cap:,}.",
                             "Send a shorter solution: the final answer and brief working.")
    return world.submit(task, solution_text)


@command("energy_restore", "Rest to recover. low: $15, +20 energy, -10 stress. medium: $20, +30 energy, "
         "-20 stress. high: $45, +40 energy, -30 stress. Energy is capped at 100.", marked=True)
def energy_restore(world: FreelanceWorld, level: Annotated[
        Literal["low", "medium", "high"], Arg("'low', 'medium' or 'high'", fold_case=True)]) -> dict:
    return world.rest(level)


@command("task_done", "Finish today: living costs ($10) are paid, you recover 5 energy and 10 stress, expired "
         "tasks leave the pool, and you get the day's report.", advances=True)
def task_done(world: FreelanceWorld):
    return world.request_day_end()


@command("help", "List the commands, or show one command's arguments (free: uses no action).", counted=False)
def help_(
    world: FreelanceWorld, command: Annotated[str | None, Arg("A command name, e.g. 'solution_submit'")] = None
) -> dict:
    if command is not None:
        return {"help": COMMANDS.help_text(command)}
    return {"help": COMMANDS.help_text(), "commands": [s.usage() for s in COMMANDS.visible()],
            "free": ["help", "task_done"], "actions_per_day": world.daily_budget}
