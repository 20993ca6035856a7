"""The command line imports what a subcommand needs and nothing more."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("litellm", "openai", "pandas", "pyarrow", "matplotlib", "ray", "gymnasium", "bizsim.agents.llm")


def _modules_after(code: str) -> list[str]:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_baseline_run_loads_no_llm_data_plot_or_ray_module(tmp_path):
    """`bizsim run startup --agent greedy` (with a run directory) loads no LLM client, pandas, pyarrow, matplotlib, Ray."""
    loaded = _modules_after(
        "import contextlib, io\nfrom bizsim.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    main(['run', 'startup', '--agent', 'greedy', '--out', {str(tmp_path / 'r')!r}])"
    )
    assert [] == [m for m in loaded if m.startswith(HEAVY)]
    assert "bizsim.agents.startup.baselines" in loaded  # the agent that ran, and it did run


def test_a_run_imports_one_world(tmp_path):
    """`bizsim run startup` reads every world's registry entry (its package and spec) and imports no other world's
    model modules or agents."""
    loaded = _modules_after(
        "import contextlib, io\nfrom bizsim.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    main(['run', 'startup', '--agent', 'greedy', '--out', {str(tmp_path / 'r')!r}])"
    )
    from importlib.metadata import entry_points

    others = ("vending", "freelance", "operation")
    entries = {f"bizsim.models.{w}" for w in others}  # a registry entry's module and the packages above it
    for ep in entry_points(group="bizsim.worlds"):
        parts = ep.module.split(".")
        entries |= {".".join(parts[:k]) for k in range(3, len(parts) + 1)}
    assert [] == [m for m in loaded if m.startswith(tuple(f"bizsim.{k}.{w}" for k in ("models", "agents") for w in others))
                  and m not in entries]
    assert "bizsim.models.startup.world" in loaded


def test_help_loads_no_world_and_no_simulation_library():
    """`bizsim --help` imports neither a world nor SimPy/NumPy, so it answers at once."""
    loaded = _modules_after(
        "import contextlib, io\nfrom bizsim.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n    main(['--help'])"
    )
    assert [] == [m for m in loaded if m.startswith(("simpy", "numpy", "scipy", "bizsim.models", "bizsim.agents"))]


def test_a_broken_pipe_is_no_traceback():
    """`bizsim list | head -1`: when the reader leaves early, bizsim exits 0 without a traceback."""
    code = (
        "import sys\nfrom bizsim.cli import main\n"
        "class Gone:\n    def write(self, text):\n        raise BrokenPipeError(32, 'Broken pipe')\n"
        "    def flush(self):\n        pass\n"
        "sys.stdout = Gone()\nsys.exit(main(['list']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (0, "") == (proc.returncode, proc.stderr)
