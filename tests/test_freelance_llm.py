"""The optional LLM auditor: pricing, judging and negotiation through a model client, and the reference's fallbacks."""

from __future__ import annotations

import json

import pytest
from bizsim.agents.llm import LLMAgent, ScriptedClient
from bizsim.agents.llm.errors import FatalModelError
from bizsim.models.freelance import DeterministicAuditor, FreelanceWorld, LLMAuditor
from bizsim.models.freelance.answers import Answer
from bizsim.models.freelance.tasks import Task

from .llm_server import LoopbackLLMServer, require_litellm

TASK = Task(0, "Math_Logic", "Low", "What is 6 x 7?", Answer("number", "42", 42.0, 0.5), 1000, 3.0)


def auditor_policy(worker_first: float = 14.0, auditor_offer: float = 13.0, price: dict | None = None):
    """A model playing the three auditor roles by their system prompts (and the agent when tools are offered)."""
    def policy(messages, tools):
        system, user = messages[0]["content"], messages[-1]["content"] or ""
        if "project manager" in system:
            return {"content": json.dumps(price or {"estimated_effort": 4, "base_payment": 12.5}), "tool_calls": []}
        if "grade" in system:
            ref = user.split("Reference answer:\n")[1].split("\n\n")[0].strip()
            got = user.split("Submitted solution:\n")[1].strip()
            return {"content": json.dumps({"is_correct": ref == got}), "tool_calls": []}
        if "for the worker" in system:
            offers = [ln for ln in user.splitlines() if ln.startswith("Auditor offers $")]
            ask = float(offers[-1].split("$")[1]) if offers else worker_first
            return {"content": json.dumps({"proposed_money": ask, "reasoning": "fair"}), "tool_calls": []}
        if "contract auditor" in system:
            return {"content": f'Assessment done. {{"proposed_money": {auditor_offer}, "reasoning": "ok"}}',
                    "tool_calls": []}
        return {"content": "?", "tool_calls": []}
    return policy


def test_scripted_llm_auditor_prices_judges_and_negotiates():
    """Quote from the vote; the judge's verdict; worker asks 14, auditor offers 13, worker accepts 13."""
    client = ScriptedClient(auditor_policy())
    aud = LLMAuditor(client, votes=3)
    assert (1250, 4.0) == aud.price(TASK)
    assert aud.judge(TASK, "42") and not aud.judge(TASK, "41")
    assert 1300 == aud.settle(TASK, "42", 1250)
    assert {"price": 0, "judge": 0, "settle": 0} == aud.fallbacks


def test_fallbacks_when_the_model_fails():
    """A failing model: price $5.00 / effort 5, verdict fail; an unreadable negotiation pays the quote."""
    broken = ScriptedClient(auditor_policy(), faults=lambda i: FatalModelError("down"))
    aud = LLMAuditor(broken)
    assert (500, 5.0) == aud.price(TASK) and not aud.judge(TASK, "42")
    assert 1000 == aud.settle(TASK, "42", 1000)
    assert {"price": 1, "judge": 1, "settle": 1} == aud.fallbacks and 3 + 1 + 1 == aud.failures
    vague = LLMAuditor(ScriptedClient(lambda m, t: {"content": "no idea", "tool_calls": []}))
    assert (500, 5.0) == vague.price(TASK) and not vague.judge(TASK, "42") and 1000 == vague.settle(TASK, "x", 1000)


def test_an_unreadable_auditor_offer_counts_as_the_standard_rate_and_talks_go_on():
    """As the reference reads it: no number from the auditor is an offer of the quote, not the end of the talks.

    Worker 20, auditor (garbage, so $10), worker 20, auditor 12, worker 12.05: within $0.10 of the offer, so $12."""
    replies = iter(['{"proposed_money": 20}', "I cannot decide.", '{"proposed_money": 20}', '{"proposed_money": 12}',
                    '{"proposed_money": 12.05}'])
    aud = LLMAuditor(ScriptedClient(lambda m, t: {"content": next(replies), "tool_calls": []}), pricing=False,
                     judging=False)
    assert 1200 == aud.settle(TASK, "42", 1000)
    assert 1 == aud.fallbacks["settle"]


def test_roles_switched_off_are_deterministic():
    """With every role off the LLM auditor behaves as the deterministic one and calls nothing."""
    client = ScriptedClient(auditor_policy())
    aud = LLMAuditor(client, pricing=False, judging=False, negotiation=False)
    plain = DeterministicAuditor()
    assert plain.price(TASK) == aud.price(TASK) and aud.judge(TASK, "42") and 1000 == aud.settle(TASK, "42", 1000)
    assert 0 == client.calls


def test_world_with_scripted_auditor_pays_the_negotiated_amount():
    """Through the tools: discovery prices by vote, a right answer is paid what the negotiation settles on."""
    w = FreelanceWorld("reference", 4, auditor=LLMAuditor(ScriptedClient(auditor_policy())))
    w.call("tasks_discover", refresh_type="free")
    listing = w.call("tasks_browse")
    assert {12.5} == {t["estimated_payment"] for t in listing["tasks"]}
    tid = listing["tasks"][0]["task_id"]
    out = w.call("solution_submit", task_id=tid, solution_text=w.answer_of(tid))
    assert (True, 13.0) == (out["is_success"], out["settlement"]["final_payment"])
    s = w.summary()
    assert ("llm", 4 + 1 + 3) == (s["auditor"], s["auditor_model_calls"]) and [] == w.invariants()


def test_a_bad_auditor_is_refused():
    """Something without price, judge and settle is not an auditor."""
    with pytest.raises(ValueError, match="auditor"):
        FreelanceWorld("default", 1, auditor=object())


def test_llm_judged_submission_end_to_end_over_http():
    """An LLM agent and its LLM auditor share one client over real HTTP: the agent discovers, browses and submits;
    the auditor prices, judges and negotiates. Then the server fails and the reference's fallbacks apply."""
    require_litellm()
    from bizsim.agents.llm import LiteLLMClient

    state: dict = {"world": None, "fail": False}
    judge = auditor_policy()

    def policy(messages, tools):
        if not tools:
            return judge(messages, tools)
        results = [m for m in messages if m.get("role") == "tool"]
        last = json.loads(results[-1]["content"]) if results else {}
        if not results:
            call = ("tasks_discover", {"refresh_type": "paid"})
        elif "added_count" in last:
            call = ("tasks_browse", {})
        elif "tasks" in last:
            tid = last["tasks"][0]["task_id"]
            call = ("solution_submit", {"task_id": tid, "solution_text": state["world"].answer_of(tid)})
        else:
            call = ("task_done", {})
        return {"content": None, "tool_calls": [{"name": call[0], "arguments": call[1]}]}

    with LoopbackLLMServer(policy, faults=lambda i: "500" if state["fail"] else None, lifetime_s=120) as server:
        client = LiteLLMClient("openai/loopback", api_base=server.url, api_key="sk-test")
        agent = LLMAgent(client=client, model="openai/loopback", max_turns=4)
        world = state["world"] = FreelanceWorld("reference", 2, auditor=LLMAuditor(agent.client))
        world.run(agent)
        (day, tid, success, paid, *_), = world.history
        assert (0, True, 1300) == (day, success, paid)
        assert world.quotes[tid] == (1250, 4.0) and 1 == world.day
        assert world.auditor.calls == 6 + 1 + 3 and 0 == world.auditor.failures

        state["fail"] = True
        down = FreelanceWorld("reference", 3, auditor=LLMAuditor(client))
        down.call("tasks_discover", refresh_type="free")
        tid = str(down.pool[0])
        assert (500, 5.0) == down.quotes[int(tid)]
        out = down.call("solution_submit", task_id=tid, solution_text=down.answer_of(tid))
        assert (False, 0.0) == (out["is_success"], out["settlement"]["final_payment"])
        assert {"price": 4, "judge": 1, "settle": 0} == down.auditor.fallbacks


def test_absurd_votes_and_offers_do_not_overflow():
    """A model answering 1e308 dollars gets the payment cap, never an OverflowError out of the run."""
    huge = ScriptedClient(lambda m, t: {"content": '{"estimated_effort": 5, "base_payment": 1e308, '
                                                   '"proposed_money": 1e308}', "tool_calls": []})
    aud = LLMAuditor(huge)
    cents, effort = aud.price(TASK)
    assert 5.0 == effort and cents == 10**14  # the vote counts as a trillion dollars
    assert aud.max_payment_cents == aud.settle(TASK, "42", cents)


@pytest.mark.parametrize("reply", [
    "{" * 15_000, '{"proposed_money": ' + "[" * 15_000, '{"estimated_effort": 4, "base_payment": ' + "[" * 7_500,
    "}" * 50_000 + '{"a": ' + "[" * 40_000, '{"' * 20_000, "x" * 300_000 + '{"proposed_money": 12}',
], ids=["braces", "brackets", "price-brackets", "stray-closers", "quotes", "past-the-limit"])
def test_a_deep_or_huge_reply_is_a_fallback_not_a_crash(reply):
    """A deeply nested reply (about 15 kB) raised RecursionError out of the auditor; it is an unreadable reply now:
    the reference's fallbacks (quote $5.00 / effort 5, a failed verdict, the standard rate)."""
    aud = LLMAuditor(ScriptedClient(lambda m, t: {"content": reply, "tool_calls": []}))
    assert (500, 5.0) == aud.price(TASK)
    assert 1000 == aud.settle(TASK, "42", 1000)
    assert aud.judge(TASK, "42") is False
