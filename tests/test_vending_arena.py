"""The vending arena: seats, turns, the one-seat reduction to the vending world, replay."""

from __future__ import annotations

import pickle

import pytest
from bizsim.agents.vending import markup, planner
from bizsim.models.vending import VendingWorld
from bizsim.models.vending.arena import VendingArena
from bizsim.simcore.arena_replay import ArenaSnapshot, restore_arena
from bizsim.simcore.errors import ConfigError, TurnError
from bizsim.simcore.registry import arena_names, world_names, world_spec


@pytest.mark.parametrize(("preset", "seed", "agent"), [("small", 1, planner), ("default", 3, markup),
                                                        ("medium", 5, planner)])
def test_one_seat_is_the_vending_world(preset, seed, agent):
    """Same seed, same agent: a one-seat arena's seat has the vending world's summary, state, log and trajectory."""
    arena = VendingArena(preset, seed, seats=1)
    arena.run([agent])
    world = VendingWorld(preset, seed)
    world.run(agent)
    seat = arena.seats[0]
    summary = dict(arena.summary()["seats"][0])
    assert (0, "horizon_reached") == (summary.pop("seat"), summary.pop("status"))
    assert world.summary() == summary
    assert world.state() == seat.state()
    assert world.command_log() == seat.command_log()
    assert world.trajectory.to_jsonl() == seat.trajectory.to_jsonl()


def test_two_seats_run_to_the_horizon():
    """Two built-in agents play a year; each seat is scored on its own and the invariants hold."""
    arena = VendingArena("small", 1, seats=2)
    arena.run([planner, markup])
    summary = arena.summary()
    assert ("horizon_reached", 366) == (summary["status"], summary["days"])
    assert [0, 1] == [s["seat"] for s in summary["seats"]]
    assert all(s["metric"] == "net_worth_cents" and s["days"] == 366 for s in summary["seats"])
    values = [s["metric_value"] for s in summary["seats"]]
    assert sorted(range(2), key=lambda k: -values[k]) == summary["standings"]
    assert [] == arena.invariants()


def test_rivals_share_the_customers():
    """Two copies of one agent sell fewer units each than it sells alone at that location."""
    alone = VendingArena("small", 2, seats=1)
    alone.run([planner])
    pair = VendingArena("small", 2, seats=2)
    pair.run([planner, planner])
    units = [s["units_sold"] for s in pair.summary()["seats"]]
    assert max(units) < alone.summary()["seats"][0]["units_sold"]


def test_seats_act_in_the_rotation():
    """Day d opens with seat (d + offset) mod n; a seat out of turn is refused without a record."""
    arena = VendingArena("small", 7, seats=3)
    first = arena.to_move
    assert (arena.turn_offset % 3) == first
    other = arena.seats[(first + 1) % 3]
    before = len(other.trajectory)
    with pytest.raises(TurnError, match="has the turn"):
        other.execute("products_research --query water")
    with pytest.raises(TurnError):
        other.call("products_research", query="water")
    assert before == len(other.trajectory)
    seen = []

    def watcher(seat):
        while not seat.done:
            seen.append((seat.arena.day, seat.seat))
            yield seat.advance()

    arena.run([watcher] * 3)
    for day in (0, 1, 2, 365):
        assert [(day, (day + arena.turn_offset + k) % 3) for k in range(3)] == [x for x in seen if x[0] == day]


def test_replay_and_pickle_rebuild_the_arena():
    """A snapshot (one log per seat) rebuilds every seat's trajectory and the arena's, byte for byte."""
    arena = VendingArena("small", 4, seats=3)
    arena.run([planner, markup, planner])
    again = restore_arena(ArenaSnapshot.from_json(arena.snapshot().to_json()))
    assert arena.state() == again.state()
    assert arena.trajectory.to_jsonl() == again.trajectory.to_jsonl()
    assert [s.trajectory.to_jsonl() for s in arena.seats] == [s.trajectory.to_jsonl() for s in again.seats]
    assert arena.summary() == pickle.loads(pickle.dumps(arena)).summary()


def test_registry_declares_the_arena():
    """vending-arena is registered with its seats and base world, and kept out of the single-agent list."""
    spec = world_spec("vending-arena")
    assert ((2, 8), "vending", True) == (spec.seats, spec.base, spec.is_arena)
    assert world_spec("vending").agents == spec.agents
    assert "vending-arena" in arena_names() and "vending-arena" not in world_names()
    assert 2 == len(spec.make("small", 1, seats=2).seats)
    with pytest.raises(ConfigError, match="seats"):
        VendingArena("small", 1, seats=9)


def _arena(seats: int = 2, seed: int = 1) -> VendingArena:
    return VendingArena("small", seed, seats=seats)


def _researched(seat, query: str = "water") -> str:
    return seat.call("products_research", query=query)["products"][0]["name"]


def _next_turn(arena: VendingArena) -> None:
    """The seat to move ends its turn; the arena runs until the next seat has the turn."""
    from bizsim.simcore.arena_replay import _await_turn

    arena.seats[arena.to_move].execute("task_done", driven=True)
    _await_turn(arena)


def test_messages_are_bounded_recorded_and_read_once():
    """A message goes to the rival's inbox and the arena's record; limits refuse, and refusals change nothing."""
    from bizsim.simcore.testing import assert_arena_refusal_changes_nothing

    arena = _arena()
    me = arena.seats[arena.to_move]
    rival = 1 - me.seat
    assert "success" == me.execute(f"message_send --to {rival} --text 'shall we keep prices up?'")["status"]
    too_long = "x" * (arena.config.message_max_chars + 1)
    for line in (f"message_send --to {me.seat} --text hi", "message_send --to 5 --text hi",
                 f"message_send --to {rival} --text '   '", f"message_send --to {rival} --text {too_long}"):
        assert_arena_refusal_changes_nothing(arena, line)
    for _ in range(arena.config.messages_per_day - 1):
        me.execute(f"message_send --to {rival} --text again")
    assert "daily limit" in assert_arena_refusal_changes_nothing(arena, f"message_send --to {rival} --text more")["error"]
    assert [("message", me.seat, rival)] == [(n, d["from"], d["to"]) for _, n, d in arena.trajectory.of_kind("event")
                                             if n == "message"][:1]
    _next_turn(arena)
    other = arena.seats[rival]
    read = other.execute("messages_read")
    assert ("shall we keep prices up?", me.seat, arena.config.messages_per_day) == (
        read["messages"][0]["text"], read["messages"][0]["from"], read["count"])
    assert 0 == other.execute("messages_read")["count"]


def test_money_and_goods_move_between_seats_zero_sum():
    """A payment is one seat's debit and the other's credit; goods leave one stock for the other's; both sell."""
    from bizsim.simcore.testing import assert_arena_refusal_changes_nothing

    arena = _arena()
    me = arena.seats[arena.to_move]
    rival = arena.seats[1 - me.seat]
    name = _researched(me)
    me.call("order_place", items=[{"name": name, "quantity": 10}])
    paid = me.execute(f"money_send --to {rival.seat} --amount 12.34")
    assert (1234, me.money_cents) == (paid["amount_cents"], paid["money_cents"])
    assert 10_000 + 1234 == rival.money_cents
    for line in (f"money_send --to {rival.seat} --amount 1000000", f"money_send --to {rival.seat} --amount 0",
                 f"money_send --to {rival.seat} --amount 0.001", f"goods_send --to {rival.seat} "
                 f"--product-name '{name}' --quantity 1"):  # goods on order are not stock yet
        assert_arena_refusal_changes_nothing(arena, line)
    huge = assert_arena_refusal_changes_nothing(arena, f"money_send --to {rival.seat} --amount 1e300")["error"]
    assert "sending 1e+300 dollars" in huge and len(huge) < 200  # the amount asked, not the balance plus a cent
    while arena.day < 7:
        _next_turn(arena)
    while arena.to_move != me.seat:
        _next_turn(arena)
    assert 10 == me.stock[me.catalog_index(name)]
    sent = me.execute(f"goods_send --to {rival.seat} --product-name '{name}' --quantity 4")
    assert (6, 6, 4) == (sent["left_in_stock"], me.stock[me.catalog_index(name)], rival.stock[me.catalog_index(name)])
    assert [] == arena.invariants()
    summary = {s["seat"]: s for s in arena.summary()["seats"]}
    assert (1234, 4) == (summary[me.seat]["money_sent_cents"], summary[rival.seat]["units_received"])
    worth = sum(s["net_worth_cents"] for s in summary.values())
    assert 2 * 10_000 == worth  # nothing sold yet: transfers and orders move worth, never make it


def test_a_rival_private_state_reaches_no_command():
    """Every command of a seat answers the same whatever a rival did in private (research, orders, unstocked
    prices, its cash): only its shelf, reports and what it sends are public."""
    arenas = [_arena(seed=5), _arena(seed=5)]
    names: list[str] = []
    for arena, queries in zip(arenas, (("water", "tea"), ("tea", "water"))):
        rival = arena.seats[arena.to_move]
        for query in queries:
            name = _researched(rival, query)
            names.append(name)
        rival.call("order_place", items=[{"name": names[-1], "quantity": 3}])
        rival.call("price_set", product_name=names[-2], price=9.99)
        _next_turn(arena)
    victim = 1 - arenas[0].to_move
    lines = ["help", "market_view", "messages_read", "task_done"]
    lines += [f"help --command {spec.name}" for spec in arenas[0].seat_commands.visible()]
    for name in names:
        lines += [f"products_research --query '{name}'", f"price_query --product-name '{name}'",
                  f"price_set --product-name '{name}' --price 3", f"goods_send --to {victim} --product-name '{name}' "
                  "--quantity 1", f"order_place --items '[{{\"name\": \"{name}\", \"quantity\": 1}}]'"]
    lines += [f"money_send --to {victim} --amount 0.01", f"message_send --to {victim} --text hi"]
    tried = {line.split()[0] for line in lines}
    assert {spec.name for spec in arenas[0].seat_commands.visible()} == tried  # a new command must join the battery
    answers = []
    for arena in arenas:
        me = arena.seats[arena.to_move]
        out = []
        for line in lines:
            result = me.execute(line, driven=True)
            out.append(result if isinstance(result, dict) else arena.env.run(until=result))
        answers.append(out)
    assert answers[0] == answers[1]


def test_competition_reports_come_every_period():
    """Every report_every_days days each seat's report carries the public competition report."""
    arena = _arena(seats=3)
    arena.run([planner, markup, planner])
    days = [r["day"] for r in arena.reports]
    period = arena.config.report_every_days
    assert list(range(period, 367, period)) == days
    stop = [d for _, n, d in arena.seats[0].trajectory.of_kind("stop") if "competition_report" in d["arena"]]
    assert days == [d["arena"]["competition_report"]["day"] for d in stop]
    last = arena.reports[-1]["machines"]
    assert [0, 1, 2] == [m["seat"] for m in last] and all(set(m) >= {"units_sold", "revenue_cents"} for m in last)


def test_a_retired_seat_passes_its_turns_and_replays():
    """An agent that returns early leaves its seat to the arena, which ends its turns; replay rebuilds it."""
    from bizsim.simcore.testing import assert_arena_replays, scripted_agent

    arena = _arena(seats=2, seed=3)
    arena.run([scripted_agent([["products_research --query water"]] * 3), planner])
    assert ("horizon_reached", True) == (arena.status.value, arena.seats[0].retired)
    log = arena.seats[0].command_log()
    assert (3 + 366, 366) == (len(log), sum(line == "task_done" for _, line in log))
    assert_arena_replays(lambda: _arena(seats=2, seed=3), arena)


def test_a_fork_plays_on_from_any_turn():
    """Cut after n turns, an arena plays on with new agents, deterministically; its snapshot holds the cut logs."""
    from bizsim.simcore.arena_replay import replay_arena

    parent = _arena(seats=3, seed=6)
    parent.run([planner, markup, planner])
    factory = lambda: _arena(seats=3, seed=6)  # noqa: E731
    for cut in (0, 1, 5, 3 * 40 + 2):
        forks = [replay_arena(factory, parent.command_logs(), turns=cut) for _ in range(2)]
        assert (cut // 3, cut % 3) == (forks[0].day, forks[0]._pos)
        logs = forks[0].command_logs()
        for fork in forks:
            fork.run([markup, markup, markup])
        assert forks[0].summary() == forks[1].summary() and "horizon_reached" == forks[0].status.value
        assert [] == forks[0].invariants()
        assert [log[:len(cut_log)] for log, cut_log in zip(forks[0].command_logs(), logs)] == logs
        assert forks[0].state() == restore_arena(forks[0].snapshot()).state()


def test_a_bankrupt_seat_leaves_and_the_others_play_on():
    """A seat that runs out of money and sales ends (its last report delivered), drops out of the rotation, can no
    longer be written to or paid; the others play to the horizon, and the logs replay."""
    import attrs
    from bizsim.models.vending.arena_config import ARENA_PRESETS
    from bizsim.simcore.testing import assert_arena_replays, scripted_agent

    cfg = attrs.evolve(ARENA_PRESETS["small"], horizon_days=10, initial_money_cents=100, stagnation_days=2)
    factory = lambda: VendingArena(cfg, 2, seats=3)  # noqa: E731
    arena = factory()
    broke = arena.to_move
    friend = (broke + 1) % 3
    last: list[dict] = []

    def give_away(seat):
        seat.execute(f"money_send --to {friend} --amount 1")
        while not seat.done:
            last.append((yield seat.advance()))

    def idle(seat):
        while not seat.done:
            yield seat.advance()

    agents = [idle] * 3
    agents[broke] = give_away
    agents[friend] = scripted_agent([[f"message_send --to {broke} --text hello"]] * 9)
    arena.run(agents)
    seats = arena.seats
    assert ("bankrupt", 2, "horizon_reached") == (seats[broke].status.value, seats[broke].day, arena.status.value)
    assert 2 == last[-1]["current_day"]  # its last report came, at its end
    assert [10, 10] == [seats[k].day for k in range(3) if k != broke]
    sent = [d for t, n, d in seats[friend].trajectory.of_kind("cmd") if n == "message_send"]
    assert [False, False] + [True] * 7 == ["error" in d for d in sent]  # written to on days 0 and 1 only
    assert all("left the market" in d["error"]["error"] for d in sent[2:])
    assert [] == arena.invariants()
    assert_arena_replays(factory, arena)


def test_world_names_may_join_words_but_not_hide_a_version():
    """vending-arena is a valid name; a joined word starting with v would read as a version and is refused."""
    from bizsim.simcore.registry import WorldSpec

    fields = dict(version=1, factory="a.b:C", presets="a.b:P", agents={"x": "a.b:x"}, default_agent="x")
    assert "vending-arena-v1" == WorldSpec(name="vending-arena", **fields).benchmark_id
    for bad in ("vending-value", "Vending-arena", "vending--arena", "vending-"):
        with pytest.raises(ConfigError, match="name"):
            WorldSpec(name=bad, **fields)
    with pytest.raises(ConfigError, match="both seats and base"):
        WorldSpec(name="x-arena", seats=(2, 4), **fields)


def test_when_every_agent_returns_the_arena_holds_and_plays_on_later():
    """Agents that all stop early leave the arena at the next turn's start (its replay stops there too); a later
    run() with new agents plays on from there to the horizon."""
    from bizsim.simcore.testing import assert_arena_replays, scripted_agent

    factory = lambda: _arena(seats=3, seed=8)  # noqa: E731
    arena = factory()
    arena.run([scripted_agent([["products_research --query water"]] * k) for k in (2, 3, 1)])
    assert (False, 3) == (arena.done, arena.day) and arena.to_move is not None
    assert_arena_replays(factory, arena)
    arena.run([markup, planner, markup])
    assert "horizon_reached" == arena.status.value and [] == arena.invariants()
    assert_arena_replays(factory, arena)


def test_the_vending_arena_passes_check_arena():
    """The arena contract, executable: determinism, replay, invariants at every turn, turns and refusals."""
    from bizsim.simcore.check_arena import check_arena

    report = check_arena("vending-arena", "small", seeds=(1,), seat_counts=(2, 3))
    assert ((2, 3), (1,)) == (report.seats, report.seeds) and 366 * (2 + 3) == report.turns and report.refusals > 10
    assert "passed" in str(report)


def test_one_messages_read_answer_is_bounded_and_the_rest_stay_unread():
    """A seat that never reads gets more than a read's worth of messages: each answer holds at most
    MESSAGES_PER_READ items, oldest first, and says how many are still unread; the next reads get the rest."""
    from bizsim.models.vending.arena_commands import MESSAGES_PER_READ

    arena = _arena()
    sender = arena.to_move
    rival = 1 - sender
    sent = 0
    while sent <= MESSAGES_PER_READ + 3:
        while arena.to_move != sender:
            _next_turn(arena)
        for _ in range(arena.config.messages_per_day):
            arena.seats[sender].execute(f"message_send --to {rival} --text m{sent}")
            sent += 1
        _next_turn(arena)
    while arena.to_move != rival:
        _next_turn(arena)
    reader = arena.seats[rival]
    first = reader.execute("messages_read")
    assert (MESSAGES_PER_READ, sent - MESSAGES_PER_READ) == (first["count"], first["unread"])
    assert [f"m{k}" for k in range(MESSAGES_PER_READ)] == [m["text"] for m in first["messages"]]
    rest = reader.execute("messages_read")
    assert [f"m{k}" for k in range(MESSAGES_PER_READ, sent)] == [m["text"] for m in rest["messages"]]
    assert "unread" not in rest and 0 == reader.execute("messages_read")["count"]
