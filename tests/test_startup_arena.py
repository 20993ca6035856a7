"""startup-arena: companies sharing one YC-Bench market (one seat is the startup world; takes, trust, prestige,
messages, payments, who acts when, and what a company can learn of a rival)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from bizsim.agents.startup import greedy, greedy_reference, planner, random_agent
from bizsim.models.startup import StartupWorld
from bizsim.models.startup.arena import StartupArena, replay_arena
from bizsim.models.startup.arena.commands import MAX_INBOX, MAX_MESSAGE
from bizsim.simcore import ConfigError
from bizsim.simcore.testing import assert_refusal_changes_nothing


def idle(world):
    """An agent that never acts: its company only pays its payroll."""
    return
    yield


def arena_text(arena: StartupArena) -> str:
    return json.dumps(arena.state(), sort_keys=True, default=str)


@pytest.mark.parametrize("preset, agent", [("default", greedy), ("default", planner), ("default", random_agent),
                                           ("reference", greedy_reference)])
def test_one_seat_is_the_startup_world(preset, agent):
    """Alone in its arena a company is the startup world: same trajectory (every command and answer), summary,
    state, observation and prompt."""
    world = StartupWorld(preset, 2)
    world.run(agent)
    arena = StartupArena(preset, 2, seats=1)
    arena.run([agent])
    seat = arena.seats[0]
    assert world.trajectory.to_jsonl() == seat.trajectory.to_jsonl()
    assert world.summary() == seat.summary()
    assert world.state() == seat.state()
    assert world.observation() == seat.observation()
    assert world.system_prompt() == seat.system_prompt()
    assert [s.name for s in world.commands] == [s.name for s in seat.commands]
    assert world.summary()["metric_value"] == arena.summary()["seats"][0]["metric_value"]


def test_seats_out_of_range_are_refused():
    """An arena holds one to four companies; anything else says so."""
    for bad in (0, 5, True, "2"):
        with pytest.raises(ConfigError, match="seats"):
            StartupArena("default", 1, seats=bad)
    with pytest.raises(ConfigError, match="one agent per seat"):
        StartupArena("default", 1, seats=2).run([greedy])


def test_a_task_taken_by_one_company_is_gone_for_the_others():
    """A's take removes the task from B's market (browse, inspect, accept) and lists the same replacement for both."""
    arena = StartupArena("default", 1, seats=2)
    a, b = arena.seats
    top = b.call("market browse", limit=1)["tasks"][0]
    uid = next(t.uid for t in b.market if t.title == top["task_id"])
    taken = a.call("task accept", task_id=uid)
    assert all(t["task_id"] != top["task_id"] for t in b.call("market browse", limit=1000)["tasks"])
    assert "not found" in b.execute(f"task inspect --task-id {uid}")["error"]
    assert_refusal_changes_nothing(b, f"task accept --task-id {uid}")
    replacement = taken["replacement_task_id"]
    assert b.call("task inspect", task_id=replacement) == a.call("task inspect", task_id=replacement)
    assert [t.uid for t in a.market] == [t.uid for t in b.market]
    assert b.call("task list")["count"] == 0
    events = [(name, data) for _, kind, name, data in b.trajectory if kind == "event"]
    assert [("market_task_taken", {"task_id": top["task_id"], "replacement_task_id": replacement})] == events
    assert [] == arena.invariants()


def test_replacement_streams_are_the_markets():
    """Takes by two companies draw the slots' replacements (the slot's generations, the serials) as one company
    taking the same tasks would."""
    solo = StartupWorld("default", 3)
    arena = StartupArena("default", 3, seats=2)
    rows = [t["task_id"] for t in solo.call("market browse", limit=20)["tasks"]]
    first = rows[0]
    fresh = solo.call("task accept", task_id=first)["replacement_task_id"]
    solo.find_task(fresh).client.trust = Decimal(5)  # open the replacement's trust gate, if it has one
    again = solo.call("task accept", task_id=fresh)["replacement_task_id"]  # the slot's second generation
    solo.call("task accept", task_id=rows[1])
    a, b = arena.seats
    a.call("task accept", task_id=first)
    b.find_task(fresh).client.trust = Decimal(5)
    assert again == b.call("task accept", task_id=fresh)["replacement_task_id"]
    a.call("task accept", task_id=rows[1])
    assert [(t.uid, t.title, t.reward_cents) for t in solo.market] == [
        (t.uid, t.title, t.reward_cents) for t in a.market]


def test_trust_and_prestige_are_each_companys_own():
    """A year of greedy work raises its company's trust and prestige; the idle rival's stay where they started."""
    arena = StartupArena("default", 1, seats=2)
    arena.run([greedy, idle])
    a, b = arena.seats
    assert a.summary()["tasks_succeeded"] > 0 and b.summary()["tasks_succeeded"] == 0
    assert any(c.trust > 0 for c in a.clients) and all(c.trust == 0 for c in b.clients)
    assert max(a.prestige.values()) > 1 and set(b.prestige.values()) == {1}
    assert b.status.value == "bankrupt"  # payroll and no income
    assert [] == arena.invariants()


def test_trust_gates_each_companys_own_market():
    """A client's trust in A opens its gated tasks to A, not to B; the work cut at accept follows A's trust."""
    arena = StartupArena("default", 1, seats=2)
    a, b = arena.seats
    gated = next(t for t in a.market if t.required_trust > 0 and t.required_prestige == 1 and not t.client.adversarial)
    a.find_task(gated.uid).client.trust = Decimal(5)
    shown_a = {t["task_id"] for t in a.call("market browse", limit=1000)["tasks"]}
    shown_b = {t["task_id"] for t in b.call("market browse", limit=1000)["tasks"]}
    assert gated.title in shown_a and gated.title not in shown_b
    assert "Client trust" in b.execute(f"task accept --task-id {gated.uid}")["error"]
    listed = dict(gated.required)
    a.call("task accept", task_id=gated.uid)
    assert all(q == max(200, int(listed[d] * 0.5)) for d, q in gated.required.items())


def test_messages_reach_only_their_recipient():
    """A message lands in its recipient's inbox alone; bad ones are refused and change nothing anywhere."""
    arena = StartupArena("default", 1, seats=3)
    a, b, c = arena.seats
    names = [r["company_name"] for r in a.call("arena companies")["companies"]]
    assert ["BenchCo-A", "BenchCo-B", "BenchCo-C"] == names
    assert {"ok": True, "to": "BenchCo-B", "sent_at": a.now_iso} == a.call("message send", to="BenchCo-B", text="hi B")
    assert [{"kind": "message", "from": "BenchCo-A", "sent_at": a.now_iso, "text": "hi B"}] == \
        b.call("message inbox")["messages"]
    assert 0 == a.call("message inbox")["total"] == c.call("message inbox")["total"]
    assert 1 == b.call("message inbox", offset=1)["total"] and [] == b.call("message inbox", offset=1)["messages"]
    before = arena_text(arena)
    for line in ("message send --to BenchCo-A --text me", "message send --to Nobody --text x",
                 "message send --to BenchCo-B --text ' '", f"message send --to BenchCo-B --text {'x' * (MAX_MESSAGE + 1)}"):
        assert "error" in a.execute(line)
    assert before == arena_text(arena)


def test_a_full_inbox_refuses_more():
    """An inbox holds at most MAX_INBOX entries; the next message is refused and nothing changes."""
    arena = StartupArena("default", 1, seats=2)
    a, b = arena.seats
    for i in range(MAX_INBOX):
        a.call("message send", to="BenchCo-B", text=f"m{i}")
    assert_refusal_changes_nothing(a, "message send --to BenchCo-B --text one-more")
    assert MAX_INBOX == b.call("message inbox")["total"]


def test_transfers_move_money_between_ledgers():
    """A payment is A's debit and B's credit at the same instant; the total stays; refusals change nothing."""
    arena = StartupArena("default", 1, seats=2)
    a, b = arena.seats
    total = a.funds_cents + b.funds_cents
    out = a.call("finance transfer", to="BenchCo-B", amount_cents=123_456, memo="for the GPUs")
    assert {"ok": True, "to": "BenchCo-B", "amount_cents": 123_456, "funds_cents": a.funds_cents} == out
    assert total == a.funds_cents + b.funds_cents
    assert b.funds_cents - a.funds_cents == 2 * 123_456
    row = b.call("finance ledger", category="transfer_in")["entries"][0]
    assert (row["amount_cents"], row["ref_type"], row["ref_id"]) == (123_456, "company", a.company_uid)
    assert -123_456 == a.call("finance ledger", category="transfer_out")["total_amount_cents"]
    assert "for the GPUs" == b.call("message inbox")["messages"][0]["text"]
    for line in (f"finance transfer --to BenchCo-B --amount-cents {a.funds_cents + 1}",
                 "finance transfer --to BenchCo-B --amount-cents 0", "finance transfer --to BenchCo-B --amount-cents -5",
                 "finance transfer --to BenchCo-A --amount-cents 5", "finance transfer --to Nobody --amount-cents 5"):
        before = arena_text(arena)
        assert "error" in a.execute(line)
        assert before == arena_text(arena)
    assert [] == arena.invariants()


def test_a_company_that_ended_takes_nothing():
    """Messages and payments to a bankrupt rival are refused (it has left the market); the list says it ended."""
    arena = StartupArena("default", 1, seats=2)
    a, b = arena.seats
    b.call("finance transfer", to="BenchCo-A", amount_cents=b.funds_cents)
    arena.env.run(until=b.finished)  # B's first payroll, with nothing to pay it from
    assert b.status.value == "bankrupt" and not a.done
    assert [True, False] == [r["running"] for r in a.call("arena companies")["companies"]]
    assert_refusal_changes_nothing(a, "message send --to BenchCo-B --text hi")
    assert "left the market" in a.execute("finance transfer --to BenchCo-B --amount-cents 5")["error"]
    assert "ended" in b.execute("arena companies")["error"]
    assert [] == arena.invariants()


def _probe_lines(b, taken: str) -> list[str]:
    """One or more lines for every command a company has (taken: the id of a task its rival took)."""
    lines = [
        "company status", "employee list", "client list", "client history", "market browse --limit 1000",
        f"task inspect --task-id {taken}", f"task accept --task-id {taken}", f"task assign --task-id {taken} --employees Emp_1",
        f"task dispatch --task-id {taken}", f"task cancel --task-id {taken} --reason r", "task list", "task assign-all --task-id x",
        "finance ledger", "report monthly", "scratchpad read", "scratchpad write --content n",
        "scratchpad append --content m", "scratchpad clear", "help", "arena companies", "message inbox",
        "message send --to BenchCo-C --text probe", "finance transfer --to BenchCo-C --amount-cents 1", "sim resume",
    ]
    names = {line.split(" --")[0] for line in lines}
    assert names >= {s.name for s in b.commands.visible()}, "a command of the arena is not probed"
    return lines


@pytest.mark.parametrize("variant", [0, 1])
def test_a_rival_is_seen_only_through_the_public(variant):
    """Every command of B answers the same whatever A does in private (staff, notes, messages and payments to C),
    once A's public act, the take, is the same: B cannot read A's funds, trust, prestige, team or notes."""

    def answers(private: int) -> list:
        arena = StartupArena("default", 1, seats=3)
        a, b, _c = arena.seats
        title = a.call("market browse", limit=1)["tasks"][0]["task_id"]
        uid = next(t.uid for t in a.market if t.title == title)
        a.call("task accept", task_id=uid)
        a.call("task assign", task_id=uid, employees=["Emp_1", "Emp_2,Emp_3"][private])
        a.call("task dispatch", task_id=uid)
        a.call("scratchpad write", content=f"SECRET-{private}")
        a.call("message send", to="BenchCo-C", text=f"private note {private}")
        a.call("finance transfer", to="BenchCo-C", amount_cents=1000 + private)
        out = []
        for probe in (uid, title):
            for line in _probe_lines(b, probe):
                got = b.execute(line, driven=True)
                out.append(got if isinstance(got, dict) else "event")
        return out

    mine, theirs = answers(variant), answers(1 - variant)
    assert mine == theirs
    assert "SECRET" not in json.dumps(mine)


def test_same_instant_wakes_follow_the_seeded_rotation():
    """Companies woken at one instant and priority act in the day's rotation; every seat leads some days."""
    arena = StartupArena("default", 7, seats=3)
    day = 86_400_000_000
    orders = [arena.order(d * day) for d in range(6)]
    assert all(sorted(o) == [0, 1, 2] for o in orders)
    assert {o[0] for o in orders} == {0, 1, 2}
    assert all(orders[d + 1][0] == (orders[d][0] + 1) % 3 for d in range(5))
    assert all(arena.rank(i, 5 * day) == orders[5].index(i) for i in range(3))
    seen = []

    def recorder(tag):
        def agent(world):
            while not world.done and len(seen) < 12:
                seen.append((world.now_us, tag))
                report = yield world.advance()
                if "error" in report:  # nothing active: let time pass by waiting on payroll
                    yield world.call("bot wait")
        return agent

    arena.run([recorder(0), recorder(1), recorder(2)])
    first = [tag for t, tag in seen if t == 0]
    assert arena.order(0) == first
    payday = [tag for t, tag in seen if t == seen[3][0]]
    assert arena.order(seen[3][0]) == payday


def test_runs_are_deterministic_and_replay_from_the_seats_logs():
    """Two runs of one roster are the same bytes; replaying the seats' command logs rebuilds them exactly."""
    def run():
        arena = StartupArena("default", 5, seats=3)
        arena.run([planner, greedy, random_agent])
        return arena

    first, second = run(), run()
    assert [s.trajectory.to_jsonl() for s in first.seats] == [s.trajectory.to_jsonl() for s in second.seats]
    again = replay_arena(StartupArena("default", 5, seats=3), first.command_logs())
    assert [s.trajectory.to_jsonl() for s in first.seats] == [s.trajectory.to_jsonl() for s in again.seats]
    assert arena_text(first) == arena_text(again)
    assert [] == first.invariants()
    taken = {uid for _, uid, _ in first.market.taken}
    assert len(taken) == len(first.market.taken)  # no task was taken twice
    assert len({seat for _, _, seat in first.market.taken}) == 3


def test_the_arena_prompt_names_the_rivals():
    """With rivals the prompt adds the arena's rules and the commands; help lists them."""
    arena = StartupArena("default", 1, seats=2)
    a = arena.seats[0]
    prompt = a.system_prompt()
    assert prompt.startswith(StartupWorld("default", 1).system_prompt())
    assert "You are BenchCo-A" in prompt and "BenchCo-B" in prompt and "finance transfer" in prompt
    assert "message send" in a.call("help")["help"]
