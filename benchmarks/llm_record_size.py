"""How much do stored requests add to ``llm_calls.jsonl``, and how fast are they written and read back?

Run: ``python benchmarks/llm_record_size.py [--turns 2000]``.

Two scripted startup years through the LLM harness (preset default, seed 1, YC-Bench's history of K=20 rounds):
the greedy policy's year (117 calls) and a chatty one of ``--turns`` calls (status checks and a paragraph of
reasoning before each resume). For each it prints the bytes of ``llm_calls.jsonl`` as written and as bizsim
wrote it before requests were stored (the same records without their ``sent`` field), their ratio, the time
the harness spent encoding requests and the time :func:`bizsim.runs.llm_record.read_requests` takes to read
them all back.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' policies

from bizsim.agents.llm import ScriptedClient, sent  # noqa: E402
from bizsim.runs.llm_record import read_requests  # noqa: E402
from bizsim.runs.llm_run import run_llm  # noqa: E402
from bizsim.runs.runspec import RunSpec  # noqa: E402
from calibration import machine_line  # noqa: E402 -- benchmarks/calibration.py
from tests.llm_policies import chatty_policy, greedy_policy  # noqa: E402


def measure(out: Path, policy, options: dict) -> str:
    """One run's figures, as a line."""
    spent = [0.0]
    encode = sent.SentLog.agent

    def timed(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return encode(self, *args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start

    sent.SentLog.agent = timed
    try:
        run_llm(RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", **options}), out=out,
                client=ScriptedClient(policy))
    finally:
        sent.SentLog.agent = encode
    lines = (out / "llm_calls.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    now = sum(len(line) + 1 for line in lines)
    before = sum(len(json.dumps({k: v for k, v in r.items() if k != "sent"}, separators=(",", ":"))) + 1 for r in rows)
    start = time.perf_counter()
    requests = read_requests(rows)
    read_s = time.perf_counter() - start
    assert all(r.verified for r in requests)
    return (f"{len(rows):,} calls: {now:,} bytes with requests, {before:,} without ({now / before:.2f}x); "
            f"encoding {spent[0] * 1e3 / len(rows):.2f} ms a call, reading all back {read_s:.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2000)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bizsim-llm-record-"))
    try:
        print("greedy year:", measure(root / "greedy", greedy_policy, {}))
        print("chatty year:", measure(root / "chatty", chatty_policy((args.turns - 117) // 64 + 1),
                                      {"max_turns": args.turns, "auto_advance": 0, "max_stalled_turns": 1000}))
        print(machine_line())
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
