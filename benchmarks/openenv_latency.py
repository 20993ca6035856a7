"""What one OpenEnv step costs a trainer: per-step latency with many episodes open on one `bizsim openenv` server.

Run: ``python benchmarks/openenv_latency.py [--episodes 32] [--steps 200] [--world operation]`` (needs the
``openenv`` extra).

It starts ``bizsim openenv WORLD --port 0`` in its own process (recording every episode into a temporary folder,
as a real server does), opens ``--episodes`` WebSocket sessions with OpenEnv's own client, all at once in one
event loop, resets each on its own seed, and has each send ``--steps`` steps as fast as answers come back
(operation: an intervention as a tool call, then ``task_done`` as a command line; startup: ``company status``,
then ``sim resume``). A step's latency is the client's round trip: sending the action until its observation is
parsed. Printed: the median and 99th percentile over all steps (milliseconds), the steps per second of the
whole server, and that every episode's run directory verifies.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from calibration import machine_line  # benchmarks/calibration.py

ACTIONS = {
    "operation": ({"tool": "creator_incentive", "arguments": {}}, {"command": "task_done"}),
    "startup": ({"command": "company status"}, {"command": "sim resume"}),
}


def _start(world: str, out: Path, episodes: int) -> tuple[subprocess.Popen, int]:
    # The server's log goes to a file: a pipe nobody reads would fill and stall the server.
    log = out.parent / f"{out.name}.log"
    with log.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "bizsim.cli", "openenv", world, "--out", str(out), "--port",
                                 "0", "--max-episodes", str(episodes)], stderr=sink)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        found = re.search(r"at http://127\.0\.0\.1:(\d+)", log.read_text())
        if found:
            return proc, int(found.group(1))
        time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the server did not start: {log.read_text()[-2000:]}")


async def _episode(url: str, seed: int, steps: int, actions: tuple[dict, dict], times: list[float]) -> None:
    from openenv.core.generic_client import GenericEnvClient

    async with GenericEnvClient(base_url=url, message_timeout_s=600) as env:
        await env.reset(seed=seed)
        for i in range(steps):
            t = time.perf_counter()
            result = await env.step(actions[i % 2])
            times.append(time.perf_counter() - t)
            if result.done:
                await env.reset(seed=seed + 1000 * (i + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=32)
    parser.add_argument("--steps", type=int, default=200, help="steps per episode")
    parser.add_argument("--world", choices=sorted(ACTIONS), default="operation")
    args = parser.parse_args()
    from bizsim.runs.verify import verify_run_dir

    with tempfile.TemporaryDirectory() as tmp:
        proc, port = _start(args.world, Path(tmp) / "runs", args.episodes)
        try:
            times: list[float] = []
            url = f"http://127.0.0.1:{port}"

            async def all_at_once() -> Any:
                return await asyncio.gather(*(_episode(url, seed, args.steps, ACTIONS[args.world], times)
                                              for seed in range(1, args.episodes + 1)))

            began = time.perf_counter()
            asyncio.run(all_at_once())
            wall = time.perf_counter() - began
        finally:
            proc.terminate()
            proc.wait(30)
        runs = sorted(p for p in (Path(tmp) / "runs").iterdir() if p.is_dir())
        verified = sum(verify_run_dir(p).ok for p in runs)
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    print(f"bizsim openenv {args.world}: {args.episodes} concurrent episodes x {args.steps} steps "
          f"({len(times)} steps in {wall:.1f} s, {len(times) / wall:.0f} steps/s)")
    print(f"  per-step latency: median {statistics.median(times) * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms")
    print(f"  run directories: {len(runs)}, verified {verified}")
    print(machine_line())


if __name__ == "__main__":
    main()
