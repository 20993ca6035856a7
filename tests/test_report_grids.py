"""Every grid the docs show reports: any mix of agents and options, options an agent does not have included.

Each grid is run small (fewer seeds than the docs' where the docs' take long) and reported whole, beside the
published results, and paper by paper; the LLM arms are records of baseline runs under the LLM agent's full
option set, as an LLM run records them (tests/test_grouping.py builds them the same way), so a group's answer is
known by construction: the same figures as the baseline it copies.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("report_grids")

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

from bizsim.agents.llm import LLMAgentConfig
from bizsim.analysis import load
from bizsim.analysis import report as report_module
from bizsim.runs import RunSpec, grid, sweep
from bizsim.runs.gridfile import load_grid
from bizsim.simcore.registry import world_spec

DOCS = Path(__file__).resolve().parents[1] / "docs"
MODEL = "openai/gpt-4o-mini"


def _copies_as_llm(out: Path, source_agent: str, arms: list[tuple[dict, int]], *, cost: float = 0.5,
                   wall_s: float = 90.0) -> None:
    """Add to ``out``'s results, per ``(options, seed)`` in ``arms``, the ``source_agent`` run of that seed recorded as
    an LLM run with ``options`` (on top of the LLM agent's defaults; an option given as None is left out of the
    record), a model cost and a runtime."""
    lines = (out / "results.jsonl").read_text().splitlines()
    by_seed = {}
    for line in lines:
        rec = json.loads(line)
        if rec["spec"]["agent"] == source_agent:
            by_seed.setdefault((rec["spec"]["world"], rec["spec"]["seed"]), rec)
    for n, (options, seed) in enumerate(arms):
        for (world, s), base in sorted(by_seed.items()):
            if s != seed:
                continue
            rec = json.loads(json.dumps(base))
            rec["run_id"] = f"llm-{world}-{n}-{seed}"
            given = LLMAgentConfig(model=MODEL, **{k: v for k, v in options.items() if v is not None}).to_dict()
            for k in (k for k, v in options.items() if v is None):  # recorded without it (a run made before it)
                given.pop(k, None)
            rec["spec"].update(agent="llm", agent_options=given)
            rec["run"].update(llm_cost_usd=cost, llm_prompt_tokens=1000, llm_completion_tokens=100, llm_turns=10)
            rec["wall_s"] = wall_s
            lines.append(json.dumps(rec))
    (out / "results.jsonl").write_text("\n".join(lines) + "\n")
    for table in out.glob("*.parquet"):
        table.unlink()


def _report(runs_dir: Path, **kwargs) -> tuple[str, dict[str, object], dict[str, str]]:
    """The report's HTML, every figure it drew (axes, by file name) and their captions."""
    drawn: dict[str, object] = {}
    captions: dict[str, str] = {}
    original = report_module._Doc.figure

    def keep(self, ax, name, caption):
        drawn[name], captions[name] = ax, caption
        original(self, ax, name, caption)

    mp = pytest.MonkeyPatch()
    mp.setattr(report_module._Doc, "figure", keep)
    try:
        path = report_module.write_report(runs_dir, **kwargs)
    finally:
        mp.undo()
    assert {f"{n}.png" for n in drawn} == {p.name for p in (path.parent / "figures").glob("*.png")}
    return path.read_text(encoding="utf-8"), drawn, captions


def _legends(drawn: dict[str, object]) -> list[str]:
    texts = []
    for ax in drawn.values():
        legend = ax.get_legend()
        texts += [t.get_text() for t in legend.get_texts()] if legend is not None else []
        texts += [t.get_text() for t in ax.get_yticklabels()]
    return texts


def _reports_every_way(out: Path, papers: list[str]) -> dict[str, tuple[str, dict, dict]]:
    """The whole report (beside the published results), and each paper's alone: none raises, none names a missing
    value ("nan", "<NA>", "None") in a legend or a label."""
    made = {"whole": _report(out, out=out / "whole", published=True)}
    for paper in papers:
        made[paper] = _report(out, out=out / paper, papers=[paper])
    for name, (text, drawn, _) in made.items():
        bad = [t for t in _legends(drawn) if re.search(r"\b(nan|<NA>|None)\b", t)]
        assert [] == bad, name
        assert "<NA>" not in html.unescape(text), name  # a group's name in a table, a missing option left out
    return made


def _docs_block(page: str, title: str) -> str:
    text = (DOCS / page).read_text(encoding="utf-8")
    found = re.search(r'```toml title="' + re.escape(title) + r'"\n(.*?)```', text, re.S)
    assert found, f"{page} has no block titled {title}"
    return found.group(1)


def test_the_sweeps_page_grid_presets_by_agents(tmp_path):
    """docs/sweeps.md's Python grid: startup x (default, hard) x (greedy, random); a group a preset and agent."""
    sweep(grid("startup", ["default", "hard"], ["greedy", "random"], "1-2"), tmp_path, backend="serial", progress=False)
    made = _reports_every_way(tmp_path, ["yc-bench"])
    whole, drawn, _ = made["whole"]
    final = next(ax for n, ax in drawn.items() if n.endswith("startup-final-funds"))
    assert 4 == len(final.get_yticklabels())  # hard / greedy, hard / random, default / greedy, default / random


def test_the_grid_file_on_the_sweeps_page(tmp_path):
    """docs/sweeps.md's grid.toml itself: two worlds, a preset with overrides, an agent option only random has
    (max_parallel), an operation threshold option; reported whole and by each paper."""
    path = tmp_path / "grid.toml"
    path.write_text(_docs_block("sweeps.md", "grid.toml").replace('"1-3"', '"1"').replace('"1-5"', '"1-2"'))
    specs, _ = load_grid(path)
    assert {"startup", "operation"} == {s.world for s in specs}
    sweep(specs, tmp_path / "out", backend="serial", progress=False)
    made = _reports_every_way(tmp_path / "out", ["yc-bench", "ecogym"])
    text = html.unescape(made["whole"][0])
    # One value of max_parallel among random's runs: no column of its own, but said where the runs came from.
    assert 'agent random {"max_parallel": 3}' in text and "hard-rich" in text


def test_llm_runs_at_three_ks_beside_greedy(tmp_path):
    """The grid docs/sweeps.md describes: LLM runs at history_rounds 5, 20, 30 beside greedy. Figure 10 draws the
    three K with greedy as a level line, Table 4 reads each run's recorded runtime in minutes."""
    sweep(grid("startup", "default", "greedy", "1-2"), tmp_path, backend="serial", progress=False)
    _copies_as_llm(tmp_path, "greedy", [({"history_rounds": k}, s) for k in (5, 20, 30) for s in (1, 2)])
    made = _reports_every_way(tmp_path, ["yc-bench"])
    runs = load(tmp_path).runs
    greedy_mean = float(runs[runs.agent == "greedy"]["metric_value"].mean()) / 100
    for name in ("whole", "yc-bench"):
        text, drawn, _ = made[name]
        k = next(ax for n, ax in drawn.items() if n.endswith("startup-metric-against-k"))
        level = [ln for ln in k.get_lines() if ln.get_linestyle() == "--"]
        assert 1 == len(level) and pytest.approx(greedy_mean) == float(level[0].get_ydata()[0])
        assert "greedy (no history rounds; mean of 2)" == level[0].get_label()
        points = next(c for c in k.containers if c.get_label() == "llm").lines[0]
        assert [5.0, 20.0, 30.0] == [float(x) for x in points.get_xdata()]
        assert pytest.approx([greedy_mean] * 3) == [float(y) for y in points.get_ydata()]  # copies of greedy
        assert "1.5 ± 0.0" in text  # 90 s a run: Table 4's minutes, mean ± sd
        per_seed = [c for n, c in made[name][2].items() if n.endswith("startup-funds-per-seed")]
        assert 1 == len(per_seed) and per_seed[0].startswith("Figure 8 of the paper")  # drawn where Figure 7 is
    published = next(ax for n, ax in made["whole"][1].items() if n.endswith("startup-beside-published"))
    colours = [tuple(ln.get_color()) if not isinstance(ln.get_color(), str) else ln.get_color()
               for ln in published.get_lines() if not ln.get_label().startswith("_")]
    assert len(colours) > 20 and len(set(colours)) == len(colours)  # nineteen published models and ours, each its own
    funds = next(ax for n, ax in made["whole"][1].items() if n.endswith("startup-month-end-funds-cents"))
    assert "greedy (n=2)" in [ln.get_label() for ln in funds.get_lines()]  # the group without K is drawn too


def test_ecogym_llm_runs_with_memory_and_context_beside_baselines(tmp_path):
    """docs/paper-analyses.md's EcoGym grid (operation, threshold and round-robin) with LLM arms varying memory and
    history_messages: the context figure's legend names no missing memory."""
    sweep(grid("operation", "default", ["threshold", "round-robin"], "1-2"), tmp_path, backend="serial",
          progress=False)
    arms = [({"history_messages": m, "memory": mem}, s) for m in (32, 64) for mem in (None, ("episodic",))
            for s in (1, 2)]
    _copies_as_llm(tmp_path, "threshold", arms)
    made = _reports_every_way(tmp_path, ["ecogym"])
    _, drawn, _ = made["ecogym"]
    context = next(ax for n, ax in drawn.items() if n.endswith("operation-context-length"))
    labels = [t.get_text() for t in context.get_legend().get_texts()]
    assert ["default / llm / memory episodic", "default / llm"] == labels  # without memory: no "memory nan"


def test_the_results_page_grid_every_world_and_agent(tmp_path):
    """docs/results.md's sweep: every world with every agent it offers (one seed here, ten there)."""
    specs = []
    for world in ("startup", "operation", "vending", "freelance"):
        agents = [a for a in world_spec(world).agents if a != "llm"]
        specs += grid(world, "default", agents, "1")
    sweep(specs, tmp_path, backend="serial", progress=False)
    made = _reports_every_way(tmp_path, ["yc-bench", "ecogym"])
    assert "Table 2" in made["ecogym"][0] and "Figure 5(a)" in made["yc-bench"][0]


def test_the_startup_v2_sweep_reports(tmp_path):
    """docs/worlds/startup-v2.md's sweep with --report: greedy and planner on startup-v2."""
    sweep([RunSpec("startup-v2", "default", a, 1) for a in ("greedy", "planner")], tmp_path, backend="serial",
          progress=False)
    _reports_every_way(tmp_path, ["yc-bench"])


def test_a_pip_install_names_where_it_came_from(tmp_path, monkeypatch):
    """Provenance of an install that is no git checkout: the commit pip recorded, else the source and that no commit
    was recorded (PEP 610's direct_url.json, read through importlib.metadata)."""
    from importlib import metadata

    from bizsim.analysis import provenance as prov

    info = tmp_path / "bizsim-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bizsim\nVersion: 0.1.0\n")
    monkeypatch.setattr(metadata, "distribution", lambda name: metadata.PathDistribution(info))
    (info / "direct_url.json").write_text(json.dumps({"url": "file:///src/bizsim", "dir_info": {}}))
    assert prov._installed_from().startswith("not recorded: installed by pip from file:///src/bizsim")
    (info / "direct_url.json").write_text(json.dumps({"url": "https://example.org/bizsim.git", "vcs_info": {
        "vcs": "git", "commit_id": "0123abc"}}))
    assert "0123abc (installed by pip from https://example.org/bizsim.git)" == prov._installed_from()
    monkeypatch.setattr(prov, "_git_commit", lambda: None)
    assert ("git commit", prov._installed_from()) in prov.provenance(pd.DataFrame(), ["bizsim", "report"])


def test_a_sweep_of_llm_runs_over_http_beside_greedy_reports(tmp_path, monkeypatch):
    """The case the report crashed on, for real: greedy and the LLM agent at K = 5 and 20 (a model over loopback
    HTTP playing greedy), one sweep, reported with --paper yc-bench; Table 4's minutes are the records' wall_s."""
    from .llm_policies import greedy_policy
    from .llm_server import LoopbackLLMServer, require_litellm

    require_litellm()
    monkeypatch.setenv("BIZSIM_LOOPBACK_KEY", "sk-loopback-0123456789")
    with LoopbackLLMServer(greedy_policy, lifetime_s=300) as server:
        specs = [RunSpec("startup", "default", "greedy", 1)] + [RunSpec("startup", "default", "llm", 1, agent_options={
            "model": MODEL, "api_base": server.url, "api_key_env": "BIZSIM_LOOPBACK_KEY", "history_rounds": k})
            for k in (5, 20)]
        assert 0 == sweep(specs, tmp_path, backend="serial", progress=False).failed
    runs = load(tmp_path).runs
    assert runs["wall_s"].notna().all()
    for run in runs[runs.agent == "llm"].itertuples():  # one runtime a run: the sweep's is its result.json's
        assert json.loads((tmp_path / "runs" / run.run_id / "result.json").read_text())["wall_s"] == run.wall_s
    text, drawn, _ = _report(tmp_path, out=tmp_path / "paper", papers=["yc-bench"])
    assert any(n.endswith("startup-metric-against-k") for n in drawn)
    for k in (5, 20):
        minutes = float(runs[runs.history_rounds == k]["wall_s"].iloc[0]) / 60
        row = re.search(rf"<td[^>]*>llm</td><td[^>]*>{k}</td>(.*?)</tr>", text[text.index("Table 4 of the paper"):])
        assert row and f"{minutes:,.1f}</td>" in row.group(1)  # one run: its minutes, no ± (no sd of one)
