"""``bizsim view`` on an Inspect log made by ``inspect_ai.eval`` itself: its samples, and each sample's transcript."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("viewer_inspect")


if importlib.util.find_spec("inspect_ai") is None:  # checked without the import (seconds in every xdist worker)
    pytest.skip("reading Inspect logs needs bizsim[inspect]", allow_module_level=True)

from bizsim.analysis.labels import dollars
from bizsim.view import load_view, write_view
from bizsim.view.sources import page_data

from ._browser import browser_fixture, legend_colours, open_page, rgb

if TYPE_CHECKING:
    from inspect_ai.model import ModelOutput


def _out(tool: str | None = None, **arguments: object) -> ModelOutput:
    from inspect_ai.model import ModelOutput, ModelUsage

    out = (ModelOutput.for_tool_call("mockllm/model", tool, dict(arguments)) if tool
           else ModelOutput.from_content("mockllm/model", "I am done."))
    out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
    return out


# Tests name log_file before browser: Inspect runs an event loop of its own, which cannot start while Playwright's
# sync API runs one in this thread (the module's first test, whichever it is, builds the log).
@pytest.fixture(scope="module")
def log_file(tmp_path_factory) -> Path:
    """An Inspect eval of startup seed 1: a browse, a refused accept, an accept, assign and dispatch, an advance,
    then a text reply."""
    import inspect_ai
    from inspect_ai.model import get_model

    root = tmp_path_factory.mktemp("inspect")
    outputs = [_out("market_browse", limit=2), _out("task_accept", task_id="Task-99999"),
               _out("task_accept", task_id="Task-10"), _out("task_assign", task_id="Task-10", employees="Emp_1,Emp_2"),
               _out("task_dispatch", task_id="Task-10"), _out("sim_resume"), _out()]
    model = get_model("mockllm/model", custom_outputs=outputs)
    [log] = inspect_ai.eval("bizsim/startup", model=model, task_args={"seeds": "1", "runs_dir": str(root / "runs")},
                            log_dir=str(root / "logs"), display="none")
    assert "success" == log.status, log.error
    return Path(log.location)


def test_an_inspect_log_lists_its_samples_with_score_and_usage(log_file):
    """One row a sample: its seed, its world metric as scored, Inspect's token count, a page of its own."""
    data = load_view(log_file)
    assert ("inspect", "success", "mockllm/model") == (data["kind"], data["meta"]["status"], data["meta"]["model"])
    [row] = data["rows"]
    result = json.loads((Path(row["run_dir"]) / "result.json").read_text())
    assert (1, "startup", result["metric_value"], 770) == (row["seed"], row["world"], row["value"], row["tokens"])
    assert row["run_dir_found"] and {"sample-0": {"inspect_sample": 0}} == data["pages"]


def test_a_samples_page_is_its_transcript_placed_in_simulated_time(log_file):
    """A turn per model call: what Inspect sent (messages and tools) and got back, and the tool calls it ran with
    their results; turns sit at the simulated time of their commands in the run directory."""
    data = page_data(log_file, {"inspect_sample": 0})
    assert "llm" == data["agent_kind"] and [] == data["problems"]
    turns = data["turns"]
    assert 7 == len(turns) and [1, 1, 1, 1, 1, 1, 0] == [len(t["commands"]) for t in turns]
    assert ["market_browse", "task_accept", "task_accept", "task_assign", "task_dispatch", "sim_resume"] == [
        t["commands"][0]["line"].split()[0] for t in turns[:6]]
    assert "not found" in turns[1]["commands"][0]["error"] and turns[1]["error"] and not turns[2]["error"]
    assert "planned" == turns[2]["commands"][0]["result"]["status"]
    assert [0] * 6 == [t["t"] for t in turns[:6]]
    assert 0 < turns[6]["t"] == data["meta"]["end_t"]  # after the advance: the simulated time it moved to
    first = [data["meta"]["messages"][d] for d in turns[0]["request"]["messages"]]
    assert ["system", "user"] == [m["role"] for m in first] and "market_browse" in {
        t["name"] for t in data["meta"]["tools"][turns[0]["request"]["tools"]]}
    assert "I am done." == turns[6]["response"]["content"] and 110 == turns[6]["response"]["usage"]["total_tokens"]


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module."""
    yield from browser_fixture()


def test_the_log_page_opens_a_samples_transcript(log_file, browser, tmp_path):
    """From the log's page, a sample's link opens its run page: the final funds and a refused command's error."""
    path = write_view([log_file], tmp_path / "log.html")
    page = open_page(browser, path.as_uri())
    row = page.inner_text("#samples-table tr[data-page='sample-0']")
    result = json.loads((Path(load_view(log_file)["rows"][0]["run_dir"]) / "result.json").read_text())
    assert "seed-1" in row and dollars(result["metric_value"]) in row and "770" in row
    page.screenshot(path=str(tmp_path / "inspect-log.png"))
    page.click("a.open-sample")
    page.wait_for_selector("#final-metric")
    assert dollars(result["metric_value"]) == page.inner_text("#final-metric")
    page.click(".list .row[data-i='1']")
    detail = page.inner_text(".detail")
    assert "as Inspect logged it" in detail and "Task 'Task-99999' not found." in detail
    # an accepted task is the colour it has on a run page and in the report
    from bizsim.analysis.labels import kind_color

    assert rgb(kind_color("task accept")) == legend_colours(page)["task accept"]
    page.screenshot(path=str(tmp_path / "inspect-sample.png"))
    assert [] == page.errors


def test_a_log_that_unpacks_past_the_limit_is_refused_unread(log_file, tmp_path):
    """An .eval is a zip: a few hundred KB can unpack to gigabytes, which Inspect would parse whole. The unpacked
    size its directory declares is checked first, by the viewer and by load()."""
    import zipfile

    from bizsim.analysis import load
    from bizsim.analysis.inspect_logs import MAX_INSPECT_LOG_BYTES
    from bizsim.simcore.errors import ConfigError

    bomb = tmp_path / "bomb.eval"
    with zipfile.ZipFile(log_file) as src, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            out.writestr(info, src.read(info))
        with out.open("pad.json", "w", force_zip64=True) as pad:
            for _ in range(MAX_INSPECT_LOG_BYTES // 2**20 + 1):
                pad.write(bytes(2**20))
    assert bomb.stat().st_size < 5 * 2**20
    for read in (load_view, load):
        with pytest.raises(ConfigError, match="unpacks to .* over the limit"):
            read(bomb)
    assert "inspect" == load_view(log_file)["kind"]  # the log itself is well under it


def test_a_folder_of_logs_is_one_page_of_every_logs_samples(log_file, browser, tmp_path):
    """`bizsim view FOLDER` takes a folder of logs, as `bizsim report` and load() do: one row a sample of each log,
    naming its log, each opening its transcript; a page spec naming anything but a log of the folder is refused."""
    import shutil

    from bizsim.cli.main import main
    from bizsim.simcore.errors import ConfigError

    folder = tmp_path / "logs"
    folder.mkdir()
    for name in ("2026-01-01T00-00-00_a.eval", "2026-01-02T00-00-00_b.eval"):
        shutil.copy(log_file, folder / name)
    data = load_view(folder)
    assert "inspect" == data["kind"] and 2 == data["meta"]["logs"]
    assert ["2026-01-01T00-00-00_a.eval", "2026-01-02T00-00-00_b.eval"] == [r["log"] for r in data["rows"]]
    for bad in ("../" + log_file.name, str(log_file), "nothing.eval"):
        with pytest.raises(ConfigError, match="not a log of this folder"):
            page_data(folder, {"inspect_log": bad, "inspect_sample": 0})
    out = tmp_path / "logs.html"
    assert 0 == main(["view", str(folder), "--out", str(out)])
    page = open_page(browser, out.as_uri())
    assert "2 logs" in page.inner_text("header").replace("\n", " ").lower()
    row = page.locator("#samples-table tr[data-page='log1-sample-0']")
    assert "2026-01-02T00-00-00_b.eval" in row.inner_text()
    result = json.loads((Path(data["rows"][1]["run_dir"]) / "result.json").read_text())
    page.screenshot(path=str(tmp_path / "logs.png"))
    row.locator("a.open-sample").click()
    page.wait_for_selector("#final-metric")
    assert dollars(result["metric_value"]) == page.inner_text("#final-metric")
    assert [] == page.errors
