"""Arena seat agents for tests, importable by name so a roster can seat them (``tests._arena_agents:trader``)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any


def trader(world: Any) -> Generator[Any, Any, None]:
    """A seat that keeps no shop but deals with seat 0: on day 0 it orders two units of a water, on day 1 it sends a
    message (with markup in it: a page must show it as text), on day 3 five dollars, on day 9 one unit of the water
    (delivered by then); it reads its inbox every day and then ends the day."""
    product = None
    while not world.done:
        day = world.day
        if day == 0:
            product = world.call("products_research", query="water")["products"][0]["name"]
            world.call("order_place", items=[{"name": product, "quantity": 2}])
        elif day == 1:
            world.call("message_send", to=0, text="<b>Let us not undercut each other on water.</b>")
        elif day == 3:
            world.call("money_send", to=0, amount=5.0)
        elif day == 9 and product is not None:
            world.call("goods_send", to=0, product_name=product, quantity=1)
        world.call("messages_read")
        yield world.advance()


def market_then_done(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
    """A scripted model's policy for an LLM seat of vending-arena: looks at the market every other call and ends
    its day each call, so what it does depends on the conversation (a resume must replay it to the same calls)."""
    answered = sum(1 for m in messages if m.get("role") == "assistant")
    calls = [{"name": "task_done", "arguments": {}}]
    if answered % 2 == 0:
        calls.insert(0, {"name": "market_view", "arguments": {}})
    return {"content": None, "tool_calls": calls}
