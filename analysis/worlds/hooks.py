"""What a world may add to the generic analysis: the shape of the object a registration's ``analysis`` names."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

__all__ = ["AnalysisHooks", "ReportContext"]


@attrs.frozen
class ReportContext:
    """What a world's report section receives: the report document and the world's finished runs' tables."""

    doc: Any
    events: Any
    series: Any
    runs: Any
    by: list[str]
    next_figure: Callable[[], int]
    #: The settings of an LLM judge for analyses that offer one (the startup world's Figure 4(b)), or None.
    judge: Any = None
    #: The report's folder, where a section may keep files of its own (a judge's cache), or None.
    out: Any = None


@attrs.frozen
class AnalysisHooks:
    """A world's additions to the result tables and the report, all optional.

    Args:
        extractor: a factory of an :class:`~bizsim.runs._extract.Extractor`, for facts only the live world
            holds (one fresh extractor a run).
        report: ``report(context)`` adds the world's own figures and tables to the report.
        action_bin_days: the bin width of the report's actions-over-time figures.
        max_action_figures: at most this many agents get an actions-over-time figure (``None``: every agent).
        timeline: ``timeline(trajectory_records, result_or_None, start_or_None) -> (series name, [[t_us, value],
            ...])``, the metric at every decision point for the run viewer (default: the summary series named like
            the metric); ``start`` is the summary of the run's world before its first turn (built from the run's
            config), for a run still being written.
        names: ``names(trajectory_records, world) -> {internal id: name}``, the names the agent knows things by,
            for ids the world's events carry (the startup world's wake-up events name a task by its UUID, the
            agent knows it as ``Task-9``); ``world`` is a fresh world built from the run's config and seed.
        paper: ``paper(context)`` lays out a paper's analyses that span worlds (EcoGym's Table 2 has a column a
            world): the report calls each distinct ``paper`` once, after the worlds' sections, with the finished
            runs of every world whose hooks name it and ``by`` without ``world`` (the paper's functions split by
            world themselves).
        paper_title: the heading of that section (and its entry in the report's contents).
        paper_name: the paper's short name, for ``bizsim report --paper NAME`` (``yc-bench``, ``ecogym``).
        headline: the runs column the report's headline number reads, where it is not the metric as recorded
            (the startup world's: ``leaderboard_funds_cents``, a bankruptcy as $0, as its figures count it), so
            a page has one definition of it (:mod:`bizsim.analysis.headline`).
        headline_rule: how that number counts a run, as the report's caption says it (how a bankrupt run
            counts).
        figure_words: the report's names of the world's figures where :func:`~bizsim.analysis.labels.words`
            would give two readings of one thing the same name (``final_funds_cents`` is the final *balance*).
    """

    extractor: Callable[[], Any] | None = None
    report: Callable[[ReportContext], None] | None = None
    action_bin_days: int = 14
    max_action_figures: int | None = None
    timeline: Callable[[list[dict], dict | None, dict | None], tuple[str, list[list[float]]]] | None = None
    names: Callable[[list[dict], Any], dict[str, str]] | None = None
    paper: Callable[[ReportContext], None] | None = None
    paper_title: str = ""
    paper_name: str = ""
    headline: str | None = None
    headline_rule: str = ""
    figure_words: Mapping[str, str] = attrs.field(factory=dict)
