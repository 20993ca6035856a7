"""What a fork and an RL step cost: restoring a startup world at turn 30, and one verifiers env step.

Run: ``python benchmarks/fork.py [--repeats 30] [--steps 2000]`` (the step figures need the ``rl`` extra).

Restoring (medians of repeats, milliseconds), for the ``greedy`` and ``planner`` agents on preset ``default``,
seed 1, at the start of turn 30:

- **restore(snapshot)**: :func:`bizsim.simcore.snapshot.restore`, what a fork, ``pickle`` and ``deepcopy`` do;
- **replay 30 turns' commands**: the bare replay loop over the same log prefix (no snapshot value around it);
- **play 30 turns**: the agent itself playing its first 30 turns on a fresh world (what a restore replaces);
- **fresh world**: building the world alone (generation), part of each of the above.

Target: restoring at turn 30 costs no more than replaying 30 turns' commands, and under 10 ms here.

One env step through the verifiers adapter, excluding the model (microseconds, median of ``--steps`` steps):
``BizSimVerifiersEnv.env_response`` on one tool call, in one running event loop, for an operation day
(``task_done``: the day passes) and a startup query (``company_status``). Target: under 1 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from bizsim.agents import make_agent
from bizsim.simcore.registry import world_spec
from bizsim.simcore.replay import replay
from bizsim.simcore.snapshot import restore
from bizsim.simcore.watch import watch
from calibration import machine_line  # benchmarks/calibration.py

TURN = 30


def _ms(fn: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def _play_turns(agent: str, turns: int) -> Any:
    """The agent's first ``turns`` turns on a fresh world (stopped at the start of the next)."""
    world = world_spec("startup").make("default", 1)
    count = [0]

    def woken(_w: Any) -> bool:
        count[0] += 1
        return count[0] >= turns

    world.run(watch(make_agent("startup", agent), after=woken))
    return world


def restoring(repeats: int) -> None:
    spec = world_spec("startup")
    print(f"restoring a startup world at the start of turn {TURN} (median of {repeats}, ms)")
    print(f"{'agent':9s} {'commands':>8s} {'restore':>8s} {'replay':>8s} {'play':>8s} {'fresh':>8s}")
    for agent in ("greedy", "planner"):
        world = _play_turns(agent, TURN)
        snap = world.snapshot()
        again = restore(snap)
        assert (again.state(), again.trajectory.to_jsonl()) == (world.state(), world.trajectory.to_jsonl())
        cls, log = spec.world_class(), snap.log
        fresh = _ms(lambda cls=cls: cls("default", 1), repeats)
        t_restore = _ms(lambda snap=snap: restore(snap), repeats)
        t_replay = _ms(lambda cls=cls, log=log: replay(lambda: cls("default", 1), log), repeats)
        t_play = _ms(lambda agent=agent: _play_turns(agent, TURN), repeats)
        print(f"{agent:9s} {len(log):8d} {t_restore:8.2f} {t_replay:8.2f} {t_play:8.2f} {fresh:8.2f}")


def stepping(steps: int) -> None:
    try:
        import verifiers as vf
        from bizsim.surfaces.verifiers_env import load_environment
    except ImportError:
        print("verifiers step: skipped (install the rl extra)")
        return

    async def measure(world: str, tool: str) -> list[float]:
        env = load_environment(world=world, seeds="1", eval_seeds="2")
        state: dict[str, Any] = {"info": {"seed": 1}, "trajectory_id": "bench", "prompt": []}
        await env.setup_state(state)  # type: ignore[arg-type]
        message = vf.AssistantMessage(content=None, tool_calls=[vf.ToolCall(id="c", name=tool, arguments="{}")])
        times = []
        for _ in range(steps):
            if env.live["bench"].done:
                env.live["bench"].reset()
            t = time.perf_counter()
            await env.env_response([message], state)  # type: ignore[arg-type]
            times.append(time.perf_counter() - t)
        return times

    print(f"one verifiers env step, excluding the model (median of {steps}, us)")
    for world, tool in (("operation", "task_done"), ("startup", "company_status")):
        times = asyncio.run(measure(world, tool))
        print(f"  {world:9s} {tool:15s} median {statistics.median(times) * 1e6:7.1f}  "
              f"p90 {sorted(times)[int(0.9 * len(times))] * 1e6:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    restoring(args.repeats)
    stepping(args.steps)
    print(machine_line())


if __name__ == "__main__":
    main()
