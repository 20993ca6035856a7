"""Reading ``results.jsonl`` for compaction: a record's head comes out as a whole decode would give it."""

from __future__ import annotations

import json

from bizsim.runs._results_file import _head, encode, iter_heads
from hypothesis import given
from hypothesis import strategies as st

_TRAPS = [',"series":{"name":', ',"wall_s":1}\n', '"}', "\\", '{"', "\n"]
_text = st.one_of(st.text(max_size=8), st.sampled_from(_TRAPS))
_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False),
              _text),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.one_of(_text, st.sampled_from(["series", "events", "wall_s", "name"])),
                                            inner, max_size=3)),
    max_leaves=12,
)


@st.composite
def records(draw) -> dict:
    """Records shaped as a sweep writes them, or missing parts, with JSON-looking traps inside their strings."""
    rec = {"v": 1, "run_id": draw(st.text("0123456789abcdef", min_size=1, max_size=16)),
           "status": draw(st.sampled_from(["ok", "error"])), "error": draw(_values), "spec": draw(_values),
           "run": draw(_values)}
    if draw(st.booleans()):
        rec["series"] = {"name": draw(st.lists(_text, max_size=3)), "value": draw(_values)}
    if draw(st.booleans()):
        rec["events"] = {"t_us": [0, 1], "data": draw(st.lists(_text, max_size=3)), "x": draw(_values)}
    if draw(st.booleans()):
        rec["wall_s"] = draw(st.one_of(st.floats(0, 100), st.integers(0, 100), _values))
    if draw(st.booleans()):
        rec["after"] = draw(_values)  # a key after wall_s: the fast path must not drop it
    return rec


def _whole(rec: dict) -> dict:
    return {k: v for k, v in json.loads(json.dumps(rec)).items() if k not in ("series", "events")}


@given(records())
def test_the_head_of_any_record_is_its_whole_decode_without_series_and_events(rec):
    """Decoding only the part before the series (and the run time) gives exactly what decoding everything does."""
    line = encode(rec).encode()
    assert _whole(rec) == _head(line)


def test_heads_of_a_real_sweep_equal_whole_decodes(tmp_path):
    """A sweep's own lines (a run that worked and one that raised) read the same either way, offsets included."""
    from bizsim.runs import grid, sweep

    specs = [*grid("startup", "default", "greedy", "1"), *grid("startup", "default", "tests._sweep_agents:explode", "1")]
    sweep(specs, tmp_path, backend="serial", progress=False, compact=False)
    raw = (tmp_path / "results.jsonl").read_bytes()
    lines = raw.splitlines(keepends=True)
    offsets = [sum(map(len, lines[:i])) for i in range(len(lines))]
    expected = [(off, _whole(json.loads(line))) for off, line in zip(offsets, lines)]
    assert expected == list(iter_heads(tmp_path / "results.jsonl"))
    assert {"ok", "error"} == {rec["status"] for _, rec in expected}
    assert "wall_s" in expected[0][1]


def test_a_torn_last_line_and_a_garbled_line_are_skipped(tmp_path):
    """Only complete lines count; a line that is not a record is passed over."""
    path = tmp_path / "results.jsonl"
    good = encode({"v": 1, "run_id": "a", "status": "ok", "series": {"name": []}, "wall_s": 1.5})
    path.write_text("not json\n" + good + '{"v": 1, "run_id": "b"', encoding="utf-8")
    assert [(9, {"v": 1, "run_id": "a", "status": "ok", "wall_s": 1.5})] == list(iter_heads(path))


def test_a_valid_record_without_its_newline_is_torn_and_a_run_counts_by_its_last_line(tmp_path):
    """A line is complete only with its newline, even when it parses; a run recorded twice counts by its last line."""
    from bizsim.runs._results_file import finished_ids

    path = tmp_path / "results.jsonl"
    failed = encode({"v": 1, "run_id": "a", "status": "error", "error": {"type": "X"}})
    passed = encode({"v": 1, "run_id": "a", "status": "ok", "wall_s": 1.0})
    cut = encode({"v": 1, "run_id": "b", "status": "ok", "wall_s": 2.0}).rstrip("\n")  # valid JSON, no newline
    path.write_text(failed + passed + cut, encoding="utf-8")
    assert {"a"} == finished_ids(path, include_errors=False) == finished_ids(path)
    assert ["a", "a"] == [rec["run_id"] for _, rec in iter_heads(path)]
    path.write_text(passed + failed, encoding="utf-8")
    assert set() == finished_ids(path, include_errors=False) and {"a"} == finished_ids(path)
