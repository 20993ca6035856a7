"""The verifiers 0.4 recipe of docs/rl.md, run as written on a clean Python: install, import, one rollout.

Run, from the repository's root: ``python benchmarks/verifiers04_recipe.py [--python PATH] [--keep DIR]``.

It reads the install lines from the block of docs/rl.md titled "not run: builds an environment with verifiers 0.4"
(so the page and this check cannot drift), runs each with the venv's path ``../vf04-venv`` replaced by a new
folder and ``python`` by ``--python`` (default: the interpreter under this one's venv, so the new venv holds only
what the lines install), then ``pip check``, then, with the new venv's Python, this file's ``--inside`` part:

- ``import bizsim_verifiers`` (the taskset id ``bizsim-verifiers``), verifiers is 0.4.0, bizsim is this checkout;
- the taskset loads (``load_environment``: two operation seeds, a two-turn window, each task's opening built by
  resetting an episode on its seed);
- one rollout through verifiers' own rollout code (``Env.serving``, ``Env.run_slot``), the model played by
  bizsim's loopback server: its reward is the metric change its run directory recorded, and the directory
  verifies.

It prints each step and its seconds. Nothing skips it: a missing Python, pip, network or package, or any check
that does not hold, stops it with exit status 1 and says which step.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rl.md"
TITLE = "not run: builds an environment with verifiers 0.4"
VENV = "../vf04-venv"  # the docs' venv path, replaced by a folder of the check's own


#: The packages named in the summary of the install (of the 160-odd it brings).
_NAMED = {"bizsim", "verifiers", "openenv", "mcp", "openai", "simpy", "numpy", "scipy", "attrs", "rich", "tomli-w"}


class RecipeFailed(Exception):
    """A step of the recipe or of the check did not hold."""


def recipe_lines(doc: Path = DOC) -> list[str]:
    """The shell lines of the docs' install block, comments dropped."""
    blocks = re.findall(r'^```bash title="([^"]*)"\n(.*?)^```', doc.read_text(), flags=re.MULTILINE | re.DOTALL)
    found = [body for title, body in blocks if title.startswith(TITLE)]
    if len(found) != 1:
        raise RecipeFailed(f"{doc} has {len(found)} blocks titled {TITLE!r}; expected exactly one")
    lines = [shlex.split(line, comments=True) for line in found[0].splitlines()]
    return [shlex.join(words) for words in lines if words]


def as_run(line: str, python: str, venv: Path) -> list[str]:
    """One docs line as the argument list to run here: its venv at ``venv``, its ``python`` the given one."""
    words = [str(venv) + w[len(VENV):] if w.startswith(VENV) else w for w in shlex.split(line)]
    if words[0] == "python":
        words[0] = python
    elif not words[0].startswith(str(venv)):
        raise RecipeFailed(f"the recipe's line {line!r} runs neither python nor a program of {VENV}: "
                           "teach benchmarks/verifiers04_recipe.py the new line")
    return words


def step(name: str, args: list[str], **kw: object) -> float:
    """Run one command; raise with its output's tail when it fails. Returns its seconds."""
    start = time.perf_counter()
    print(f"$ {shlex.join(args)}", flush=True)
    done = subprocess.run(args, check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          **kw)  # type: ignore[call-overload]
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
        raise RecipeFailed(f"{name} failed (exit {done.returncode}) after {seconds:.0f} s:\n{tail}")
    out = (done.stdout or "").strip().splitlines()
    for line in out if name == "check" else out[-1:]:
        if line.startswith("Successfully installed "):
            names = line.split()[2:]
            line = f"installed {len(names)} packages, among them " + ", ".join(
                n for n in names if n.rsplit("-", 1)[0].lower() in _NAMED)
        print(f"  {line}")
    print(f"  {name}: {seconds:.1f} s", flush=True)
    return seconds


def outside(python: str, keep: Path | None) -> None:
    """Build the venv from the docs' lines and run the check inside it."""
    if not Path(python).is_file():
        raise RecipeFailed(f"--python(={python!r}) is not a file: name a Python 3.11 or later")
    work = keep or Path(tempfile.mkdtemp(prefix="bizsim-vf04-"))
    work.mkdir(parents=True, exist_ok=True)
    venv = work / "vf04-venv"
    if venv.exists():
        raise RecipeFailed(f"{venv} exists already: the check builds its venv afresh (remove it or pick --keep)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")}
    total = 0.0
    lines = recipe_lines()
    print(f"recipe from {DOC.relative_to(ROOT)}: {len(lines)} lines; venv {venv}; python {python}; "
          f"load average {load_average()}")
    for line in lines:
        total += step("install", as_run(line, python, venv), cwd=ROOT, env=env)
    total += step("pip check", [str(venv / "bin" / "python"), "-m", "pip", "check"], cwd=ROOT, env=env)
    total += step("check", [str(venv / "bin" / "python"), str(Path(__file__).resolve()), "--inside", str(work)],
                  cwd=work, env=env)
    print(f"recipe and check: {total:.0f} s in all, load average {load_average()} at the end; the venv is in {work}")


def load_average() -> str:
    """The machine's 1, 5 and 15 minute load averages, as the kernel reports them (``?`` where it does not)."""
    path = Path("/proc/loadavg")
    return " ".join(path.read_text().split()[:3]) if path.exists() else "?"


def inside(work: Path) -> None:
    """In the recipe's venv: import the taskset, load it, play one rollout against the loopback model."""
    import asyncio
    from importlib.metadata import version

    start = time.perf_counter()
    import bizsim.runs
    import bizsim_verifiers
    from verifiers.v1 import EvalClientConfig, ModelContext
    from verifiers.v1.env import RunSlot

    if version("verifiers") != "0.4.0":
        raise RecipeFailed(f"verifiers is {version('verifiers')}, the recipe pins 0.4.0")
    if Path(bizsim.runs.__file__).resolve().parent.parent != ROOT:
        raise RecipeFailed(f"bizsim comes from {bizsim.runs.__file__}, not this checkout ({ROOT})")
    print(f"import bizsim_verifiers (taskset id {bizsim_verifiers.TASKSET_ID!r}), verifiers {version('verifiers')}, "
          f"mcp {version('mcp')}, openai {version('openai')}: {time.perf_counter() - start:.1f} s")

    from bizsim.agents.llm.loopback import LoopbackLLMServer
    from bizsim.runs.rundir import read_record
    from bizsim.runs.verify import verify_run_dir

    start = time.perf_counter()
    env = bizsim_verifiers.load_environment(world="operation", seeds="1-2", window={"turns": 2}, out=str(work / "runs"))
    tasks = list(env.taskset)
    if [t.data.seed for t in tasks] != [1, 2]:
        raise RecipeFailed(f"the taskset holds seeds {[t.data.seed for t in tasks]}, not [1, 2]")
    print(f"taskset loaded: {len(tasks)} tasks ({', '.join(t.data.name for t in tasks)}): "
          f"{time.perf_counter() - start:.1f} s")

    def play(messages: list, tools: list) -> dict:
        """An intervention, then the end of the day."""
        n = sum(1 for m in messages if m["role"] == "assistant")
        return {"content": None, "tool_calls": [{"name": "creator_incentive" if n % 2 == 0 else "task_done",
                                                 "arguments": {}}]}

    async def roll(url: str) -> object:
        ctx = ModelContext(client=EvalClientConfig(base_url=url, api_key_var="LOOPBACK_KEY"), model="scripted")
        async with env.serving():
            return await env.run_slot(RunSlot(tasks[0]), ctx)

    start = time.perf_counter()
    os.environ.setdefault("LOOPBACK_KEY", "sk-loopback")
    with LoopbackLLMServer(play, lifetime_s=300) as server:
        episode = asyncio.run(roll(server.url))
    if not episode.ok:  # type: ignore[attr-defined]
        raise RecipeFailed(f"the rollout failed: {episode.errors}")  # type: ignore[attr-defined]
    (trace,) = episode.traces  # type: ignore[attr-defined]
    run = Path(trace.info["bizsim"]["run"])
    record = read_record(run)
    change = record.summary["metric_value"] - trace.info["bizsim"]["start_metric"]
    reward = trace.rewards["metric_change"].score
    if abs(change - reward) > 1e-9 or not verify_run_dir(run).ok:
        raise RecipeFailed(f"rollout reward {reward} vs recorded metric change {change}; "
                           f"verify ok: {verify_run_dir(run).ok}")
    print(f"one rollout (seed 1, 2 turns, verifiers' null harness, loopback model): stop {trace.stop_condition}, "
          f"reward {reward:.2f} = the recorded metric change, {record.live['calls']} tool calls, run verifies: "
          f"{time.perf_counter() - start:.1f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=getattr(sys, "_base_executable", sys.executable),
                        help="the clean Python to build the venv with (default: the one under this venv)")
    parser.add_argument("--keep", type=Path, help="build in this folder and keep it (default: a temporary one)")
    parser.add_argument("--inside", type=Path, help=argparse.SUPPRESS)  # the part run by the recipe's venv
    args = parser.parse_args()
    try:
        if args.inside is not None:
            inside(args.inside)
        else:
            outside(args.python, args.keep)
    except RecipeFailed as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    if args.inside is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from calibration import machine_line  # benchmarks/calibration.py

        print(machine_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
