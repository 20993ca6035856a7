"""The startup world's sub-metrics: what a shaped reward weighs beside funds (``reward="shaped"``).

Funds move when a task pays, weeks after the work that earned it, and fall at every payroll; prestige and client
trust rise with each success and are what the next tasks pay for. Weights are in cents (funds' unit) per unit of
the figure; the reasons cite ``specs/startup.md``. startup-v2 keeps these (its hiring changes neither figure).
"""

from __future__ import annotations

from typing import Any

from bizsim.simcore.submetrics import SubMetric

__all__ = ["SUB_METRICS", "mean_prestige", "mean_trust"]


def mean_prestige(world: Any) -> float:
    """The company's prestige, the mean over the four domains (1 to 10)."""
    levels = list(world.prestige.values())
    return float(sum(levels)) / len(levels)


def mean_trust(world: Any) -> float:
    """Client trust, the mean over every client (0 to 5)."""
    return float(sum(c.trust for c in world.clients)) / len(world.clients) if world.clients else 0.0


SUB_METRICS = (
    SubMetric("prestige", unit="prestige level, mean of the 4 domains (1 to 10)",
              reads="bizsim.models.startup.submetrics:mean_prestige", weight=150_000,
              why="A level more opens tasks whose listed reward is 30% higher (x(1 + 0.3(p - 1)), specs/startup.md "
                  "fact 6): $1,500 on a $5,000 base reward. The weight is that one task's gain."),
    SubMetric("trust", unit="trust level, mean over the clients (0 to 5)",
              reads="bizsim.models.startup.submetrics:mean_trust", weight=100_000,
              why="A level of a loyal client's trust cuts the work of its tasks by a tenth (qty x (1 - 0.5T/5), "
                  "specs/startup.md fact 10) and opens its trust-gated tasks; $1,000 a level of the mean is a "
                  "starting guess, to tune."),
    SubMetric("tasks_succeeded", unit="tasks completed on time", reads="tasks_succeeded", weight=0,
              why="A success's reward is in funds the moment it lands, so 0 by default; a weight rewards completions "
                  "themselves, e.g. early in training, when payroll drowns them out."),
)
