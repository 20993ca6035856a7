"""How much does the LLM harness cost on top of the model? Time per turn and concurrent throughput.

Run: ``python benchmarks/llm_harness.py [--repeats 5] [--episodes 16] [--delay 0.2] [--turns 40]``.

1. Harness time per turn, model time excluded: a full startup year (preset
   default, seed 1) played by the scripted greedy policy through an
   in-process client; the time spent inside the client (the "model") is
   subtracted. Measured without a run directory and with one (every call and
   command appended to disk as it happens).
2. Turn throughput of N concurrent episodes against a loopback
   OpenAI-compatible server (in its own process, as a real model server
   would be) that answers after ``--delay`` seconds, through litellm and real
   HTTP, relative to one episode alone. Each episode runs ``--turns`` turns.

Prints medians over ``--repeats``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' loopback server and policies

from bizsim.agents.llm import LiteLLMClient, LLMAgent, LLMAgentConfig, ScriptedClient
from bizsim.runs.llm_run import RunSpec, run_llm, run_llm_episodes
from bizsim.models.startup import StartupWorld

from calibration import machine_line  # benchmarks/calibration.py
from tests.llm_policies import greedy_policy


class _Timed:
    """Wraps a client and adds up the time spent inside it (the model's time)."""

    def __init__(self, inner):
        self.inner, self.model, self.endpoint, self.spent = inner, inner.model, inner.endpoint, 0.0

    def complete(self, messages, tools, **params):
        start = time.perf_counter()
        try:
            return self.inner.complete(messages, tools, **params)
        finally:
            self.spent += time.perf_counter() - start


def record_answers() -> list[dict]:
    """The greedy policy's answers over a year, so the timed runs replay them instantly."""
    answers: list[dict] = []

    def policy(messages, tools):
        answers.append(greedy_policy(messages, tools))
        return answers[-1]

    StartupWorld("default", 1).run(LLMAgent(client=ScriptedClient(policy)))
    return answers


def harness_ms_per_turn(answers: list[dict], run_dir: Path | None) -> tuple[float, int]:
    """Milliseconds of harness work per turn over a greedy year (instant model), and the turns.

    The run goes through ``run_llm`` (the one execute path), so the recorder writes the run directory when one is
    given; the world's construction is inside the timed span in both cases.
    """
    client = _Timed(ScriptedClient(list(answers)))
    start = time.perf_counter()
    result = run_llm(RunSpec("startup", "default", "llm", 1), client=client, out=run_dir)
    wall = time.perf_counter() - start
    turns = result.llm["total"]["turns"]
    return 1000 * (wall - client.spent) / turns, turns


def _serve(port_queue, delay: float, lifetime: float) -> None:
    from tests.llm_server import LoopbackLLMServer

    server = LoopbackLLMServer(greedy_policy, delay_s=delay, lifetime_s=lifetime).start()
    port_queue.put(server.url)
    time.sleep(lifetime)


def throughput(url: str, episodes: int, turns: int) -> float:
    """Turns per second of ``episodes`` concurrent episodes of ``turns`` turns each."""
    cfg = LLMAgentConfig(model="hosted_vllm/bench", api_base=url, max_turns=turns, log_raw=False)
    specs = [RunSpec("startup", "default", "llm", 1 + i, agent_options=cfg) for i in range(episodes)]
    clients = [LiteLLMClient(cfg.model, api_base=url, api_key="bench", keep_raw=False) for _ in specs]
    start = time.perf_counter()
    results = run_llm_episodes(specs, clients=clients, max_concurrency_per_endpoint=episodes)
    wall = time.perf_counter() - start
    return sum(r.llm["total"]["turns"] for r in results) / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.2, help="the server's answer delay in seconds")
    parser.add_argument("--turns", type=int, default=40, help="turns per episode in the throughput test")
    args = parser.parse_args()

    answers = record_answers()
    plain = [harness_ms_per_turn(answers, None) for _ in range(args.repeats)]
    with tempfile.TemporaryDirectory() as tmp:
        logged = [harness_ms_per_turn(answers, Path(tmp, f"run{i}")) for i in range(args.repeats)]
    turns = plain[0][1]
    print(f"harness time per turn, model excluded ({turns} turns, a greedy year):")
    print(f"  no run directory   {statistics.median(p[0] for p in plain):7.3f} ms  (median of {args.repeats})")
    print(f"  with run directory {statistics.median(p[0] for p in logged):7.3f} ms  (every call and command on disk)")

    ctx = mp.get_context("spawn")
    urls = ctx.Queue()
    lifetime = 60 + args.repeats * args.turns * args.delay * 3
    server = ctx.Process(target=_serve, args=(urls, args.delay, lifetime), daemon=True)
    server.start()
    try:
        url = urls.get(timeout=60)
        from bizsim.agents.llm.litellm_client import import_litellm

        import_litellm()
        throughput(url, 1, 3)  # warm litellm's lazy set-up
        one = [throughput(url, 1, args.turns) for _ in range(args.repeats)]
        many = [throughput(url, args.episodes, args.turns) for _ in range(args.repeats)]
    finally:
        server.terminate()
        server.join()
    m1, mn = statistics.median(one), statistics.median(many)
    print(f"throughput against a loopback server answering after {args.delay * 1000:.0f} ms (litellm, real HTTP):")
    print(f"  1 episode          {m1:7.2f} turns/s")
    print(f"  {args.episodes} episodes        {mn:7.2f} turns/s  = {mn / m1:.1f}x one episode (median of {args.repeats})")
    print(machine_line())


if __name__ == "__main__":
    main()
