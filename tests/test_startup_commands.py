"""The startup world's agent interface: the paper's command lines, the reference's fields and messages (§7, §13)."""

from __future__ import annotations

import json

import pytest
import simpy

from bizsim.models.startup import StartupWorld
from bizsim.models.startup.commands import COMMANDS

from ._helpers import inspect, ok, resume, start, wait

# The command lines of the paper's system prompt, verbatim.
PROMPT_LINES = [
    "yc-bench market browse",
    "yc-bench task accept --task-id Task-42",
    "yc-bench task assign --task-id Task-42 --employees Emp_1,Emp_4,Emp_7",
    "yc-bench task dispatch --task-id Task-42",
    "yc-bench sim resume",
    'yc-bench scratchpad write --content "text"',
    "yc-bench company status",
    "yc-bench employee list",
    "yc-bench market browse --domain research --reward-min-cents 100000 --limit 5",
    "yc-bench task list --status active",
    "yc-bench task inspect --task-id Task-42",
    "yc-bench client list",
    "yc-bench client history",
    "yc-bench finance ledger",
    'yc-bench task cancel --task-id Task-42 --reason "text"',
    'yc-bench scratchpad append --content "text"',
]

# Output fields of every command (spec §13).
FIELDS = {
    "company status": {
        "company_id", "company_name", "funds_cents", "prestige", "sim_time", "horizon_end", "tasks", "employees",
        "next_payroll", "monthly_payroll_cents", "risk",
    },
    "employee list": {"count", "employees"},
    "market browse": {"total", "offset", "limit", "tasks"},
    "task accept": {"task_id", "status", "accepted_at", "deadline", "replacement_task_id"},
    "task assign": {"task_id", "status", "newly_assigned", "total_assigned"},
    "task dispatch": {"task_id", "status", "assignment_count", "assigned_employees"},
    "task list": {"count", "tasks"},
    "task inspect": {
        "task_id", "title", "status", "client_name", "required_prestige", "required_trust", "reward_funds_cents",
        "reward_prestige_delta", "skill_boost_pct", "accepted_at", "deadline", "completed_at", "success",
        "progress_pct", "requirements", "assignments",
    },
    "task cancel": {
        "task_id", "status", "reason", "cancel_penalty_per_domain", "prestige_changes", "trust_delta", "bankrupt",
    },
    "client list": {"count", "clients"},
    "client history": {"count", "client_history"},
    "finance ledger": {"count", "total_amount_cents", "entries"},
    "report monthly": {"count", "months"},
    "scratchpad read": {"content"},
    "scratchpad write": {"ok", "content"},
    "scratchpad append": {"ok", "content"},
    "scratchpad clear": {"ok"},
}
RESUME_FIELDS = {
    "ok", "old_sim_time", "new_sim_time", "checkpoint_event_type", "events_processed", "payrolls_applied",
    "balance_delta", "wake_events", "bankrupt", "horizon_reached", "terminal_reason",
}
COMPLETION_FIELDS = {
    "type", "task_id", "task_title", "client_name", "success", "funds_delta", "listed_reward", "trust_delta",
    "deadline_margin", "employees_assigned", "salary_bump_total_cents", "bankrupt",
}


def first_row(world: StartupWorld, line: str, key: str) -> dict:
    """The first row of the list ``key`` in a command's result."""
    return ok(world.execute(line))[key][0]


def amounts(world: StartupWorld, line: str) -> list[int]:
    """The amounts of the ledger entries a ``finance ledger`` line lists."""
    return [e["amount_cents"] for e in ok(world.execute(line))["entries"]]


@pytest.fixture
def busy(world) -> StartupWorld:
    """Seed 1, default: Task-42 accepted, assigned to Emp_1, Emp_4, Emp_7 and dispatched at the start."""
    start(world, "Task-42", "Emp_1,Emp_4,Emp_7")
    return world


def test_prompt_lines_all_parse():
    """Every command line of the paper's prompt parses, with ``yc-bench`` or ``bizsim`` as the first word."""
    for line in PROMPT_LINES:
        spec, _ = COMMANDS.parse(line)
        spec2, _ = COMMANDS.parse(line.replace("yc-bench", "bizsim", 1))
        assert spec is spec2
        assert line.split()[1:1 + len(spec.name.split())] == spec.name.split()


def test_prompt_lines_run_in_order(world):
    """The prompt's lines, run in order on seed 1, give results with the reference's fields; resume gives an event."""
    for line in PROMPT_LINES:
        out = world.execute(line)
        name = COMMANDS.parse(line)[0].name
        if name == "sim resume":
            assert isinstance(out, simpy.Event)
            report = wait(world, out)
            assert RESUME_FIELDS == set(report)
            continue
        if name == "task cancel":
            # Task-42 completed during the resume before; the reference refuses the cancel then.
            assert {"error": "Task Task-42 cannot be cancelled (current: completed_success)."} == out
            continue
        assert FIELDS[name] == set(ok(out)), line
        json.dumps(out, allow_nan=False)


BUSY_OUTCOMES = {
    "yc-bench task accept --task-id Task-42": "Task Task-42 is not in market status (current: active).",
    "yc-bench task dispatch --task-id Task-42": "Task Task-42 must be planned to dispatch (current: active).",
}


@pytest.mark.parametrize("line", PROMPT_LINES)
def test_each_prompt_line_on_a_busy_world(busy, line):
    """With Task-42 active each prompt line gives its result, the reference's refusal, or (resume) an event."""
    out = busy.execute(line)
    name = COMMANDS.parse(line)[0].name
    if name == "sim resume":
        assert ["Task-42"] == [e["task_title"] for e in wait(busy, out)["wake_events"]]
    elif line in BUSY_OUTCOMES:
        assert {"error": BUSY_OUTCOMES[line]} == out
    else:
        assert FIELDS[name] == set(ok(out))
    assert [] == busy.invariants()


def test_result_row_fields(busy):
    """Rows inside list results carry the reference's field names."""
    w = busy
    assert {"name", "tier", "salary_cents", "skill_rates", "active_tasks"} == set(
        first_row(w, "employee list", "employees"))
    row = ok(w.execute("market browse --limit 1"))["tasks"][0]
    assert {
        "task_id", "client_name", "required_prestige", "required_trust", "reward_funds_cents", "reward_prestige_delta",
        "skill_boost_pct", "requirements",
    } == set(row)
    assert {"domain", "required_qty"} == set(row["requirements"][0])
    assert {"task_id", "title", "status", "client_name", "progress_pct", "deadline", "at_risk"} == set(
        first_row(w, "task list", "tasks"))
    task = inspect(w, "Task-42")
    assert {"domain", "required_qty", "completed_qty", "remaining_qty"} == set(task["requirements"][0])
    assert {"employee", "assigned_at"} == set(task["assignments"][0])
    assert {"client_id", "name", "trust_level", "tier", "specialties"} == set(first_row(w, "client list", "clients"))
    assert {"client_name", "trust_level", "tasks_succeeded", "tasks_failed", "failure_rate_pct"} == set(
        first_row(w, "client history", "client_history"))
    assert {"tasks": {"active", "planned", "completed", "cancelled"}, "risk": {"months_runway", "bankrupt"}} == {
        k: set(v) for k, v in ok(w.execute("company status")).items() if k in ("tasks", "risk")}
    report = resume(w)
    assert COMPLETION_FIELDS == set(report["wake_events"][0])
    assert {"id", "occurred_at", "category", "amount_cents", "ref_type", "ref_id"} == set(
        first_row(w, "finance ledger", "entries"))


def test_busy_world_observations(busy):
    """After accepting, assigning and dispatching Task-42 the observations show it."""
    w = busy
    assert {"active": 1, "planned": 0, "completed": 0, "cancelled": 0} == ok(w.execute("company status"))["tasks"]
    employees = {e["name"]: e["active_tasks"] for e in ok(w.execute("employee list"))["employees"]}
    busy_staff = {k: v for k, v in employees.items() if v}
    assert {"Emp_1": ["Task-42"], "Emp_4": ["Task-42"], "Emp_7": ["Task-42"]} == busy_staff
    listed = ok(w.execute("task list --status active"))
    assert 1 == listed["count"]
    assert {
        "task_id": "Task-42", "title": "Task-42", "status": "active", "client_name": "Stratos Cloud",
        "progress_pct": 0.0, "deadline": "2025-01-09T18:00:00", "at_risk": False,
    } == listed["tasks"][0]
    task = inspect(w, "Task-42")
    assert ("active", "2025-01-01T09:00:00", None, None) == (
        task["status"], task["accepted_at"], task["completed_at"], task["success"])
    requirement = {"domain": "data_environment", "required_qty": 630.0, "completed_qty": 0.0, "remaining_qty": 630.0}
    assert [requirement] == task["requirements"]
    team = [{"employee": n, "assigned_at": "2025-01-01T09:00:00"} for n in ("Emp_1", "Emp_4", "Emp_7")]
    assert team == task["assignments"]


def test_market_browse_filters_and_pages(world):
    """Browse lists acceptable tasks by reward, filters by domain and minimum reward, and pages with offset/limit."""
    top = ok(world.execute("market browse --domain research --reward-min-cents 100000 --limit 5"))
    assert (5, 0, 5) == (top["total"], top["offset"], top["limit"])
    assert ["Task-10", "Task-8", "Task-119", "Task-49", "Task-31"] == [t["task_id"] for t in top["tasks"]]
    assert {"research"} == {r["domain"] for t in top["tasks"] for r in t["requirements"]}
    first = top["tasks"][0]
    assert ("Vanguard ML", 1, 0, 2_091_943, 0.11, 0.1364, [{"domain": "research", "required_qty": 564.0}]) == (
        first["client_name"], first["required_prestige"], first["required_trust"], first["reward_funds_cents"],
        first["reward_prestige_delta"], first["skill_boost_pct"], first["requirements"])
    paged = ok(world.execute("market browse --domain research --offset 2 --limit 2"))
    assert ["Task-119", "Task-49"] == [t["task_id"] for t in paged["tasks"]]
    default = ok(world.execute("market browse"))
    assert (50, 50) == (default["limit"], default["total"])
    rewards = [t["reward_funds_cents"] for t in default["tasks"]]
    assert sorted(rewards, reverse=True) == rewards
    assert all(t["required_prestige"] == 1 and t["required_trust"] == 0 for t in default["tasks"])
    rich = ok(world.execute("market browse --reward-min-cents 1900000 --limit 200"))
    assert all(t["reward_funds_cents"] >= 1_900_000 for t in rich["tasks"]) and rich["total"] == len(rich["tasks"]) > 0


def test_accept_output_and_scope_creep(world):
    """Accepting RAT Task-10 gives the deadline of its advertised qty, then inflates the qty ×4 (564 -> 2256)."""
    assert {
        "task_id": "Task-10", "status": "planned", "accepted_at": "2025-01-01T09:00:00",
        "deadline": "2025-01-09T18:00:00", "replacement_task_id": "Task-9000",
    } == world.execute("yc-bench task accept --task-id Task-10")
    assert [{"domain": "research", "required_qty": 2256.0, "completed_qty": 0.0, "remaining_qty": 2256.0}] == inspect(
        world, "Task-10")["requirements"]
    assert 2_091_943 == inspect(world, "Task-10")["reward_funds_cents"]


def test_assign_skips_already_assigned(busy):
    """Assigning again adds only new names; the team keeps its order."""
    assert {
        "task_id": "Task-42", "status": "active", "newly_assigned": ["Emp_2"],
        "total_assigned": ["Emp_1", "Emp_4", "Emp_7", "Emp_2"],
    } == busy.execute("task assign --task-id Task-42 --employees Emp_4,Emp_2,Emp_2")


def test_reference_refuses_an_assign_naming_a_new_employee_twice():
    """As the reference fails (a UNIQUE constraint): nobody is assigned, and the task cannot be dispatched yet.

    Naming someone already on the team twice is skipped there too, as in ``default``.
    """
    w = StartupWorld("reference", 1)
    ok(w.execute("task accept --task-id Task-8"))
    refused = w.execute("task assign --task-id Task-8 --employees Emp_1,Emp_2,Emp_1")
    assert refused["error"].startswith("task assign failed in the reference behaviour: Emp_1 is named twice")
    assert [] == inspect(w, "Task-8")["assignments"]
    assert "No employees assigned" in w.execute("task dispatch --task-id Task-8")["error"]
    ok(w.execute("task assign --task-id Task-8 --employees Emp_1"))
    assert ["Emp_2"] == ok(w.execute("task assign --task-id Task-8 --employees Emp_1,Emp_2,Emp_1"))["newly_assigned"]


def test_first_resume_with_task_8(world):
    """Seed 1: Task-8 with everyone completes on 2025-01-07 11:15:31, ahead of its deadline, and pays its reward."""
    start(world, "Task-8")
    report = resume(world)
    assert {
        "ok": True, "old_sim_time": "2025-01-01T09:00:00", "new_sim_time": "2025-01-07T11:15:31.543690",
        "checkpoint_event_type": "task_completed", "events_processed": 1, "payrolls_applied": 0,
        "balance_delta": 1_853_002, "bankrupt": False, "horizon_reached": False, "terminal_reason": None,
    } == {k: v for k, v in report.items() if k != "wake_events"}
    (event,) = report["wake_events"]
    assert {
        "type": "task_completed", "task_title": "Task-8", "client_name": "Cortex Intelligence", "success": True,
        "funds_delta": 1_853_002, "listed_reward": 1_853_002, "trust_delta": 1.6, "deadline_margin": "ahead by 55h",
        "employees_assigned": 8, "salary_bump_total_cents": 36_000, "bankrupt": False,
    } == {k: v for k, v in event.items() if k != "task_id"}
    assert world.find_task("Task-8").uid == event["task_id"]
    assert 21_853_002 == ok(world.execute("company status"))["funds_cents"]


def test_failed_rat_task_then_task_8(world):
    """Task-10 (RAT, ×4) fails late on 2025-01-17 11:13:55; Task-8 accepted then is due 7 business days later."""
    start(world, "Task-10")
    report = resume(world)
    (event,) = report["wake_events"]
    assert "2025-01-17T11:13:55" == report["new_sim_time"][:19]
    assert {
        "type": "task_completed", "task_title": "Task-10", "client_name": "Vanguard ML", "success": False,
        "funds_delta": -732_180, "listed_reward": 2_091_943, "trust_delta": 0.0, "deadline_margin": "late by 185h",
        "employees_assigned": 8, "salary_bump_total_cents": 0, "bankrupt": False,
    } == {k: v for k, v in event.items() if k != "task_id"}
    accepted = start(world, "Task-8")
    assert ("2025-01-17T11:13:55", "2025-01-28T11:13:55") == (accepted["accepted_at"][:19], accepted["deadline"][:19])
    history = {h["client_name"]: h for h in ok(world.execute("client history"))["client_history"]}
    assert (0, 1, 100.0) == (history["Vanguard ML"]["tasks_succeeded"], history["Vanguard ML"]["tasks_failed"],
                             history["Vanguard ML"]["failure_rate_pct"])


def test_cancel_in_default(world):
    """Cancel works in ``default``: −1.5·δ prestige per domain (floor 1), −0.3 trust, no cash; staff is freed."""
    start(world, "Task-8")
    resume(world)  # research prestige 1.255, Cortex trust 1.600
    start(world, "Task-2", "Emp_2,Emp_4")  # Cortex, inference 773, δ 0.060
    start(world, "Task-12", "Emp_4")  # Stratos, research 891, δ 0.104
    funds = world.funds_cents
    out = world.execute('yc-bench task cancel --task-id Task-12 --reason "too slow"')
    assert {
        "task_id": "Task-12", "status": "cancelled", "reason": "too slow", "bankrupt": False,
        "prestige_changes": {"research": {"old": 1.255, "new": 1.099, "delta": 0.156}},
    } == {k: v for k, v in out.items() if k not in ("cancel_penalty_per_domain", "trust_delta")}
    assert pytest.approx(0.156) == out["cancel_penalty_per_domain"]
    assert 0.0 == out["trust_delta"]
    out = world.execute('task cancel --task-id Task-2 --reason "changed plans"')
    assert pytest.approx(-0.3) == out["trust_delta"]
    assert {"inference": {"old": 1.0, "new": 1.0, "delta": 0.0}} == out["prestige_changes"]
    assert funds == world.funds_cents
    levels = {c["name"]: c["trust_level"] for c in ok(world.execute("client list"))["clients"]}
    assert 1.3 == levels["Cortex Intelligence"]
    assert {"active": 0, "planned": 0, "completed": 1, "cancelled": 2} == ok(world.execute("company status"))["tasks"]
    assert all(e["active_tasks"] == [] for e in ok(world.execute("employee list"))["employees"])
    assert {"error": "Task Task-2 cannot be cancelled (current: cancelled)."} == world.execute(
        "task cancel --task-id Task-2 --reason again")
    assert [] == world.invariants()


def test_cancel_refused_in_reference(ref_world):
    """In ``reference`` cancel is refused (the reference crashes on it) and nothing changes."""
    start(ref_world, "Task-42")
    before = ref_world.state()
    out = ref_world.execute('task cancel --task-id Task-42 --reason "text"')
    assert {"error", "hint"} == set(out)
    assert out["error"].startswith("task cancel is unavailable in the reference behaviour")
    assert before == ref_world.state()


def test_reference_outputs_quirks(ref_world):
    """In ``reference`` resume reports old_sim_time = new_sim_time and the salary bump as 1 % of the new salaries."""
    start(ref_world, "Task-8")
    report = resume(ref_world)
    assert report["old_sim_time"] == report["new_sim_time"] == "2025-01-07T11:15:31.543690"
    # Σ int(1 % of each raised salary), not the 36,000 actually added.
    raised = [s + (7000 if t == "mid" else 3000) for s, t in [(397260, "j"), (314782, "j"), (236809, "j"),
              (757445, "mid"), (259604, "j"), (776920, "mid"), (664726, "mid"), (392957, "j")]]
    assert sum(int(s * 0.01) for s in raised) == report["wake_events"][0]["salary_bump_total_cents"]
    assert {"count": 0, "months": []} == ref_world.execute("report monthly")


def test_report_monthly_in_default(world):
    """In ``default`` report monthly returns real figures per month."""
    start(world, "Task-8")
    resume(world)
    assert {"count": 1, "months": [{
        "month_start": "2025-01-01", "revenue_cents": 1_853_002, "cost_cents": 0, "return_cents": 1_853_002,
        "ending_funds_cents": 21_853_002,
    }]} == world.execute("report monthly --from-month 2025-01 --to-month 2025-01")


def test_scratchpad_commands(world):
    """Write replaces, append joins with a newline, read shows, clear empties."""
    assert {"ok": True, "content": "a b"} == world.execute('scratchpad write --content "a b"')
    assert {"ok": True, "content": "a b\nc"} == world.execute("scratchpad append --content c")
    assert {"content": "a b\nc"} == world.execute("scratchpad read")
    assert {"ok": True} == world.execute("scratchpad clear")
    assert {"ok": True, "content": "d"} == world.execute("scratchpad append --content d")


def test_finance_ledger_filters(world):
    """The ledger filters by category and by date (MM/DD/YYYY, inclusive bounds at midnight)."""
    start(world, "Task-10")
    resume(world)  # failure penalty on 2025-01-17
    start(world, "Task-8")
    resume(world)  # reward on 2025-01-23
    assert [-732_180, 1_853_002] == amounts(world, "finance ledger")
    assert [1_853_002] == amounts(world, "finance ledger --category task_reward")
    assert [1_853_002] == amounts(world, "finance ledger --from 01/18/2025")
    assert [-732_180] == amounts(world, "finance ledger --to 01/18/2025")
    page = ok(world.execute("finance ledger --category task_fail_penalty"))
    assert (1, -732_180, "task", world.find_task("Task-10").uid) == (
        page["count"], page["total_amount_cents"], page["entries"][0]["ref_type"], page["entries"][0]["ref_id"])


def test_execute_tool_runs_commands(world):
    """Tool calls with JSON arguments run the same commands."""
    assert "Task-9000" == ok(world.execute_tool("task_accept", {"task_id": "Task-10"}))["replacement_task_id"]
    assert {"error": "Task 'Task-99999' not found.", "hint": "Use `market browse` or `task list` to see task ids."} == (
        world.execute_tool("task_accept", {"task_id": "Task-99999"}))
    assert 5 == ok(world.execute_tool("market_browse", {"limit": 5, "domain": "research"}))["total"]
    refused = world.execute_tool("market_browse", {"bogus": 1})
    assert "Unknown argument(s) bogus for 'market browse'." == refused["error"]


def test_tool_schemas_cover_the_visible_commands():
    """Every visible command has a tool schema; the bot commands are hidden."""
    names = [t["function"]["name"] for t in COMMANDS.tool_schemas()]
    assert "task_accept" in names and "sim_resume" in names and "finance_ledger" in names
    assert not any(n.startswith("bot_") for n in names)
    ledger = COMMANDS["finance ledger"].json_schema()["function"]["parameters"]
    assert ["from_date", "to_date", "category"] == list(ledger["properties"])
    assert ["research", "inference", "data_environment", "training"] == COMMANDS["market browse"].json_schema()[
        "function"]["parameters"]["properties"]["domain"]["enum"]


# ---------------------------------------------------------------------------
# refusals: the reference's messages, {"error", "hint"?}, state unchanged


@pytest.fixture
def planned(world) -> StartupWorld:
    """Seed 1, default: Task-1 accepted (planned, nobody assigned); Task-42 accepted, assigned and dispatched."""
    ok(world.execute("task accept --task-id Task-1"))
    start(world, "Task-42", "Emp_1,Emp_4,Emp_7")
    return world


REFUSALS = [
    ("task accept --task-id Task-99999", "Task 'Task-99999' not found."),
    ("task accept --task-id Task-1", "Task Task-1 is not in market status (current: planned)."),
    ("task accept --task-id Task-100", "Company prestige in research (1.0) does not meet task requirement (2)."),
    ("task accept --task-id Task-110",
     "Client trust with Cortex Intelligence (0.0) does not meet task requirement (2)."),
    ("task assign-all --task-id Task-1",
     "assign-all is not available. Use `task assign --task-id <ID> --employees Emp_1,Emp_4,Emp_7` "
     "to assign specific employees."),
    ("task dispatch --task-id Task-1",
     "No employees assigned. Use `task assign-all` or `task assign --employee-id Emp_1` first."),
    ("task dispatch --task-id Task-42", "Task Task-42 must be planned to dispatch (current: active)."),
    ("task dispatch --task-id Task-5", "Task Task-5 must be planned to dispatch (current: market)."),
    ("task assign --task-id Task-5 --employees Emp_1",
     "Task Task-5 must be planned or active to assign (current: market)."),
    ("task assign --task-id Task-1 --employees Emp_1,Emp_99", "Employee 'Emp_99' not found."),
    ("task assign --task-id Task-99999 --employees Emp_1", "Task 'Task-99999' not found."),
    ("task inspect --task-id Task-99999", "Task 'Task-99999' not found."),
    ("task cancel --task-id Task-5 --reason x", "Task Task-5 cannot be cancelled (current: market)."),
    ("task list --status bogus",
     "Invalid status: bogus. Valid: "
     "['market', 'planned', 'active', 'completed_success', 'completed_fail', 'cancelled']"),
    ("finance ledger --category bogus",
     "Invalid category: bogus. Valid: "
     "['monthly_payroll', 'task_reward', 'task_fail_penalty', 'task_cancel_penalty', 'payment_dispute']"),
    ("finance ledger --from 2025-01-01", "Invalid date format: 2025-01-01. Use MM/DD/YYYY."),
    ("market browse --domain bogus",
     "--domain of 'market browse' must be one of research, inference, data_environment, training; got 'bogus'."),
    ("market browse --limit 0", "--limit of 'market browse' must be >= 1; got 0."),
    ("task accept", "Missing option --task-id for 'task accept'."),
    ("task accept --task-id Task-1 --task-id Task-2", "Option --task-id of 'task accept' was given twice."),
    ("task launch --task-id Task-1", "Unknown command 'task launch'."),
    ("help --command 'task fly'", "Unknown command 'task fly'."),
]


@pytest.mark.parametrize(("line", "message"), REFUSALS)
def test_refusals_are_verbatim_and_change_nothing(planned, line, message):
    """A refused command returns the reference's message (plus an optional hint) and leaves the state unchanged."""
    before = planned.state()
    out = planned.execute(line)
    assert message == out["error"]
    assert set(out) <= {"error", "hint"}
    assert before == planned.state()
    assert "error" in list(planned.trajectory)[-1][3]


def test_resume_refused_without_active_task(world):
    """Resume with nothing active is refused with the reference's message; time does not move."""
    ok(world.execute("task accept --task-id Task-1"))
    before = world.state()
    out = world.execute("yc-bench sim resume")
    assert (
        "No active tasks. Accept and dispatch a task before calling sim resume. "
        "Use: market browse \u2192 task accept \u2192 task dispatch \u2192 sim resume"
    ) == out["error"]
    assert before == world.state()
    refused = world.advance()
    assert (True, out) == (refused.triggered, refused.value)
    assert before == world.state()


def test_commands_refused_after_the_end(world):
    """Once bankrupt, every command is refused with the episode's end."""
    world.env.run(until=world.finished)  # nobody works: payroll bankrupts the company on 2025-07-01
    assert "bankrupt" == world.status.value
    before = world.state()
    ended = {"error": "The episode has ended (bankrupt).", "hint": "Start a new episode."}
    assert ended == world.execute("company status")
    assert before == world.state()


def test_help_lists_visible_commands(world):
    """help lists every visible command's usage; help for one command shows its arguments."""
    out = ok(world.execute("help"))
    assert "task accept --task-id TASK_ID" in out["commands"]
    assert not any(u.startswith("bot ") for u in out["commands"])
    assert ok(world.execute("help --command 'task assign'"))["help"].startswith(
        "task assign --task-id TASK_ID --employees EMPLOYEES")



def test_title_collisions_resolve_to_the_market_task(world):
    """Slot 0's replacements are Task-0, Task-1, ...; inspect and accept name the market task first; a uuid is exact."""
    assert "Task-0" == ok(world.execute("task accept --task-id Task-1"))["replacement_task_id"]
    assert "Task-1" == ok(world.execute("task accept --task-id Task-0"))["replacement_task_id"]
    assert "market" == inspect(world, "Task-1")["status"]
    original = world.tasks[0]
    assert ("Task-1", "planned") == (original.title, inspect(world, original.uid)["status"])
    assert ["Emp_1"] == ok(world.execute(f"task assign --task-id {original.uid} --employees {world.employees[0].uid}"))[
        "newly_assigned"]
    planned = ok(world.execute("task list --status planned"))["tasks"]
    assert ["Task-0", "Task-1"] == sorted(t["task_id"] for t in planned)


def test_title_collisions_in_default_prefer_the_companys_own_task(world):
    """Outside the reference behaviour, assign/dispatch/cancel on a shared title act on the company's own task."""
    ok(world.execute("task accept --task-id Task-1"))
    ok(world.execute("task accept --task-id Task-0"))
    assert ["Emp_1"] == ok(world.execute("task assign --task-id Task-1 --employees Emp_1"))["newly_assigned"]
    assert "active" == ok(world.execute("task dispatch --task-id Task-1"))["status"]
    assert "market" == inspect(world, "Task-1")["status"]


def test_title_collisions_in_reference_act_on_the_market_task(ref_world):
    """The reference behaviour resolves a shared title to the market task everywhere, as the reference does."""
    ok(ref_world.execute("task accept --task-id Task-1"))
    ok(ref_world.execute("task accept --task-id Task-0"))
    assert {"error": "Task Task-1 must be planned or active to assign (current: market)."} == ref_world.execute(
        "task assign --task-id Task-1 --employees Emp_1")


def test_scratchpad_carried_into_a_new_episode():
    """A world built with an earlier episode's scratchpad shows it."""
    w = StartupWorld("default", 1, scratchpad="Avoid Vanguard ML.")
    assert {"content": "Avoid Vanguard ML."} == w.execute("scratchpad read")


def test_observation_summary(busy):
    """The per-turn status summary holds time, horizon, funds, payroll, runway and task counts."""
    assert {
        "sim_time": "2025-01-01T09:00:00", "horizon_end": "2026-01-01T09:00:00", "funds_cents": 20_000_000,
        "monthly_payroll_cents": 3_800_503, "runway_months": 5.3, "employees": 8, "active_tasks": 1,
        "planned_tasks": 0, "bankrupt": False, "status": "running",
    } == busy.observation()


@pytest.mark.parametrize(("tool", "args"), [("task_accept", '{"task_id": '), ("task_accept", ["Task-1"]),
                                            (None, {}), (7, {"task_id": "Task-1"})])
def test_malformed_tool_calls_come_back_as_errors(world, tool, args):
    """A malformed tool call is answered with {"error", "hint"?} and changes nothing."""
    before = world.state()
    out = world.execute_tool(tool, args)
    assert {"error"} <= set(out) <= {"error", "hint"}
    assert before == world.state()


def test_trajectory_stays_utf8_whatever_the_agent_sends(world):
    """Whatever text an agent sends, the trajectory can be written as UTF-8."""
    world.execute_tool("scratchpad_write", json.loads('{"content": "bad \\ud800 text"}'))
    world.execute("scratchpad append --content 'also \udfff'")
    world.trajectory.to_jsonl().encode("utf-8")
