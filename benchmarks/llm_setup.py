"""How fast does a set-up mistake of an LLM run fail? Seconds from `bizsim run` to its one-line error.

Run: ``python benchmarks/llm_setup.py [--repeats 5]``.

Times, in fresh processes, ``bizsim run startup --agent llm ...`` with each set-up mistake ``docs/llm.md`` promises
to name in well under a second (each fails before litellm is imported): ``--api-key-env VAR`` with ``VAR`` unset,
``openai/gpt-4o-mini`` with ``OPENAI_API_KEY`` unset, a provider litellm does not know (``nosuchprovider/x``), and
an ``--api-base`` where nothing listens (``http://127.0.0.1:9/v1``, with a key set); and, for scale, a bare
``import litellm`` (what the errors used to wait for). Prints medians and the machine's pace.
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
    env = {k: v for k, v in os.environ.items() if k not in ("BIZSIM_BENCH_UNSET", "OPENAI_API_KEY")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    run = [sys.executable, "-m", "bizsim.cli", "run", "startup", "--agent", "llm", "--seed", "1"]
    cases = [
        ("unset --api-key-env", ["--model", "openai/gpt-4o-mini", "--api-key-env", "BIZSIM_BENCH_UNSET"], env),
        ("no OPENAI_API_KEY", ["--model", "openai/gpt-4o-mini"], env),
        ("unknown provider", ["--model", "nosuchprovider/x"], env),
        ("nothing at --api-base", ["--model", "openai/gpt-4o-mini", "--api-base", "http://127.0.0.1:9/v1"],
         {**env, "OPENAI_API_KEY": "sk-benchmark"}),
    ]
    for label, flags, case_env in cases:
        errors = [seconds([*run, *flags], case_env) for _ in range(args.repeats)]
        print(f"{label}: {statistics.median(t for t, _ in errors):.2f} s to: {errors[0][1][:110]}")
    imports = [seconds([sys.executable, "-c", "import litellm"], env)[0] for _ in range(args.repeats)]
    print(f"import litellm alone: {statistics.median(imports):.2f} s  (medians of {args.repeats})")
    print(machine_line())


if __name__ == "__main__":
    main()
