"""Hostile files: task banks, catalogs and config TOML that are endless, huge, deep, not UTF-8, or hold NaN load as
one ConfigError naming the file and the rule, or load and work; never a traceback, a hang or a NaN world."""

from __future__ import annotations

import json
import os
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bizsim.models.freelance import FreelanceWorld
from bizsim.models.freelance.config import FreelanceConfig
from bizsim.models.freelance.tasks import load_reference_tasks
from bizsim.models.vending.catalog import load_reference_catalog
from bizsim.simcore.config import load_toml
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_DATA_FILE_BYTES

from ._fuzz import fuzz
from ._hang_guard import no_hang
from .strategies import hostile_values
from .test_vending_catalog import REFERENCE_DEMAND, write_reference_files

pytestmark = pytest.mark.fuzz

_TASK = {"question": "What is 6 x 7?", "answer": "42", "category": "Math_Logic", "complexity": "Low"}


def test_an_endless_tasks_file_is_refused_at_the_limit():
    """tasks_path = "/dev/zero" read until memory ran out; now it stops at MAX_DATA_FILE_BYTES."""
    with no_hang("reading /dev/zero"), pytest.raises(ConfigError, match="larger than the limit"):
        FreelanceWorld(FreelanceConfig(tasks_path="/dev/zero"), 1)


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    """A FIFO named as a data file blocked the open forever (no writer comes); it is refused at once."""
    fifo = tmp_path / "tasks.jsonl"
    os.mkfifo(fifo)
    with no_hang("opening a FIFO"), pytest.raises(ConfigError, match="pipe or socket"):
        FreelanceWorld(FreelanceConfig(tasks_path=str(fifo)), 1)


def test_a_directory_read_as_a_file_is_refused_and_leaks_no_descriptor(tmp_path):
    """The non-blocking open hands a directory's descriptor back: it is closed, however often it happens."""
    from bizsim.simcore.limits import read_text_file

    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    for _ in range(50):
        with pytest.raises(ConfigError, match="cannot be read"):
            read_text_file(tmp_path, "tasks_path")
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) < before + 5


def test_a_recorded_run_naming_a_preset_file_is_not_read(tmp_path):
    """run.json records a preset's name: one naming a file (a FIFO here) is refused by resume and the viewer,
    which shows the run with its problem instead of opening the file."""
    from bizsim.runs.llm_run import load_run_spec
    from bizsim.view import load_view

    os.mkfifo(tmp_path / "preset.toml")
    run = tmp_path / "run"
    run.mkdir()
    spec = {"world": "startup", "preset": str(tmp_path / "preset.toml"), "agent": "llm", "seed": 1}
    (run / "run.json").write_text(json.dumps({"kind": "llm", "spec_version": 2, "spec": spec}))
    (run / "trajectory.jsonl").write_text("")
    with no_hang("a recorded preset file"):
        with pytest.raises(ConfigError, match="not written by bizsim"):
            load_run_spec(run)
        assert "run" == load_view(run, requests=False)["kind"]


@pytest.mark.parametrize("make", [
    lambda p: p.mkdir(),
    lambda p: p.write_bytes(b"\xff\xfe" + json.dumps(_TASK).encode()),
    lambda p: p.write_text('{"question": ' + "[" * 100_000 + "\n"),
    lambda p: p.write_text(json.dumps({**_TASK, "init_payment": math.nan}) + "\n"),
    lambda p: p.write_text(json.dumps({**_TASK, "init_payment": math.inf}) + "\n"),
    lambda p: p.write_text(json.dumps({**_TASK, "init_effort": -math.inf}) + "\n"),
    lambda p: p.write_text('{"question": "q", "answer": "1", "init_payment": 1' + "0" * 400 + "}\n"),
    lambda p: p.write_text("\n\n"),
    lambda p: p.write_bytes(b"x" * (MAX_DATA_FILE_BYTES + 1)),
], ids=["directory", "not-utf8", "deep", "nan-pay", "inf-pay", "-inf-effort", "huge-pay", "empty", "too-large"])
def test_a_bad_tasks_file_is_one_config_error(tmp_path, make):
    """Each malformed task bank is one ConfigError naming the file."""
    path = tmp_path / "tasks.jsonl"
    make(path)
    with pytest.raises(ConfigError, match="tasks"):
        load_reference_tasks(path, cache=False)


@fuzz(40)
@given(st.lists(st.dictionaries(st.sampled_from(["question", "answer", "init_payment", "init_effort", "complexity",
                                                 "category", "eval_method"]), hostile_values(), max_size=7),
                min_size=1, max_size=3))
def test_fuzzed_tasks_files_load_and_work_or_are_refused(tmp_path_factory, rows):
    """Task rows with hostile values: a ConfigError, or a bank whose tasks a world can offer and check."""
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    try:
        text = "".join(json.dumps(r) + "\n" for r in rows)
    except (ValueError, RecursionError):
        return  # not writable as JSON: nothing to read
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    with no_hang("loading a fuzzed task bank"):
        try:
            bank = load_reference_tasks(path, cache=False)
        except ConfigError:
            return
        world = FreelanceWorld(FreelanceConfig(tasks_path=str(path)), 1)
        world.execute("tasks_browse", driven=True)
        for i in range(len(bank)):
            bank[i].checks("42")
        world.trajectory.to_jsonl()


@pytest.mark.parametrize("change, rule", [
    ({"base_demand": math.nan}, "finite"), ({"base_demand": math.inf}, "finite"),
    ({"price_sensitivity": {"beta": math.nan, "epsilon": 0, "reference_markup": 1.5}}, "finite"),
    ({"price_sensitivity": {"beta": 1, "epsilon": 0, "reference_markup": -math.inf}}, "finite"),
    ({"seasonality": {"T": math.nan, "phi": 0, "amp": 0.1}}, "finite"),
    ({"base_demand": 10**400}, "finite"),
], ids=["nan-demand", "inf-demand", "nan-beta", "inf-markup", "nan-period", "huge-demand"])
def test_non_finite_demand_parameters_are_refused(tmp_path, change, rule):
    """NaN or infinite demand parameters ran a year of NaN sales; they are refused."""
    demand = json.loads(json.dumps(REFERENCE_DEMAND))
    demand["groups"][0].update(change)
    with pytest.raises(ConfigError, match=rule):
        load_reference_catalog(*write_reference_files(tmp_path, demand))


@pytest.mark.parametrize("products", [
    "", "\n\n", "not json\n", '{"name": 5}\n',
], ids=["empty", "blank", "garbage", "no-product"])
def test_an_empty_catalog_is_refused(tmp_path, products):
    """A products file with no product was a world with nothing to sell; it is refused."""
    path, structure = write_reference_files(tmp_path)
    path.write_text(products, encoding="utf-8")
    with pytest.raises(ConfigError, match="holds no products"):
        load_reference_catalog(path, structure)


def test_a_product_name_with_a_unicode_line_break_is_one_line(tmp_path):
    """A JSON line may hold U+2028 unescaped; the file is split where a text-mode read splits it (\n, \r\n, \r),
    so the product is read, not cut in two unparseable halves and skipped."""
    path, structure = write_reference_files(tmp_path)
    kept = path.read_text(encoding="utf-8")
    first = json.loads(kept.split("\n")[0])
    odd = json.dumps({**first, "name": "Odd\u2028Name\x85"}, ensure_ascii=False)
    path.write_text(odd + "\r\n" + kept, encoding="utf-8")
    names = {p.name for p in load_reference_catalog(path, structure).products}
    assert "Odd\u2028Name\x85" in names


@pytest.mark.parametrize("price", ["NaN", "Infinity", "-Infinity", "1e400", "1" + "0" * 30])
def test_non_finite_or_absurd_wholesale_prices_are_refused(tmp_path, price):
    """NaN and infinite catalog prices were a ValueError or OverflowError; they are ConfigErrors."""
    path, structure = write_reference_files(tmp_path)
    path.write_text('{"name": "A", "category": "X", "wholesale_price": %s}\n' % price, encoding="utf-8")
    with pytest.raises(ConfigError, match="wholesale_price"):
        load_reference_catalog(path, structure)


@pytest.mark.parametrize("which", ["products", "demand"])
@pytest.mark.parametrize("content", [b"/dev/zero", b"\xff\xfe{}", b"[" * 100_000, b"dir"], ids=["endless", "not-utf8",
                                                                                              "deep", "directory"])
def test_bad_catalog_files_are_one_config_error(tmp_path, which, content):
    """Endless, non-UTF-8, deep or directory catalog files: one ConfigError (or, for products, no products)."""
    products, structure = write_reference_files(tmp_path)
    target = products if which == "products" else structure
    if content == b"/dev/zero":
        target = "/dev/zero"
    elif content == b"dir":
        target.unlink()
        target.mkdir()
    else:
        target.write_bytes(content)
    args = (target, structure) if which == "products" else (products, target)
    with no_hang("reading a bad catalog file"), pytest.raises(ConfigError):
        load_reference_catalog(*args)


@pytest.mark.parametrize("content", [None, b"\xff = 1", b"a = " + b"[" * 50_000 + b"]" * 50_000, b"dir"],
                         ids=["endless", "not-utf8", "deep", "directory"])
def test_bad_toml_files_are_one_config_error(tmp_path, content):
    """A config TOML that is endless, not UTF-8, nested past tomllib's recursion, or a directory."""
    path = tmp_path / "c.toml"
    if content is None:
        path = "/dev/zero"
    elif content == b"dir":
        path.mkdir()
    else:
        path.write_bytes(content)
    with no_hang("reading a bad TOML file"), pytest.raises(ConfigError):
        load_toml(path)


@fuzz(30)
@given(product=st.dictionaries(st.sampled_from(["name", "category", "wholesale_price"]), hostile_values(), max_size=3),
       group=st.dictionaries(st.sampled_from(["id", "members", "base_demand", "seasonality", "price_sensitivity"]),
                             st.one_of(hostile_values(), st.fixed_dictionaries(
                                 {}, optional={k: hostile_values() for k in ("T", "phi", "amp", "beta", "epsilon",
                                                                             "reference_markup")})), max_size=5))
def test_fuzzed_catalog_files_load_and_work_or_are_refused(tmp_path_factory, product, group):
    """A product row and a demand group with hostile values (next to valid ones): a ConfigError, or a catalog a
    vending world sells from without NaN."""
    from bizsim.models.vending import VendingWorld
    from bizsim.models.vending.config import VendingConfig

    tmp = tmp_path_factory.mktemp("catalog")
    products, structure = write_reference_files(tmp)
    demand = json.loads(json.dumps(REFERENCE_DEMAND))
    try:
        products.write_text(products.read_text(encoding="utf-8") + json.dumps(product) + "\n", encoding="utf-8",
                            errors="surrogatepass")
        demand["groups"].append(group)
        structure.write_text(json.dumps(demand), encoding="utf-8", errors="surrogatepass")
    except (ValueError, RecursionError):
        return  # not writable as JSON: nothing to read
    with no_hang("loading a fuzzed catalog"):
        try:
            load_reference_catalog(products, structure)
        except ConfigError:
            return
        world = VendingWorld(VendingConfig(products_path=str(products), demand_path=str(structure),
                                           horizon_days=5), 1)
        world.run(_markup_days)
        for line in world.trajectory.to_jsonl().split("\n")[:-1]:
            json.loads(line, parse_constant=_no_constant)


def _markup_days(world):
    from bizsim.agents import AGENTS

    return AGENTS["vending"]["markup"](world)


def _no_constant(name: str) -> None:
    raise AssertionError(f"the world recorded {name}")


# --- Rollouts of another harness (`bizsim import yc-bench`): a declared count sizes nothing before it is checked.

_ROLLOUT_NAME = "yc_bench_result_default_2_acme_greedy.json"


def _rollout(turns_completed: int = 1, turn: int = 1) -> dict:
    return {"model": "acme/greedy", "seed": 2, "turns_completed": turns_completed, "terminal_reason": "horizon_end",
            "transcript": [{"turn": turn, "commands_executed": ["yc-bench sim resume"]}]}


@pytest.mark.parametrize(("data", "expected"), [
    (_rollout(turns_completed=1_000_000_000), "'turns_completed' (=1,000,000,000) is more than the limit of 100,000"),
    (_rollout(turn=1_000_000_000), "'turn' must be a turn number from 1 to the limit of 100,000"),
    ({**_rollout(), "transcript": None, "episodes": [
        {"turns_completed": 90_000, "transcript": [{"turn": 1, "commands_executed": []}]}] * 3},
     "its episodes hold 270,000 turns, more than the limit of 100,000"),
])
def test_a_rollout_declaring_a_billion_turns_is_refused_before_anything_is_built(tmp_path, data, expected):
    """A 13 kB rollout whose turns_completed (or a turn's number) was 10^9 built a set of 10^9 numbers (24 GB);
    it is refused against the turn limit, here in a child whose memory is capped at 3 GiB."""
    from ._bounded import run_capped

    file = tmp_path / _ROLLOUT_NAME
    file.write_text(json.dumps(data))
    done = run_capped(
        "from bizsim.analysis.ycbench import RolloutError, read_rollout\n"
        f"try:\n    read_rollout({str(file)!r}, allow_partial=True)\n"
        "except RolloutError as exc:\n    print('REFUSED', exc)\n")
    assert 0 == done.returncode, done.stderr[-2000:]
    assert expected in done.stdout and "REFUSED" in done.stdout


def test_a_rollout_missing_turns_names_the_gaps_without_listing_every_number(tmp_path):
    """The gaps between kept turns are named as ranges (found from the kept turns, not from every number)."""
    from bizsim.analysis.ycbench import read_rollout

    data = _rollout(turns_completed=100_000)
    data["transcript"] += [{"turn": 5, "commands_executed": []}, {"turn": 6, "commands_executed": []}]
    file = tmp_path / _ROLLOUT_NAME
    file.write_text(json.dumps(data))
    assert "turns 2-4, 7-100000 of 100000 are missing" == read_rollout(file, allow_partial=True).missing


def test_a_deep_sweep_manifest_is_read_bounded_and_written_anew(tmp_path):
    """A sweep directory's manifest nested past the readers' depth (it was a RecursionError) is taken as damaged:
    resuming the sweep writes it anew from the specs at hand."""
    from bizsim.runs import grid, sweep
    from bizsim.runs.rundir import MANIFEST as _MANIFEST

    specs = grid("operation", "default", "threshold", 1)
    sweep(specs, tmp_path, backend="serial", progress=False, compact=False)
    (tmp_path / _MANIFEST).write_text('{"specs": ' + "[" * 100_000 + "]" * 100_000 + "}")
    summary = sweep(specs, tmp_path, backend="serial", progress=False, compact=False)
    assert (0, 1) == (summary.ran, summary.skipped)
    assert 1 == len(json.loads((tmp_path / _MANIFEST).read_text())["specs"])
