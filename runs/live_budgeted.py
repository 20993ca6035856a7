"""The budget layer: calls, tokens and dollars an outside agent may spend; a budget reached ends the episode.

A turn is one call here (the client's model calls are not seen); tokens and dollars are what the client reports
(``report_usage``). A budget reached ends the episode as it ends an LLM run: the world is aborted (status
``error``) and ``terminal_detail`` names the budget. The layer declares its limits to the core, which records
them (``live.budgets``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from bizsim.runs.budgets import Budgets
from bizsim.runs.call_outcome import CallOutcome
from bizsim.runs.live_layer import EpisodeLayer

__all__ = ["Budgeted"]


class Budgeted(EpisodeLayer):
    """Ends the episode once a budget is reached, after the call (or the usage report) that reached it.

    Args:
        episode: the episode beneath.
        budgets: the limits; ``max_turns`` unset takes the world config's ``max_turns`` when it has one
            (``max_call_chars`` is the core's: it bounds agent text before any layer sees a call).
    """

    def __init__(self, episode: Any, budgets: Budgets) -> None:
        super().__init__(episode)
        self.budgets = budgets
        self.max_turns: int | None = budgets.max_turns if budgets.max_turns is not None else getattr(
            episode.world.config, "max_turns", None)
        self.unwrapped.declare_limits(max_turns=self.max_turns, max_tokens_total=budgets.max_tokens_total,
                                         max_cost_usd=budgets.max_cost_usd)

    def call_line(self, line: Any) -> CallOutcome:
        """As the episode's ``call_line``; ``done`` when the call reached a budget."""
        with self.lock:
            return self._spent(self.episode.call_line(line))

    def call_argv(self, argv: Sequence[str]) -> CallOutcome:
        """As the episode's ``call_argv``; ``done`` when the call reached a budget."""
        with self.lock:
            return self._spent(self.episode.call_argv(argv))

    def call_tool(self, name: Any, arguments: Mapping[str, Any] | str | None = None) -> CallOutcome:
        """As the episode's ``call_tool``; ``done`` when the call reached a budget."""
        with self.lock:
            return self._spent(self.episode.call_tool(name, arguments))

    def step(self, command: Any) -> tuple[str, float, bool, dict]:
        """As the episode's ``step``; ``done`` when the step reached a budget."""
        with self.lock:
            return self._stepped(self.episode.step(command))

    def step_tool(self, name: str, arguments: Mapping[str, Any] | None) -> tuple[str, float, bool, dict]:
        """As the episode's ``step_tool``; ``done`` when the step reached a budget."""
        with self.lock:
            return self._stepped(self.episode.step_tool(name, arguments))

    def report_usage(self, prompt_tokens: int = 0, completion_tokens: int = 0, cost_usd: float | None = None) -> None:
        """As the episode's ``report_usage``; a token or dollar budget reached ends the episode."""
        with self.lock:
            self.episode.report_usage(prompt_tokens, completion_tokens, cost_usd)
            if not self.unwrapped.closed:
                self._reached()

    def _spent(self, outcome: CallOutcome) -> CallOutcome:
        return attrs.evolve(outcome, done=True) if self._reached() else outcome

    def _stepped(self, stepped: tuple[str, float, bool, dict]) -> tuple[str, float, bool, dict]:
        if not self._reached():
            return stepped
        observation, reward, _, info = stepped
        core = self.unwrapped  # what the step reports of the world is read after its end, as the world now is
        metric = float(core.summarize()["metric_value"])
        return observation, reward, True, {**info, "metric": metric, "status": core.world.status.value,
                                           "time": core.world.now_iso}

    def _reached(self) -> bool:
        """End the episode if a budget is reached now; whether it ended it."""
        core = self.unwrapped
        if core.world.done or core.stopped is not None:
            return False
        used, cost = core.prompt_tokens + core.completion_tokens, core.cost_usd
        limits = self.budgets
        if self.max_turns is not None and core.calls >= self.max_turns:
            reason = "max_turns"
        elif limits.max_tokens_total is not None and used >= limits.max_tokens_total:
            reason = "max_tokens_total"
        elif limits.max_cost_usd is not None and cost is not None and cost >= limits.max_cost_usd:
            reason = "max_cost_usd"
        else:
            return False
        self.episode.abort(reason)
        return True
