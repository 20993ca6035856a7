"""startup-arena: companies sharing one YC-Bench market (one seat is the startup world; takes, trust, prestige,
messages, payments, who acts when, and what a company can learn of a rival)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from bizsim.agents.startup import greedy, greedy_reference, planner, random_agent
from bizsim.models.startup import StartupWorld
from bizsim.models.startup.arena import StartupArena
from bizsim.models.startup.arena.commands import INBOX_PAGE, MAX_FROM_ONE, MAX_INBOX, MAX_MESSAGE
from bizsim.simcore import ConfigError, Status
from bizsim.simcore.arena_replay import replay_arena, restore_arena
from bizsim.simcore.calendar import US_PER_DAY
from bizsim.simcore.check_arena import check_arena
from bizsim.simcore.errors import TurnError
from bizsim.simcore.registry import arena_names, world_names, world_spec
from bizsim.simcore.testing import (
    assert_arena_deterministic,
    assert_arena_refusal_changes_nothing,
    assert_arena_replays,
)


def idle(world):
    """An agent that never acts: its company only pays its payroll."""
    return
    yield


def arena_text(arena: StartupArena) -> str:
    return json.dumps(arena.state(), sort_keys=True, default=str)


def first_turns(arena: StartupArena):
    """The seats in the order they take their first turns at the start (the first has the turn now)."""
    return [arena.seats[k] for k in arena.order_of(0)]


def pass_turn(arena: StartupArena) -> None:
    """The seat that has the turn ends it (waiting for its next event), so the next seat of the start acts."""
    arena.seats[arena.to_move].execute("bot wait", allow_hidden=True, driven=True)


@pytest.mark.parametrize("preset, agent", [("default", greedy), ("default", planner), ("default", random_agent),
                                           ("reference", greedy_reference)])
def test_one_seat_is_the_startup_world(preset, agent):
    """Alone in its arena a company is the startup world: same trajectory (every command and answer), summary,
    state, observation, prompt and commands."""
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


def test_registered_as_an_arena_of_the_startup_world():
    """startup-arena is an arena (2-4 seats) whose seats play the startup world's agents."""
    spec = world_spec("startup-arena")
    assert "startup-arena" in arena_names() and "startup-arena" not in world_names()
    assert ((2, 4), "startup", "greedy") == (spec.seats, spec.base, spec.default_agent)
    assert world_spec("startup").agents == spec.agents
    arena = spec.make("default", 1, seats=2)
    assert isinstance(arena, StartupArena) and 2 == len(arena.seats)


def test_seats_out_of_range_are_refused():
    """An arena holds one to four companies; anything else says so."""
    for bad in (0, 5, True, "2"):
        with pytest.raises(ConfigError, match="seats"):
            StartupArena("default", 1, seats=bad)
    with pytest.raises(ConfigError, match="one agent per seat"):
        StartupArena("default", 1, seats=2).run([greedy])


def test_a_seat_acts_only_in_its_turn():
    """A command from a seat without the turn raises TurnError and nothing runs or is recorded."""
    arena = StartupArena("default", 1, seats=2)
    _a, b = first_turns(arena)
    before = arena_text(arena), len(b.trajectory)
    with pytest.raises(TurnError):
        b.execute("company status")
    assert (arena_text(arena), len(b.trajectory)) == before
    pass_turn(arena)
    assert b.has_turn and "funds_cents" in b.execute("company status")


def test_a_task_taken_by_one_company_is_gone_for_the_others():
    """A's take removes the task from B's market (browse, inspect, accept) and lists the same replacement for both."""
    arena = StartupArena("default", 1, seats=2)
    a, b = first_turns(arena)
    top = a.call("market browse", limit=1)["tasks"][0]
    uid = next(t.uid for t in a.market if t.title == top["task_id"])
    replacement = a.call("task accept", task_id=uid)["replacement_task_id"]
    seen_by_a = a.call("task inspect", task_id=replacement)
    pass_turn(arena)
    assert all(t["task_id"] != top["task_id"] for t in b.call("market browse", limit=1000)["tasks"])
    assert "not found" in b.execute(f"task inspect --task-id {uid}")["error"]
    assert_arena_refusal_changes_nothing(arena, f"task accept --task-id {uid}")
    assert seen_by_a == b.call("task inspect", task_id=replacement)
    assert [t.uid for t in a.market] == [t.uid for t in b.market]
    assert 0 == b.call("task list")["count"]
    events = [(name, data) for _, kind, name, data in b.trajectory if kind == "event"]
    assert [("market_task_taken", {"task_id": top["task_id"], "replacement_task_id": replacement})] == events
    assert [] == arena.invariants()


def test_replacements_are_the_markets():
    """Takes by two companies draw the slots' replacements (a slot's generations, the serials) as one company
    taking the same tasks would."""
    solo = StartupWorld("default", 3)
    arena = StartupArena("default", 3, seats=2)
    a, b = first_turns(arena)
    rows = [t["task_id"] for t in solo.call("market browse", limit=2)["tasks"]]
    fresh = solo.call("task accept", task_id=rows[0])["replacement_task_id"]
    solo.find_task(fresh).client.trust = Decimal(5)  # open the replacement's trust gate, if it has one
    again = solo.call("task accept", task_id=fresh)["replacement_task_id"]  # the slot's second generation
    solo.call("task accept", task_id=rows[1])
    a.call("task accept", task_id=rows[0])
    pass_turn(arena)
    b.find_task(fresh).client.trust = Decimal(5)
    assert again == b.call("task accept", task_id=fresh)["replacement_task_id"]
    b.call("task accept", task_id=rows[1])
    assert [(t.uid, t.title, t.reward_cents) for t in solo.market] == [
        (t.uid, t.title, t.reward_cents) for t in a.market]


def test_trust_and_prestige_are_each_companys_own():
    """A year of greedy work raises its company's trust and prestige; the idle rival's stay where they started."""
    arena = StartupArena("default", 1, seats=2)
    arena.run([greedy, idle])
    a, b = arena.seats
    assert a.summary()["tasks_succeeded"] > 0 and 0 == b.summary()["tasks_succeeded"]
    assert any(c.trust > 0 for c in a.clients) and all(c.trust == 0 for c in b.clients)
    assert max(a.prestige.values()) > 1 and {1} == set(b.prestige.values())
    assert "bankrupt" == b.status.value  # payroll and no income
    assert [] == arena.invariants()


def test_trust_gates_each_companys_own_market():
    """A client's trust in A opens its gated tasks to A, not to B; the work cut at accept follows A's trust."""
    arena = StartupArena("default", 1, seats=2)
    a, b = first_turns(arena)
    gated = next(t for t in a.market if t.required_trust > 0 and t.required_prestige == 1 and not t.client.adversarial)
    gated.client.trust = Decimal(5)  # A's relation with that client
    assert gated.title in {t["task_id"] for t in a.call("market browse", limit=1000)["tasks"]}
    listed = dict(gated.required)
    pass_turn(arena)
    assert gated.title not in {t["task_id"] for t in b.call("market browse", limit=1000)["tasks"]}
    assert "Client trust" in b.execute(f"task accept --task-id {gated.uid}")["error"]
    pass_turn(arena)  # B waits; A's next wake is its payroll, in the run below
    mine = next(t for t in a.tasks if t.uid == gated.uid)
    assert all(q == listed[d] for d, q in mine.required.items())  # not accepted yet: the listing
    assert 0 == b.count("planned")


def test_messages_reach_only_their_recipient():
    """A message lands in its recipient's inbox alone (and on the arena's record); bad ones change nothing."""
    arena = StartupArena("default", 1, seats=3)
    a, b, c = first_turns(arena)
    rows = a.call("arena companies")["companies"]
    assert [(s.seat, s.company_name, s is a, True) for s in arena.seats] == [
        (r["seat"], r["company_name"], r["you"], r["running"]) for r in rows]
    sent = a.call("message send", to=b.seat, text="hi B")
    assert {"ok": True, "to": b.seat, "sent_at": a.now_iso, "characters": 4} == sent
    for line in (f"message send --to {a.seat} --text me", "message send --to 7 --text x",
                 f"message send --to {b.seat} --text ' '", f"message send --to {b.seat} --text {'x' * (MAX_MESSAGE + 1)}"):
        assert_arena_refusal_changes_nothing(arena, line)
    assert 0 == a.call("message inbox")["total"]
    pass_turn(arena)
    item = {"kind": "message", "from": a.seat, "company": a.company_name, "sent_at": a.now_iso, "text": "hi B"}
    assert [item] == b.call("message inbox")["messages"]
    assert [] == b.call("message inbox", offset=1)["messages"]
    pass_turn(arena)
    assert 0 == c.call("message inbox")["total"]
    assert [("message", {"from": a.seat, "to": b.seat, "text": "hi B"})] == [
        (name, data) for _, kind, name, data in arena.trajectory if kind == "event"]


def test_a_full_inbox_refuses_more_and_one_rival_fills_only_its_share():
    """An inbox holds at most MAX_FROM_ONE entries from each rival; the next is refused and nothing changes; a rival
    that used its share leaves room for the others (MAX_INBOX in all); an answer lists INBOX_PAGE at most."""
    arena = StartupArena("default", 1, seats=4)
    *senders, reader = first_turns(arena)
    for sender in senders:  # each takes its first turn in order, then the reader its own
        for i in range(MAX_FROM_ONE):
            sender.call("message send", to=reader.seat, text=f"{sender.seat}:{i}")
        for line in (f"message send --to {reader.seat} --text x", f"finance transfer --to {reader.seat} --amount-cents 1"):
            assert "from one rival" in assert_arena_refusal_changes_nothing(arena, line)["error"]
        pass_turn(arena)
    assert MAX_INBOX == len(reader.inbox)
    first = reader.call("message inbox")
    assert (len(reader.inbox), INBOX_PAGE) == (first["total"], len(first["messages"]))
    assert f"{senders[0].seat}:0" == first["messages"][0]["text"]
    last = reader.call("message inbox", offset=len(reader.inbox) - 1)["messages"]
    assert [f"{senders[-1].seat}:{MAX_FROM_ONE - 1}"] == [m["text"] for m in last]


def test_transfers_move_money_between_ledgers():
    """A payment is A's debit and B's credit at the same instant; the total stays; refusals change nothing."""
    arena = StartupArena("default", 1, seats=2)
    a, b = first_turns(arena)
    total = a.funds_cents + b.funds_cents
    out = a.call("finance transfer", to=b.seat, amount_cents=123_456, memo="for the GPUs")
    assert {"ok": True, "to": b.seat, "amount_cents": 123_456, "funds_cents": a.funds_cents} == out
    assert total == a.funds_cents + b.funds_cents and 2 * 123_456 == b.funds_cents - a.funds_cents
    assert -123_456 == a.call("finance ledger", category="transfer_out")["total_amount_cents"]
    for line in (f"finance transfer --to {b.seat} --amount-cents {a.funds_cents + 1}",
                 f"finance transfer --to {b.seat} --amount-cents 0", f"finance transfer --to {b.seat} --amount-cents -5",
                 f"finance transfer --to {a.seat} --amount-cents 5", "finance transfer --to 9 --amount-cents 5"):
        assert_arena_refusal_changes_nothing(arena, line)
    pass_turn(arena)
    row = b.call("finance ledger", category="transfer_in")["entries"][0]
    assert (123_456, "company", a.company_uid) == (row["amount_cents"], row["ref_type"], row["ref_id"])
    assert "for the GPUs" == b.call("message inbox")["messages"][0]["text"]
    assert (123_456, 123_456) == (a.summary()["money_sent_cents"], b.summary()["money_received_cents"])
    assert [] == arena.invariants()


def test_a_company_that_ended_takes_nothing():
    """Messages and payments to a bankrupt rival are refused (it has left the market); the list says it ended."""
    arena = StartupArena("default", 1, seats=2)
    seen: dict = {}

    def giver(world):  # seat 1: pays everything to seat 0, then goes bankrupt at its first payroll
        world.call("finance transfer", to=0, amount_cents=world.funds_cents)
        seen["self"] = world.execute("finance transfer --to 1 --amount-cents 1")
        while not world.done:
            yield world.call("bot wait")
        seen["after end"] = world.execute("message send --to 0 --text hi")

    def prober(world):  # seat 0: waits for seat 1's end, then tries to reach it
        while not arena.seats[1].done:
            yield world.call("bot wait")
        seen["companies"] = world.call("arena companies")["companies"]
        seen["message"] = world.execute("message send --to 1 --text hi")
        seen["money"] = world.execute("finance transfer --to 1 --amount-cents 5")

    arena.run([prober, giver])
    assert "is you" in seen["self"]["error"] and "ended" in seen["after end"]["error"]
    assert [(0, True), (1, False)] == [(r["seat"], r["running"]) for r in seen["companies"]]
    assert "left the market" in seen["message"]["error"] and "left the market" in seen["money"]["error"]
    assert "bankrupt" == arena.seats[1].status.value and [] == arena.invariants()


def _probe_lines(b, taken: str, rival: int) -> list[str]:
    """One or more lines for every command a company has (taken: the id of a task its rival took)."""
    lines = [
        "company status", "employee list", "client list", "client history", "market browse --limit 1000",
        f"task inspect --task-id {taken}", f"task accept --task-id {taken}", f"task assign --task-id {taken} --employees Emp_1",
        f"task dispatch --task-id {taken}", f"task cancel --task-id {taken} --reason r", "task list", "task assign-all --task-id x",
        "finance ledger", "report monthly", "scratchpad read", "scratchpad write --content n",
        "scratchpad append --content m", "scratchpad clear", "help", "arena companies", "message inbox",
        f"message send --to {rival} --text probe", f"finance transfer --to {rival} --amount-cents 1", "sim resume",
    ]
    names = {line.split(" --")[0] for line in lines}
    assert names >= {s.name for s in b.commands.visible()}, "a command of the arena is not probed"
    return lines


@pytest.mark.parametrize("variant", [0, 1])
def test_a_rival_is_seen_only_through_the_public(variant):
    """Every command of B answers the same whatever A did in private (staff, notes, a message and a payment to C),
    once A's public act, the take, is the same: B cannot read A's funds, trust, prestige, team or notes."""

    def answers(private: int) -> list:
        arena = StartupArena("default", 1, seats=3)
        a, b, c = first_turns(arena)
        title = a.call("market browse", limit=1)["tasks"][0]["task_id"]
        uid = next(t.uid for t in a.market if t.title == title)
        a.call("task accept", task_id=uid)
        a.call("task assign", task_id=uid, employees=["Emp_1", "Emp_2,Emp_3"][private])
        a.call("task dispatch", task_id=uid)
        a.call("scratchpad write", content=f"SECRET-{private}")
        a.call("message send", to=c.seat, text=f"private note {private}")
        a.call("finance transfer", to=c.seat, amount_cents=1000 + private)
        a.execute("sim resume", driven=True)  # A's turn ends: B takes its first
        out = []
        for probe in (uid, title):
            for line in _probe_lines(b, probe, c.seat):
                got = b.execute(line, driven=True)
                out.append(got if isinstance(got, dict) else "event")
        return out

    mine, theirs = answers(variant), answers(1 - variant)
    assert mine == theirs
    assert "SECRET" not in json.dumps(mine) and "private note" not in json.dumps(mine)


def test_same_instant_wakes_follow_the_seeded_rotation():
    """Companies woken at one instant and priority act in the day's rotation (the kernel's), first turns too."""
    arena = StartupArena("default", 7, seats=3)
    orders = [arena.order_of(d) for d in range(6)]
    assert {o[0] for o in orders} == {0, 1, 2}
    assert all(arena.rank(k, 5 * US_PER_DAY) == orders[5].index(k) for k in range(3))
    seen = []

    def recorder(world):
        while not world.done and len(seen) < 12:
            seen.append((world.now_us, world.seat))
            yield world.call("bot wait")

    arena.run([recorder, recorder, recorder])
    assert list(arena.order_of(0)) == [k for t, k in seen if t == 0]
    payday = seen[3][0]  # everyone's first payroll stop: one instant, one priority
    assert list(arena.order_of(payday // US_PER_DAY)) == [k for t, k in seen if t == payday]


def test_runs_are_deterministic_and_replay_from_the_seats_logs():
    """Two runs of one roster are the same bytes; the seats' command logs rebuild the arena; so does a snapshot."""
    def make():
        return StartupArena("default", 5, seats=3)

    first = assert_arena_deterministic(make, [planner, greedy, random_agent])
    again = assert_arena_replays(make, first)
    assert arena_text(first) == arena_text(again) and [] == first.invariants()
    taken = [uid for _, uid, _ in first.market.taken]
    assert len(set(taken)) == len(taken) and {0, 1, 2} == {k for _, _, k in first.market.taken}
    restored = restore_arena(first.snapshot())
    assert arena_text(first) == arena_text(restored)


def test_an_agent_that_stops_leaves_its_turns():
    """A seat whose agent returns while rivals play leaves with the recorded `arena leave`; its company lives on
    (payroll) and the replay rebuilds it."""
    def brief(world):
        world.call("company status")
        return
        yield

    arena = StartupArena("default", 2, seats=2)
    arena.run([brief, greedy])
    quitter = arena.seats[0]
    assert quitter.retired and "arena leave" in [line for _, line in quitter.command_log()][-1]
    assert any(e.category == "monthly_payroll" for e in quitter.ledger)
    again = replay_arena(lambda: StartupArena("default", 2, seats=2), arena.command_logs())
    assert arena_text(arena) == arena_text(again)


def test_a_company_that_left_lives_on_only_while_a_rival_plays():
    """When the last playing agent stops, the run stops (a company that left is not played on to its horizon),
    and the replay of the logs stops at the same point."""
    def brief(world):
        world.call("company status")
        return
        yield

    def giver(world):  # pays everything away and waits for its bankruptcy at the first payroll
        world.call("finance transfer", to=0, amount_cents=world.funds_cents)
        while not world.done:
            yield world.call("bot wait")

    arena = StartupArena("default", 4, seats=2)
    arena.run([brief, giver])
    left, gone = arena.seats
    assert left.retired and not left.done and "bankrupt" == gone.status.value and left.now_us <= gone.now_us
    again = replay_arena(lambda: StartupArena("default", 4, seats=2), arena.command_logs())
    assert arena_text(arena) == arena_text(again)


def test_the_arena_prompt_names_the_rivals():
    """With rivals the prompt adds the arena's rules and the commands; help lists them."""
    arena = StartupArena("default", 1, seats=2)
    a, b = first_turns(arena)
    prompt = a.system_prompt()
    assert prompt.startswith(StartupWorld("default", 1).system_prompt())
    assert f"You are seat {a.seat}, {a.company_name}" in prompt and b.company_name in prompt
    assert "finance transfer" in prompt and "message send" in a.call("help")["help"]


def test_the_arena_contract_holds():
    """check_arena (the kernel's executable contract) passes for startup-arena at 2 and 4 seats."""
    report = check_arena("startup-arena", seeds=(3,))
    assert (2, 4) == report.seats and report.turns > 0 and report.refusals > 0


@pytest.mark.parametrize("turns", [0, 1, 12])
def test_a_fork_plays_on_with_new_agents(turns):
    """replay_arena(..., turns=n) stops after n ended turns; new agents play on from there, each seat from its
    next wake (a fork at 0 is a fresh run), and the fork's logs replay to the same arena."""
    def make():
        return StartupArena("default", 1, seats=2)

    original = make()
    original.run([planner, greedy])
    fork = replay_arena(make, original.command_logs(), turns=turns)
    fork.run([greedy, greedy])
    assert [] == fork.invariants() and all(s.done for s in fork.seats)
    assert arena_text(fork) == arena_text(replay_arena(make, fork.command_logs()))
    if turns == 0:
        fresh = make()
        fresh.run([greedy, greedy])
        assert arena_text(fresh) == arena_text(fork)


def test_a_company_that_has_ended_hears_no_more_of_the_market():
    """Greedy goes bankrupt in its 16th turn beside the planner (seed 1): its record stops where its year did (no
    rival's take recorded after its end), while its view of the market stays equal to the others'."""
    arena = StartupArena("default", 1, seats=2)
    arena.run([planner, greedy])
    loser = arena.seats[1]
    assert Status.BANKRUPT is loser.status
    ended = max(t for t, kind, name, _ in loser.trajectory if name == "episode_end")
    taken = [t for t, kind, name, _ in loser.trajectory if name == "market_task_taken"]
    assert taken and max(taken) <= ended
    assert [] == arena.invariants()
