"""Plots and the HTML report: every figure is embedded and written, the tables are there, nothing global is set."""

from __future__ import annotations

import base64
import doctest
import importlib
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import attrs
import pytest

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("report")


pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("matplotlib")

from bizsim.analysis import load, plots
from bizsim.analysis.report import write_report
from bizsim.analysis.worlds.startup import plots as startup_plots
from bizsim.runs import RunSpec, grid, sweep


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory) -> Path:
    """Startup (two agents, two seeds, one failing run) and operation runs."""
    out = tmp_path_factory.mktemp("report")
    specs = grid("startup", "default", ["greedy", "random"], "1-2") + grid("operation", "default", "threshold", "1-2")
    specs.append(RunSpec("startup", agent="tests._sweep_agents:explode", seed=1))
    sweep(specs, out, backend="serial", progress=False)
    return out


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.images: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs)["src"])
        elif tag not in ("meta", "br"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
        else:
            self.stack.pop()


@pytest.fixture(scope="module")
def default_report(sweep_dir) -> Path:
    """``write_report(sweep_dir)``, written once: the tests that only read the default report share it."""
    return write_report(sweep_dir)


def test_the_report_embeds_and_writes_every_figure(sweep_dir, default_report):
    """report.html is well nested, holds the tables, and each embedded PNG is also a file with the same bytes."""
    path = default_report
    assert sweep_dir / "report" / "report.html" == path
    text = path.read_text(encoding="utf-8")
    tags = _Tags()
    tags.feed(text)
    assert [] == tags.errors and [] == tags.stack
    files = sorted((sweep_dir / "report" / "figures").glob("*.png"))
    named = re.findall(r"<code>figures/([^<]+\.png)</code>", text)
    assert sorted(f.name for f in files) == sorted(named)
    assert len(files) == len(tags.images) >= 8
    by_name = dict(zip(named, tags.images))
    for f in files:
        assert by_name[f.name] == "data:image/png;base64," + base64.b64encode(f.read_bytes()).decode("ascii")
        assert f.read_bytes().startswith(b"\x89PNG")
    for heading in ("Runs", "Bankruptcy, collapse and error rates", "Outcomes", "Failed runs", "World: startup",
                    "World: operation", "Headline number", "Failure causes", "Adversarial clients", "Tool use", "Final trust per client"):
        assert heading in text, heading
    assert "RuntimeError: agent gave up after 2 turns" in text
    ended = re.sub(r"<[^>]+>", " ", text[text.index("How the runs ended"):text.index("Bankruptcy, collapse")])
    assert re.search(r"random\s+bankruptcy\s+2", ended) and "run failed" in ended and " ok " not in ended
    assert "Model cost" not in text
    assert "http" not in text.replace("http-equiv", "")  # self-contained: nothing fetched


def test_the_report_shows_model_cost_when_runs_have_one(sweep_dir, tmp_path):
    """Runs with an LLM cost add the cost table and the score-against-cost figure; asked, the report draws the
    startup runs beside the published YC-Bench results (the default report does not: the test above)."""
    res = load(sweep_dir)
    runs = res.runs.assign(llm_cost_usd=[0.5 if a == "random" else None for a in res.runs.agent])
    path = write_report(sweep_dir, tmp_path / "r", results=attrs.evolve(res, runs=runs), title="with cost",
                        published=True)
    text = path.read_text()
    assert "<title>with cost</title>" in text and "Model cost" in text and "Cost per dollar earned" in text
    assert any("score-vs-cost" in f.name for f in (tmp_path / "r" / "figures").iterdir())
    section = re.sub(r"<[^>]+>", " ", text[text.index('id="published"'):text.index('id="cost"')])
    assert "GLM-5 (published)" in section and "1,208,190" in section and "greedy (yours)" in section
    assert re.search(r"Greedy Bot \(published\)\s+0\s+3 of 3", section)
    assert re.search(r"default / random \(yours\)\s+0\s+2 of 2", section)  # bankrupt seeds count 0, as theirs
    assert "--config medium" in section and section.count("Caveat:") == 2 and "(source: issue 43 item 8" in section
    assert re.search(r"GPT-5.4 Nano \(published\)\s+[\d,.]+\s+1 of 3\s+2 of 3 bankrupt \(paper, Table 4\)", section)
    assert re.search(r"Grok 4.20 Beta \(published\)\s+[\d,.]+\s+2 of 3\s+\$14K final funds \(paper, text\)", section)
    assert any("beside-published" in f.name for f in (tmp_path / "r" / "figures").iterdir())


def test_runs_are_drawn_beside_the_published_models(sweep_dir):
    """Every published model is a dashed line of its monthly mean funds; each of your groups a line of the same
    month-end funds the report's funds figure draws."""
    from bizsim.analysis import plots
    from bizsim.analysis.published import plot_beside_published, published_funds

    res = load(sweep_dir)
    ax = plot_beside_published(res, models=["GLM-5", "greedy_bot"])
    lines = {line.get_label(): line for line in ax.get_lines()}
    glm = lines["GLM-5 (published, 3 seeds)"]
    assert published_funds(["glm-5"])["funds_usd"].tolist() == list(glm.get_ydata())
    startup = res.runs[(res.runs.world == "startup") & (res.runs.status == "ok")]
    drawn = plots.plotted_series(res.series, startup, "month_end_funds_cents", ["agent"])
    greedy = drawn[drawn.agent == "greedy"].sort_values("step")
    assert (greedy["mean"] / 100).tolist() == list(lines["greedy (yours, n=2)"].get_ydata())
    assert {"Greedy Bot (published, 3 seeds)", "random (yours, n=2)"} <= set(lines)


def test_plots_return_the_axis_they_draw_on(sweep_dir):
    """Every plot takes an optional ax and returns the axis it drew on."""
    import matplotlib.figure

    res = load(sweep_dir)
    startup = res.runs[(res.runs.world == "startup") & (res.runs.status == "ok")]
    operation = res.runs[res.runs.world == "operation"]
    calls = [
        lambda ax: plots.funds_over_time(res.series, startup, ax=ax),
        lambda ax: plots.per_seed_trajectories(res.series, startup, ax=ax),
        lambda ax: startup_plots.failure_causes(res.events, startup, ax=ax),
        lambda ax: plots.action_frequency(res.events, operation, ax=ax),
        lambda ax: plots.series_over_time(res.series, operation, "daily_dau", ax=ax),
        lambda ax: plots.score_vs_cost(res.runs, res.llm_calls, ax=ax),
    ]
    for call in calls:
        ax = matplotlib.figure.Figure().subplots()
        assert ax is call(ax)
        assert ax.has_data() or ax.texts
        fresh = call(None)
        assert fresh is not ax and fresh.figure is not None
    assert 2 == len(plots.funds_over_time(res.series, startup, ax=None).get_legend().get_texts())


def test_plots_never_pool_presets_or_worlds_by_default(tmp_path):
    """A grid over two presets draws a line per preset and agent, not one mean over both presets."""
    sweep(grid("operation", ["default", "hard"], "threshold", "1-2"), tmp_path, backend="serial", progress=False)
    res = load(tmp_path)
    ax = plots.series_over_time(res.series, res.runs, "daily_dau", ax=None)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert ["default / threshold (n=2)", "hard / threshold (n=2)"] == labels
    one = plots.series_over_time(res.series, res.runs[res.runs.preset == "hard"], "daily_dau", ax=None)
    assert ["threshold (n=2)"] == [t.get_text() for t in one.get_legend().get_texts()]


def test_importing_and_plotting_sets_nothing_global(tmp_path):
    """Importing the analysis modules loads no matplotlib; plotting uses no pyplot and leaves the backend alone."""
    code = (
        "import sys, matplotlib\n"
        "backend = matplotlib.rcParams._get_backend_or_none()\n"
        "import bizsim.analysis.plots, bizsim.analysis.report, bizsim.analysis.metrics\n"
        "from bizsim.analysis.worlds.startup import plots\n"
        "import pandas as pd\n"
        "ax = plots.failure_causes(pd.DataFrame(columns=['run_id','t_us','day','kind','name','ok','task','client','value','data']),"
        " pd.DataFrame(columns=['run_id','world','preset_label','agent','status']))\n"
        "ax.figure.savefig(sys.argv[1])\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'\n"
        "assert matplotlib.rcParams._get_backend_or_none() == backend, 'backend changed'\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "out.png")], capture_output=True, text=True)
    assert "ok" in out.stdout, out.stderr
    bare = subprocess.run([sys.executable, "-c", "import sys, bizsim.analysis\nprint(sorted(m for m in ('matplotlib', 'pandas', "
                           "'pyarrow', 'ray', 'tqdm') if m in sys.modules))"], capture_output=True, text=True)
    assert "[]" == bare.stdout.strip(), bare.stderr


@pytest.mark.parametrize("name", ["bizsim.analysis.metrics", "bizsim.analysis.published", "bizsim.analysis.series", "bizsim.analysis.tables", "bizsim.runs.runspec", "bizsim.runs.sweep",
                                  "bizsim.analysis.plots", "bizsim.runs.gridfile"])
def test_doctests(name):
    """The examples in the sweep and metrics docstrings run."""
    failed, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert 0 == failed


def test_actions_over_time_give_an_action_its_colour_for_every_agent(sweep_dir):
    """The greedy and the random agent's figures draw `task accept` (and every action) in the colour the viewer
    gives it, not the next colour of a cycle that depends on which actions the agent took."""
    import matplotlib.colors
    import matplotlib.figure
    from bizsim.analysis.labels import kind_color

    res = load(sweep_dir)
    startup = res.runs[(res.runs.world == "startup") & (res.runs.status == "ok")]
    seen = {}
    for agent in ("greedy", "random"):
        ax = plots.action_frequency(res.events, startup[startup.agent == agent], ax=matplotlib.figure.Figure().subplots())
        handles, labels = ax.get_legend_handles_labels()
        colours = {label: matplotlib.colors.to_hex(h.get_facecolor()[0] if hasattr(h, "get_facecolor") else h)
                   for h, label in zip(handles, labels)}
        assert {label: kind_color(label) for label in labels} == colours
        seen[agent] = colours
    both = set(seen["greedy"]) & set(seen["random"])
    assert "task accept" in both and all(seen["greedy"][a] == seen["random"][a] for a in both)


def test_the_report_reads_top_down(sweep_dir, default_report, tmp_path):
    """First the summary (each group's mean, its interval and how its runs ended), then the figures, then the
    detail; a world without money is not said to be in dollars."""
    text = default_report.read_text(encoding="utf-8")
    assert text.index('<h2 id="summary">Summary</h2>') < text.index("<img") < text.index('<h2 id="runs">')
    top = re.sub(r"<[^>]+>", " ", text[text.index("Headline number"):text.index("</table>", text.index("Headline number"))])
    # one definition of the headline number: a bankrupt startup run counts $0 (the figures' reading), so a group of
    # bankrupt runs is $0 with an interval that does not go below it
    assert re.search(r"startup\s+random\s+Final funds, a bankruptcy as \$0 \(dollars\)\s+2\s+\$0\.00\s+\$0\.00\s+"
                     r"\$0\.00 to \$0\.00", top)
    assert re.search(r"random\s+Final funds, a bankruptcy as \$0 \(dollars\)\s+2\s.*?\s2 of 2 \(100 %\)\s+0", top)
    assert re.search(r"tests\._sweep_agents:explode\s+1\s+1\s*$", top)  # one run, and it failed to run
    assert re.search(r"operation\s+threshold\s+Mean daily active users\s+2\s+[\d,.]+\s", top)
    res = load(sweep_dir)
    operation = attrs.evolve(res, runs=res.runs[res.runs.world == "operation"])
    alone = write_report(sweep_dir, tmp_path / "op", results=operation).read_text(encoding="utf-8")
    assert "<h3>Outcomes:" in alone and "(money in dollars)" not in alone and "Daily daily" not in alone
