"""The reward layer: how a stepped episode is rewarded (``delta``, ``terminal``, ``shaped``: :mod:`bizsim.runs.rewards`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bizsim.runs.live_layer import EpisodeLayer
from bizsim.runs.rewards import RewardRule

__all__ = ["Rewarded"]


class Rewarded(EpisodeLayer):
    """Rewards each step by ``rule``: the change of the world's metric the step caused (``delta``), plus with
    ``shaped`` the change of the rule's potential; with ``terminal``, 0 until the step that ends the episode or
    its window, which gets the whole change. An episode's ``delta`` rewards sum to its final metric minus its first.

    Args:
        episode: the episode beneath (outermost but for the surface: it reads ``done`` as the window left it).
        rule: a checked rule (:func:`~bizsim.runs.rewards.reward_rule`).
    """

    def __init__(self, episode: Any, rule: RewardRule) -> None:
        super().__init__(episode)
        self.rule = rule
        self._mark_start()

    @property
    def reward(self) -> str:
        """The reward mode, one of :data:`~bizsim.runs.rewards.REWARDS`."""
        return self.rule.mode

    def _mark_start(self) -> None:
        world = self.unwrapped.world
        summary = world.summary()
        #: Where the episode started and where its last step left it: the metric and the shaping potential
        #: (``sum_i w_i x sub_i``, 0 unless ``shaped``).
        self.start_metric = self.metric = float(summary["metric_value"])
        self.start_potential = self.potential = self.rule.potential(world, summary)

    def reset(self, seed: int | None = None) -> str:
        """As the episode's ``reset``; a fresh world's metric and potential are the new start."""
        before = self.unwrapped.world
        text: str = self.episode.reset(seed)
        if self.unwrapped.world is not before:
            self._mark_start()
        return text

    def step(self, command: Any) -> tuple[str, float, bool, dict]:
        """As the episode's ``step``, rewarded by the rule."""
        return self._rewarded(self.episode.step(command))

    def step_tool(self, name: str, arguments: Mapping[str, Any] | None) -> tuple[str, float, bool, dict]:
        """As the episode's ``step_tool``, rewarded by the rule."""
        return self._rewarded(self.episode.step_tool(name, arguments))

    def _rewarded(self, stepped: tuple[str, float, bool, dict]) -> tuple[str, float, bool, dict]:
        observation, _, done, info = stepped
        metric = info["metric"]
        core = self.unwrapped
        # The summary the step reported (the world is not asked again); 0 for a rule without a potential.
        summary = core.step_summary if core.step_summary is not None else core.summarize()
        potential = self.rule.potential(core.world, summary) if self.rule.subs else 0.0
        reward = (metric - self.metric) + (potential - self.potential)
        self.metric, self.potential = metric, potential
        if self.rule.mode == "terminal":
            reward = metric - self.start_metric if done else 0.0
        return observation, reward, done, info
