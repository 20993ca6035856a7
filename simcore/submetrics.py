"""Sub-metrics: the figures a world declares beside its headline metric, for rewards shaped by them.

A world's headline metric (``summary()["metric_value"]``: funds, net worth, mean DAU) often moves late: a startup's
funds jump when a task completes, weeks after the work that earned it. The figures that move first (prestige,
skill, content quality) are the world's own, so the world declares them on its
:class:`~bizsim.simcore.registry.WorldSpec` (``sub_metrics=``), each with a unit, where it is read and a default
weight with its reason. ``reward="shaped"`` (``bizsim.runs.rewards``) adds ``weight x change`` of each to the
metric change of a step.

>>> s = SubMetric("avg_skill", unit="skill points (0-100)", reads="avg_skill", weight=33.3,
...               why="Career Score weights")
>>> s.read(None, {"avg_skill": 61.5})
61.5
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import attrs

from .errors import BizSimError, ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .world import World

__all__ = ["MAX_WHY_CHARS", "SubMetric"]

#: The longest ``unit`` or ``why`` a declaration may carry (it is shown in docs and error messages).
MAX_WHY_CHARS = 400

_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
_READS = re.compile(r"[A-Za-z_]\w{0,79}|[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


def _name(_inst: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise ConfigError(f"SubMetric.name(={value!r:.60}) must be 1-40 lower-case letters, digits or _, starting "
                          "with a letter, e.g. 'prestige'")


def _text(_inst: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_WHY_CHARS:
        raise ConfigError(f"SubMetric.{attribute.name}(={value!r:.60}) must be text of 1 to {MAX_WHY_CHARS} "
                          "characters")


def _reads(_inst: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not _READS.fullmatch(value):
        raise ConfigError(f"SubMetric.reads(={value!r:.60}) must be a key of the world's summary() (e.g. "
                          "'avg_skill') or a function 'package.module:function' taking the world")


def _weight(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"SubMetric.weight(={value!r:.60}) must be a finite number (the metric's units per unit "
                          "of the sub-metric)")
    return float(value)


@attrs.frozen
class SubMetric:
    """One figure of a world that a shaped reward weighs beside the metric.

    Args:
        name: what ``reward_weights`` calls it (``prestige``).
        unit: its unit as a reader says it (``"prestige level, 1 to 10"``).
        reads: where its value comes from: a key of the world's ``summary()`` whose value is a number
            (``"avg_skill"``), or a function ``"package.module:function"`` that takes the world and returns one
            (imported on first use, as the registry's references are).
        weight: its default weight, in units of the world's metric per unit of this figure (cents per prestige
            level); a shaped step adds ``weight x`` the figure's change. Negative for a figure that should fall.
        why: the reason for the default weight, one or two sentences (shown in the docs).
    """

    name: str = attrs.field(validator=_name)
    unit: str = attrs.field(validator=_text)
    reads: str = attrs.field(validator=_reads)
    weight: float = attrs.field(converter=_weight)
    why: str = attrs.field(validator=_text)

    def read(self, world: World | None, summary: Mapping[str, Any] | None = None) -> float:
        """The figure now: from ``summary`` (the world's ``summary()``, read once by the caller) or its function.

        Raises:
            BizSimError: the world's summary has no such key, or the value is not a finite number.
        """
        if ":" in self.reads:
            from .registry import load_object

            value = load_object(self.reads)(world)
        else:
            if summary is None:
                summary = world.summary() if world is not None else {}
            if self.reads not in summary:
                raise BizSimError(f"sub-metric {self.name!r} reads summary()[{self.reads!r}], which this world's "
                                  f"summary does not hold (it has {', '.join(sorted(summary)[:12])}); fix the "
                                  "world's SubMetric declaration")
            value = summary[self.reads]
        if isinstance(value, Decimal):
            value = float(value)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise BizSimError(f"sub-metric {self.name!r} read {value!r:.60} from {self.reads}, not a finite number; "
                              "fix the world's SubMetric declaration")
        return float(value)
