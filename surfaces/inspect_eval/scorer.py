"""The score of a sample: the world's metric, its summary figures as metadata, its run directory written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from bizsim.runs.rundir import RunDir
from bizsim.surfaces.inspect_eval.sample import current_episode, finish_episode, sample_plan
from bizsim.surfaces.inspect_eval.usage import usage_totals

__all__ = ["world_metric"]

#: ``terminal_detail`` of an episode still running when its sample's agent returned (or an Inspect limit hit).
_STOPPED = "the Inspect agent stopped"


def _usage() -> dict[str, Any]:
    """The sample's model usage as bizsim's ``llm`` counters (tokens; cost when Inspect knows it)."""
    try:
        from inspect_ai.model._model import sample_model_usage
    except ImportError:  # a later Inspect moved it: the counters stay without tokens
        return {}
    prompt, completion, cost = usage_totals(list(sample_model_usage().values()))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
            "cost_usd": cost}


def _result(state: TaskState) -> dict[str, Any]:
    """``result.json`` of the sample's run: the harness's, or the live episode's written now."""
    record = finish_episode(_usage(), _STOPPED)
    if record is not None:
        return record
    run_dir = Path(sample_plan()["run_dir"])
    if RunDir(run_dir).is_finished():  # bizsim's own harness played it and wrote the run directory
        return RunDir(run_dir).read_record().to_dict()
    current_episode()  # the agent issued no command: the run is the untouched world
    record = finish_episode(_usage(), _STOPPED)
    assert record is not None
    return record


@scorer(metrics=[mean(), stderr()])
def world_metric() -> Any:
    """The world's headline metric (``final_funds_cents`` for startup) as the value, every scalar summary figure
    as metadata, and the run directory's path."""

    async def score(state: TaskState, target: Target) -> Score:
        result = _result(state)
        figures = {k: v for k, v in result.items() if isinstance(v, (int, float, str, bool)) or v is None}
        run_dir = sample_plan()["run_dir"]
        state.metadata["bizsim_run_dir"] = run_dir
        return Score(value=result["metric_value"], answer=str(result.get("terminal_reason")),
                     explanation=f"{result['metric']} = {result['metric_value']} ({result.get('terminal_reason')})",
                     metadata={"run_dir": run_dir, **figures})

    return score
