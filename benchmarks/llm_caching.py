"""What prompt caching saves on a YC-Bench year: cached share of input tokens and dollars, before and after.

Run: ``python benchmarks/llm_caching.py [--seed 1] [--block 10]``.

A full startup year (preset default, K = 20 rounds of history) is played by the scripted greedy policy
through litellm and real HTTP against the loopback server, which answers in each provider's shape and bills
prompts as that provider's prompt cache would (a prefix cache: Anthropic's only up to ``cache_control``
marks, at 1.25x for writes; OpenAI's by itself, in 128-token blocks from 1,024 tokens). Dollars are
litellm's prices of the actual answers for two priced models of its price map. Per model:

- ``unmarked``: requests sent as before this change (``prompt_caching=false``);
- ``marked``: the default (cache marks for Claude; OpenAI caches by itself either way);
- ``marked + blocks``: also ``history_block_rounds=B``, a window that drops B old rounds at once (it changes
  what the model sees).

``full price`` is the run priced as bizsim priced it before (every prompt token at the input price). The
policy makes the same decisions in every setting (it reads only the last round), so the runs differ only in
what is sent and billed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' policies

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm
from bizsim.agents.llm import LiteLLMClient, LLMAgentConfig
from bizsim.agents.llm.loopback import LoopbackLLMServer
from bizsim.runs import RunSpec, run_llm

from calibration import machine_line  # benchmarks/calibration.py
from tests.llm_policies import greedy_policy

#: model -> (the loopback's dialect, its cache, the api_base suffix litellm wants)
MODELS = {
    "anthropic/claude-sonnet-4-5": ("anthropic", "explicit", ""),
    "openai/gpt-4.1": ("openai", "auto", "/v1"),
}


def year(model: str, seed: int, caching: bool, block: int | None) -> dict:
    """One year's figures: turns, tokens, cached share, dollars billed and at the full input price."""
    dialect, cache, suffix = MODELS[model]
    with LoopbackLLMServer(greedy_policy, dialect=dialect, cache=cache, lifetime_s=3600) as server, \
            tempfile.TemporaryDirectory() as tmp:
        base = server.url.removesuffix("/v1") + suffix
        options = LLMAgentConfig(model=model, api_base=base, prompt_caching=caching, history_block_rounds=block)
        client = LiteLLMClient(model, api_base=base, api_key="sk-loopback", prompt_caching=caching, keep_raw=False)
        start = time.perf_counter()
        result = run_llm(RunSpec("startup", "default", "llm", seed, agent_options=options), out=Path(tmp, "run"),
                         client=client)
        wall = time.perf_counter() - start
        calls = [json.loads(line) for line in Path(tmp, "run", "llm_calls.jsonl").read_text().splitlines()]
    full = 0.0
    for c in calls:
        usage = c["response"]["usage"]
        p, q = litellm.cost_per_token(model=model, prompt_tokens=usage["prompt_tokens"],
                                      completion_tokens=usage["completion_tokens"])
        full += p + q
    total = result.llm["total"]
    return {
        "turns": total["turns"], "prompt_tokens": total["prompt_tokens"],
        "cached_share": total["cache_read_tokens"] / total["prompt_tokens"], "cost_usd": total["cost_usd"],
        "full_price_usd": full, "ending": result.terminal_reason, "wall_s": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--block", type=int, default=10, help="B of the block-dropping window")
    args = parser.parse_args()
    from importlib.metadata import version

    print(f"YC-Bench year, preset default, seed {args.seed}, K = 20, greedy policy; dollars from litellm "
          f"{version('litellm')}'s price map")
    print(f"{'model':30} {'setting':22} {'turns':>6} {'prompt tok':>11} {'cached':>7} {'$ billed':>9} "
          f"{'$ full price':>12} {'wall s':>7}")
    for model in MODELS:
        for label, caching, block in (("unmarked", False, None), ("marked", True, None),
                                      (f"marked + blocks of {args.block}", True, args.block)):
            r = year(model, args.seed, caching, block)
            print(f"{model:30} {label:22} {r['turns']:>6} {r['prompt_tokens']:>11,} {r['cached_share']:>7.1%} "
                  f"{r['cost_usd']:>9.2f} {r['full_price_usd']:>12.2f} {r['wall_s']:>7.1f}")
    print(machine_line())


if __name__ == "__main__":
    main()
