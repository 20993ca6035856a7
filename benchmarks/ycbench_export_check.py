"""Run the reference YC-Bench harness with a scripted model, and keep its results file as the export test's fixture.

The model is ``tests.llm_policies.export_policy`` played by bizsim's loopback server on 127.0.0.1; the reference's
own ``yc-bench run`` (from the environment you give, e.g. a venv with the checkout installed) plays it on preset
``default`` with ``max_turns`` set by a small config file that extends ``default``. No API key is used. The file
written (``--out``) keeps the results file's top level and ``time_series`` whole, and per turn its number, output
and commands without their results (the prompts are the reference's words, which bizsim does not copy):
``tests/test_ycbench_export.py`` compares bizsim's export of the same run with it field by field.

    python -m benchmarks.ycbench_export_check --yc-bench /path/to/venv/bin/yc-bench --seed 2 --turns 40 \\
        --out tests/data/ycbench_reference/export_policy_seed2_40turns.json [--keep results.json]

On Python older than 3.12 give the reference's interpreter Python 3.12's float ``sum`` (its ``sitecustomize``),
as benchmarks/fidelity does, or its runs may part from bizsim's by a rounding.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from bizsim.agents.llm.loopback import LoopbackLLMServer

from tests.llm_policies import export_policy

MODEL = "openai/exporter"


def run_reference(yc_bench: str, seed: int, turns: int) -> dict:
    """The reference's results file of the scripted run."""
    work = Path(tempfile.mkdtemp(prefix="ycbench-export-"))
    try:
        (work / "export.toml").write_text(f'extends = "default"\n\n[loop]\nmax_turns = {turns}\n')
        with LoopbackLLMServer(export_policy(), lifetime_s=7200, max_requests=100_000) as server:
            env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
            env.update(OPENAI_BASE_URL=server.url, OPENAI_API_KEY="unused", LITELLM_LOCAL_MODEL_COST_MAP="True")
            subprocess.run([yc_bench, "run", "--model", MODEL, "--seed", str(seed), "--config", "export.toml",
                            "--no-live"], cwd=work, env=env, check=False, capture_output=True)
        found = list((work / "results").glob("yc_bench_result_*.json"))
        if not found:
            raise SystemExit(f"the reference wrote no results file in {work}/results")
        return json.loads(found[0].read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)


def trimmed(data: dict) -> dict:
    """What the test compares: everything but the prompts and the commands' results."""
    turns = [{"turn": t["turn"], "agent_output": t["agent_output"],
              "commands": [c.split(" -> ", 1)[0] for c in t["commands_executed"]]} for t in data.get("transcript", [])]
    return {k: turns if k == "transcript" else v for k, v in data.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--yc-bench", required=True, help="the reference's yc-bench command")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--turns", type=int, default=40)
    ap.add_argument("--out", required=True, help="the trimmed file to write")
    ap.add_argument("--keep", help="also keep the whole results file here")
    args = ap.parse_args()
    data = run_reference(args.yc_bench, args.seed, args.turns)
    if args.keep:
        Path(args.keep).write_text(json.dumps(data, indent=2) + "\n")
    Path(args.out).write_text(json.dumps(trimmed(data), indent=1) + "\n")
    print(args.out)


if __name__ == "__main__":
    main()
