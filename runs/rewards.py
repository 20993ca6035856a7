"""How a stepped episode is rewarded: the reward modes every driver offers and the checks on their arguments.

Three modes (:data:`REWARDS`), all in the units of the world's metric (``summary()["metric_value"]``: startup
and vending cents, operation users, freelance cents):

- ``delta``: each step, the change of the metric it caused. Over a window the rewards sum to the metric's change.
- ``terminal``: 0 until the step that ends the episode or its window, which gets the whole change (the same sum).
- ``shaped``: ``delta`` plus, for each sub-metric ``i`` the world declares
  (:attr:`~bizsim.simcore.registry.WorldSpec.sub_metrics`), ``w_i x`` its change over the step. The bonus is a
  difference of one potential, ``sum_i w_i x sub_i``, so it telescopes: over a window the rewards sum to the
  metric's change plus ``sum_i w_i x (sub_i at the end - sub_i at the start)``. With every weight 0 it is ``delta``,
  step for step.

The potential is not zero at the end of a window, so weights other than 0 change what the best play of a window
is (a startup that ends a window with more prestige scores more); that is the point of a weight: it values a
figure the metric pays for only later.

>>> rule = reward_rule("startup", "shaped", {"prestige": 0})
>>> rule.mode, rule.weights["prestige"], sorted(rule.weights)
('shaped', 0.0, ['prestige', 'tasks_succeeded', 'trust'])
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import show
from bizsim.simcore.registry import world_spec
from bizsim.simcore.submetrics import SubMetric

if TYPE_CHECKING:
    from bizsim.simcore.world import World

__all__ = ["MAX_REWARD_WEIGHT", "REWARDS", "RewardRule", "reward_rule"]

#: How :meth:`~bizsim.runs.live.Episode.step` rewards (see the module's description): ``delta`` (dense),
#: ``terminal`` (sparse), ``shaped`` (dense, with the world's sub-metrics weighed in).
REWARDS = ("delta", "terminal", "shaped")

#: The largest weight (either sign) ``reward_weights`` may give: far above any useful one, far below a float's
#: range, so a weight times a sub-metric stays finite. (The error messages spell it 1e12.)
MAX_REWARD_WEIGHT = 1e12


@attrs.frozen
class RewardRule:
    """A checked reward mode: the mode, and for ``shaped`` each sub-metric's weight (by name, declaration order)."""

    mode: str
    subs: tuple[SubMetric, ...] = ()
    weights: dict[str, float] = attrs.field(factory=dict)

    def potential(self, world: World, summary: Mapping[str, Any]) -> float:
        """``sum_i w_i x sub_i`` on ``world`` now (0 unless ``shaped``); ``summary`` is its ``summary()``."""
        return math.fsum(self.weights[s.name] * s.read(world, summary) for s in self.subs if self.weights[s.name])


def reward_rule(world: str, reward: Any = "delta", weights: Any = None) -> RewardRule:
    """Check a driver's ``reward`` and ``reward_weights`` for a registered world; return the rule they make.

    Args:
        world: a registered world name.
        reward: one of :data:`REWARDS`.
        weights: ``shaped`` only: weights by sub-metric name, overriding the world's defaults (the names not given
            keep theirs); each a finite number from ``-MAX_REWARD_WEIGHT`` to ``MAX_REWARD_WEIGHT``.

    Raises:
        ConfigError: one line naming the bad value, the rule and the allowed values: an unknown mode, weights
            without ``shaped``, ``shaped`` on a world that declares no sub-metrics, an unknown sub-metric name, a
            weight that is not a finite number in range.
    """
    if not isinstance(reward, str) or reward not in REWARDS:
        raise ConfigError(f"reward(={show(reward)}) must be one of {', '.join(REWARDS)}")
    if reward != "shaped":
        if weights is not None:
            raise ConfigError(f"reward_weights weigh the sub-metrics of reward='shaped'; reward is {reward!r}: "
                              "drop reward_weights or set reward='shaped'")
        return RewardRule(reward)
    spec = world_spec(world)
    if not spec.sub_metrics:
        raise ConfigError(f"reward='shaped' weighs the world's sub-metrics and world {spec.name!r} declares none "
                          "(WorldSpec.sub_metrics); use reward='delta' or 'terminal', or declare its sub-metrics")
    names = [s.name for s in spec.sub_metrics]
    chosen = {s.name: s.weight for s in spec.sub_metrics}
    if weights is not None:
        if not isinstance(weights, Mapping):
            raise ConfigError(f"reward_weights(={show(weights)}) must be a table of sub-metric name -> weight, "
                              f"e.g. {{{names[0]!r}: 1.0}}; {spec.name}'s sub-metrics are {', '.join(names)}")
        for key, value in weights.items():
            if key not in chosen:
                raise ConfigError(f"reward_weights[{show(key)}] is not a sub-metric of {spec.name}; its sub-metrics "
                                  f"are {', '.join(names)}")
            # The range first: math.isfinite raises OverflowError on an int too large for a float.
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    abs(value) <= MAX_REWARD_WEIGHT and math.isfinite(value)):
                raise ConfigError(f"reward_weights[{key!r}](={show(value)}) must be a finite number from -1e12 to "
                                  f"1e12 (the metric's units per unit of {key}), e.g. {{{key!r}: 1.0}}")
            chosen[key] = float(value)
    return RewardRule("shaped", spec.sub_metrics, chosen)
