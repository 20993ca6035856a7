"""Own time per tool call of the Inspect surface: what a bizsim tool adds to an Inspect agent's step.

Run: ``python benchmarks/inspect_tools.py [--repeats 3]`` (needs the ``inspect`` extra).

A whole greedy startup year (preset default, seed 1: 277 commands) is played
through ``inspect_ai.eval`` by Inspect's mockllm model, scripted with the native
greedy agent's command log as one tool call per turn; Inspect's ``react`` loop
calls bizsim's tools. Printed, as medians over ``--repeats``:

1. per tool call, bizsim's own time inside Inspect: from Inspect calling the
   tool to its answer (the sample's episode looked up, the world stepped, the
   run directory appended, the result as JSON text);
2. per tool call, the time Inspect measured for it (its ``ToolEvent`` working
   time: the above plus Inspect's own bookkeeping of the call);
3. per tool call, bizsim's part alone: the same calls on an ``Episode``
   (recording into a run directory) without Inspect;
4. the whole eval's wall time per turn (mockllm, Inspect's loop and log included),
   for scale.

The year must end at $420,295.21, as the native greedy agent's does.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from typing import Any

from bizsim.runs import run_episode
from bizsim.runs.live import Episode

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibration import machine_line  # noqa: E402  (benchmarks/calibration.py)


#: bizsim's own time per tool call inside Inspect, appended by the timed tools.
OWN: list[float] = []


def greedy_calls() -> list[tuple[str, dict]]:
    """The native greedy year's commands as ``(tool name, arguments)``."""
    world = run_episode("startup", "default", "greedy", 1).final_world
    out = []
    for _, line in world.command_log():
        spec, kwargs = world.commands.parse(line)
        out.append((spec.tool_name, {k: v for k, v in kwargs.items() if v is not None and v != _default(spec, k)}))
    return out


def _default(spec, name):
    return next(p.default for p in spec.params if p.name == name)


def _timing_tools(own: list[float]) -> None:
    """Make every command tool the tasks build add its own run time (bizsim's code, inside Inspect) to ``own``."""
    from bizsim.surfaces.inspect_eval import tools

    build = tools._command_tool

    def timed(spec: Any) -> Any:
        tool = build(spec)
        inner = tool.tool

        async def execute(**kwargs: Any) -> str:
            t = time.perf_counter()
            out = await inner(**kwargs)
            own.append(time.perf_counter() - t)
            return out

        tool.tool = execute
        return tool

    tools._command_tool = timed


def through_inspect(calls: list[tuple[str, dict]], root: Path) -> tuple[list[float], list[float], float, float]:
    """Tool working times and bizsim's own time per call (s), eval wall time (s) and the sample's score."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    outputs = []
    for name, args in calls:
        out = ModelOutput.for_tool_call("mockllm/model", name, args)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        outputs.append(out)
    end = ModelOutput.from_content("mockllm/model", "done")
    end.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    outputs.append(end)
    model = get_model("mockllm/model", custom_outputs=outputs)
    start = time.perf_counter()
    [log] = inspect_eval("bizsim/startup", model=model, log_dir=str(root / "logs"), display="none",
                         task_args={"seeds": "1", "runs_dir": str(root / "runs")})
    wall = time.perf_counter() - start
    [sample] = log.samples
    times = [e.working_time for e in sample.events if e.event == "tool" and e.working_time is not None]
    own = OWN[-len(calls):]
    return times, own, wall, float(sample.scores["world_metric"].value)


def bizsim_alone(calls: list[tuple[str, dict]], root: Path) -> list[float]:
    """The same calls on a recorded live episode, no Inspect: seconds per call."""
    times = []
    with Episode("startup", "default", 1, out=root / "alone", surface="bench") as episode:
        for name, args in calls:
            t = time.perf_counter()
            episode.call_tool(name, args).text()
            times.append(time.perf_counter() - t)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import bizsim.surfaces.inspect_eval._registry  # noqa: F401  (Inspect's import, outside the timings)

    _timing_tools(OWN)

    calls = greedy_calls()
    print(machine_line())
    print(f"{len(calls)} tool calls per year (startup, preset default, seed 1), {args.repeats} repeats")
    tool_ms, own_ms, alone_ms, turn_ms = [], [], [], []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            times, own, wall, score = through_inspect(calls, Path(tmp))
            own_ms.append(statistics.median(own) * 1e3)
            assert 42029521 == score, f"the year ended at {score}, not $420,295.21"
            assert len(times) == len(calls), (len(times), len(calls))
            tool_ms.append(statistics.median(times) * 1e3)
            turn_ms.append(wall / (len(calls) + 1) * 1e3)
            alone_ms.append(statistics.median(bizsim_alone(calls, Path(tmp))) * 1e3)
    print(f"bizsim's tool inside Inspect (own time per call), median: {statistics.median(own_ms):.3f} ms")
    print(f"tool call as Inspect times it (ToolEvent working time), median: {statistics.median(tool_ms):.3f} ms")
    print(f"bizsim's part alone (Episode.call_tool, recorded), median: {statistics.median(alone_ms):.3f} ms")
    print(f"whole eval per turn (mockllm + react + log), median: {statistics.median(turn_ms):.2f} ms")


if __name__ == "__main__":
    main()
