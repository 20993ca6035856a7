"""How fast does a set-up mistake of an LLM run fail? Seconds from `bizsim run` to its one-line error.

Run: ``python benchmarks/llm_setup.py [--repeats 5]``.

Times, in fresh processes, ``bizsim run startup --agent llm --model openai/gpt-4o-mini --api-key-env VAR`` with
``VAR`` unset (it fails before litellm is imported), and, for scale, a bare ``import litellm`` (what the error
used to wait for). Prints medians and the machine's pace.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibration import machine_line  # benchmarks/calibration.py


def seconds(args: list[str], env: dict) -> tuple[float, str]:
    """Wall seconds of one command in a fresh process, and its stderr's first line."""
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    return time.perf_counter() - start, (done.stderr.strip().splitlines() or [""])[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "BIZSIM_BENCH_UNSET"}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    run = [sys.executable, "-m", "bizsim.cli", "run", "startup", "--agent", "llm", "--model", "openai/gpt-4o-mini",
           "--api-key-env", "BIZSIM_BENCH_UNSET"]
    errors = [seconds(run, env) for _ in range(args.repeats)]
    imports = [seconds([sys.executable, "-c", "import litellm"], env)[0] for _ in range(args.repeats)]
    print(f"unset --api-key-env: {statistics.median(t for t, _ in errors):.2f} s to: {errors[0][1]}")
    print(f"import litellm alone: {statistics.median(imports):.2f} s  (median of {args.repeats})")
    print(machine_line())


if __name__ == "__main__":
    main()
