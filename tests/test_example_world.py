"""A world from another package works everywhere a built-in world does: examples/lemonade, installed into a venv.

One module-scoped fixture makes a virtual environment that sees this bizsim (``--system-site-packages``) and
installs ``examples/lemonade`` into it (``pip install --no-deps --no-build-isolation``: offline). Every check then
runs that venv's Python in a subprocess, so the world is found only through its ``bizsim.worlds`` entry point.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

# Installing and running about fifteen subprocesses takes 20-40 s on a 2-core machine.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("example_world")]

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "lemonade"
TIMEOUT = 300


class Venv:
    """The venv with bizsim-lemonade installed, and how to run things in it."""

    def __init__(self, root: Path, python: Path, source: Path) -> None:
        self.root, self.python, self.source = root, python, source
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON", "HYPOTHESIS_"))}
        env["PYTHONNOUSERSITE"] = "1"
        env["PYTHONIOENCODING"] = "utf-8"
        self.env = env

    def run(self, *args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
        """``python ARGS`` in the venv, from a neutral folder (so nothing imports from the source tree)."""
        return subprocess.run([str(self.python), *args], input=stdin, capture_output=True, text=True, check=False,
                              cwd=cwd or self.root, env=self.env, timeout=TIMEOUT)

    def bizsim(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        """The ``bizsim`` command of the venv (``python -m bizsim.cli``: bizsim's script is not in this venv)."""
        return self.run("-m", "bizsim.cli", *args, stdin=stdin)

    def script(self, code: str) -> dict:
        """Run ``code`` in the venv; it prints one JSON object last, which is returned."""
        out = self.run("-c", textwrap.dedent(code))
        assert 0 == out.returncode, out.stderr[-3000:]
        return json.loads(out.stdout.strip().splitlines()[-1])


def _ok(out: subprocess.CompletedProcess) -> str:
    assert 0 == out.returncode, f"exit {out.returncode}\nstdout: {out.stdout[-2000:]}\nstderr: {out.stderr[-3000:]}"
    return out.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """A venv seeing this bizsim, with examples/lemonade installed into it (a copy: the build writes files)."""
    root = tmp_path_factory.mktemp("example-world")
    source = root / "lemonade"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__",
                                                                   ".pytest_cache", ".hypothesis"))
    home = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(home)], check=True,
                   timeout=TIMEOUT)
    python = home / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if sys.prefix != sys.base_prefix:
        # The suite runs in a venv itself: its packages (this bizsim) are not the new venv's system site-packages
        # (those are the base interpreter's), so hand them on, .pth files (editable installs) included.
        site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
        Path(site, "_bizsim_parent_env.pth").write_text(
            "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in ours) + "\n", encoding="utf-8")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-build-isolation",
         "--no-index", "--disable-pip-version-check", "--quiet", str(source)],
        capture_output=True, text=True, check=False, timeout=TIMEOUT,
    )
    _ok(install)
    return Venv(root, python, source)


def test_the_world_is_found_through_its_entry_point(venv: Venv) -> None:
    """`bizsim list` shows the installed world with its presets and agents, and nothing failed to load."""
    out = venv.bizsim("list")
    text = _ok(out)
    assert "lemonade (lemonade-v1)  A lemonade stand" in text
    assert "  presets: default, heatwave\n  agents:  steady, llm\n" in text.split("lemonade (lemonade-v1)")[1]
    assert "cannot be loaded" not in out.stderr


def test_the_registry_gives_the_world_its_agents_and_contract(venv: Venv) -> None:
    """Through the registry: check_world passes, the agent's options are typed and checked, presets load."""
    found = venv.script("""
        import json
        from bizsim.agents import make_agent
        from bizsim.simcore.check import check_world
        from bizsim.simcore.errors import ConfigError
        from bizsim.simcore.registry import world_spec
        spec = world_spec("lemonade-v1")
        check_world(lambda seed: spec.make("heatwave", seed))
        check_world(lambda seed: spec.make("default", seed), agent=make_agent("lemonade", "steady", {"cover": 1.2}))
        refused = []
        for options in ({"price_cents": 0}, {"price_cents": "cheap"}, {"colour": "pink"}):
            try:
                make_agent("lemonade", "steady", options)
            except ConfigError as exc:
                refused.append(str(exc))
        print(json.dumps({"module": type(spec.make()).__module__, "presets": spec.preset_names(),
                          "refused": refused, "id": spec.benchmark_id}))
    """)
    assert ("bizsim_lemonade.world", ["default", "heatwave"], "lemonade-v1") == (
        found["module"], found["presets"], found["id"])
    assert 3 == len(found["refused"]) and "price_cents(=0) must be >= 1" in found["refused"][0]


def test_run_and_verify(venv: Venv, tmp_path: Path) -> None:
    """`bizsim run lemonade --seed 1 --out DIR` plays its default agent; `bizsim verify DIR` replays it byte for byte."""
    run_dir = tmp_path / "run"
    text = _ok(venv.bizsim("run", "lemonade", "--seed", "1", "--out", str(run_dir)))
    assert "lemonade-v1  preset=default  seed=1  agent=steady" in text and "final cash: $" in text
    assert {"config.toml", "result.json", "commands.jsonl", "trajectory.jsonl"} <= {p.name for p in run_dir.iterdir()}
    assert _ok(venv.bizsim("verify", str(run_dir))).startswith(f"ok      {run_dir}: 1 episode(s)")
    result = json.loads(_ok(venv.bizsim("run", "lemonade", "--preset", "heatwave", "--seed", "1", "--json")))
    assert ("final_cash_cents", "horizon_end") == (result["metric"], result["terminal_reason"])
    assert result["final_cash_cents"] == result["metric_value"] > 5_000


def test_sweep_with_the_worlds_default_agent(venv: Venv, tmp_path: Path) -> None:
    """`bizsim sweep --world lemonade` with no --agent plays the world's own default agent, as `bizsim run` does."""
    out = venv.bizsim("sweep", "--world", "lemonade", "--seeds", "1-2", "--backend", "serial", "--out",
                      str(tmp_path / "S"))
    assert "2 runs: 2 run now (0 failed)" in _ok(out)


@pytest.fixture(scope="module")
def sweep_dir(venv: Venv) -> Path:
    """A two-seed sweep of the steady agent, serial backend."""
    out = venv.root / "S"
    text = _ok(venv.bizsim("sweep", "--world", "lemonade", "--agent", "steady", "--seeds", "1-2", "--backend",
                           "serial", "--out", str(out)))
    assert "2 runs: 2 run now (0 failed)" in text
    return out


def test_sweep_report(venv: Venv, sweep_dir: Path) -> None:
    """`bizsim report S` writes the HTML report, with the world's own series as figures."""
    report = Path(_ok(venv.bizsim("report", str(sweep_dir))).strip())
    html = report.read_text(encoding="utf-8")
    assert "lemonade" in html and "Final cash (dollars)" in html  # the metric, in words
    assert "Profit (dollars)" in html  # the world's own figures, from its registration, in the outcomes table
    assert {"01-lemonade-daily-cash-cents.png", "02-lemonade-daily-cups-sold.png"} <= {
        p.name for p in (report.parent / "figures").iterdir()}


def test_sweep_load(venv: Venv, sweep_dir: Path) -> None:
    """`bizsim.analysis.load(S)` has the runs, the summary's figures as columns, its series and the world's events."""
    found = venv.script(f"""
        import json
        from bizsim.analysis import load
        res = load({str(sweep_dir)!r})
        runs = res.runs.sort_values("seed")
        print(json.dumps({{
            "rows": [[r.world, r.agent, int(r.seed), r.status, r.metric, float(r.metric_value), int(r.final_cash_cents)]
                     for r in runs.itertuples()],
            "series": sorted(set(res.series["name"])),
            "events": sorted(set(res.events.loc[res.events["kind"] == "event", "name"])),
        }}))
    """)
    rows = found["rows"]
    assert [["lemonade", "steady", 1, "ok", "final_cash_cents"], ["lemonade", "steady", 2, "ok", "final_cash_cents"]] \
        == [r[:5] for r in rows]
    assert all(r[5] == r[6] for r in rows)
    assert {"daily_cash_cents", "daily_cups_sold"} <= set(found["series"])
    assert {"delivery", "trade", "day_end", "episode_end"} <= set(found["events"])


def test_shell(venv: Venv) -> None:
    """`bizsim shell lemonade` answers commands piped on stdin, refusals included, and moves a day on run_day."""
    lines = "help\nstatus\norder --lemons 30\nprice --cents 99999\nprice --cents 120\nrun_day\nstatus\nquit\n"
    text = _ok(venv.bizsim("shell", "lemonade", "--seed", "2", stdin=lines))
    decoder, answers, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        value, i = decoder.raw_decode(text, i)
        answers.append(value)
    assert 7 == len(answers)
    assert "run_day" in answers[0]["help"] and 0 == answers[1]["day"]
    assert (1, 30) == (answers[2]["order_id"], answers[2]["lemons"])
    assert "error" in answers[3] and 120 == answers[4]["price_cents"]
    assert 0 == answers[5]["day"] and answers[5]["cups_sold"] <= answers[5]["customers"]
    assert (1, 3) == (answers[6]["day"], answers[6]["actions_left"])  # a new day: the budget of 3, unspent


def test_gymnasium(venv: Venv) -> None:
    """`import bizsim.surfaces.gym` registers `bizsim/lemonade-v1`; a text policy plays the season to its end."""
    found = venv.script("""
        import json
        import gymnasium
        import bizsim.surfaces.gym
        env = gymnasium.make("bizsim/lemonade-v1", preset="heatwave")
        obs, info = env.reset(seed=4)
        first, total, steps, terminated, refused = obs, 0.0, 0, False, 0
        while not terminated:
            for line in ("order --lemons 60", "run_day"):
                obs, reward, terminated, truncated, info = env.step(line)
                total += reward
                steps += 1
                refused += info["error"]
                if terminated:
                    break
        world = env.unwrapped.world
        print(json.dumps({"first": first, "steps": steps, "total": total, "metric": info["metric"],
                          "cash": world.cash_cents, "day": world.day, "status": info["status"], "refused": refused,
                          "space": type(env.action_space).__name__}))
    """)
    assert "run_day" in found["first"] and "Text" == found["space"]
    assert (31, "horizon_reached", 62) == (found["day"], found["status"], found["steps"])
    assert found["cash"] == found["metric"] and found["total"] == pytest.approx(found["metric"] - 5_000)
    assert found["refused"] >= 1  # the last day's order would arrive after the season: refused, nothing changed


def test_the_llm_agent_plays_through_a_scripted_model(venv: Venv, tmp_path: Path) -> None:
    """The llm agent plays the world over the EcoGym protocol (tools from the commands, the world's role line),
    writes its run directory, and `verify` replays it."""
    out = tmp_path / "llm"
    found = venv.script(f"""
        import json
        from bizsim.agents.llm import LLMAgentConfig, ScriptedClient
        from bizsim.runs import RunSpec, run_llm
        from bizsim.runs.verify import verify_run_dir
        answers = [
            ("status", {{}}), ("order", {{"lemons": 40}}), ("price", {{"cents": 130}}), ("run_day", {{}}),
            ("order", {{"lemons": 999}}), ("help", {{"command": "order"}}), ("run_day", {{}}), ("teleport", {{}}),
        ]
        seen = []
        def policy(messages, tools):
            seen.append((messages[0]["content"], [t["function"]["name"] for t in tools]))
            name, args = answers[len(seen) - 1] if len(seen) <= len(answers) else ("run_day", {{}})
            return {{"content": None, "tool_calls": [{{"name": name, "arguments": args}}]}}
        spec = RunSpec("lemonade", "default", "llm", 3, agent_options=LLMAgentConfig(model="scripted", max_turns=10))
        result = run_llm(spec, out={str(out)!r}, client=ScriptedClient(policy))
        check = verify_run_dir({str(out)!r})
        world = result.final_world
        print(json.dumps({{"system": seen[0][0], "tools": seen[0][1], "turns": result.llm["total"]["turns"],
                          "day": world.day, "orders": len(world.orders), "detail": result.terminal_detail,
                          "errors": result.llm["total"]["command_errors"], "ok": check.ok,
                          "problems": list(check.problems), "log": [line for _, line in world.command_log()]}}))
    """)
    assert found["system"].startswith("You run a lemonade stand for one summer month.")
    assert ["order", "price", "status", "run_day", "help"] == found["tools"]
    assert (10, 4, 1, "max_turns") == (found["turns"], found["day"], found["orders"], found["detail"])
    assert found["log"][:4] == ["status", "order --lemons 40", "price --cents 130", "run_day"]
    assert found["errors"] >= 1 and found["ok"], found["problems"]


def test_the_examples_own_property_tests_pass(venv: Venv) -> None:
    """The example's Hypothesis tests, run by the venv's pytest against the installed package."""
    out = venv.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning",
                   str(venv.source / "tests"))
    text = _ok(out)
    assert " passed" in text and "failed" not in text
