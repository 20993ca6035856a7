"""docs/threat-model.md lists every size limit with the value the code uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from bizsim.agents.llm import context_window
from bizsim.models import world_class
from bizsim.runs import _results_file, llm_record, record
from bizsim.simcore import limits, request_delta, untrusted_json
from bizsim.view import llm_requests

from .strategies import WORLD_NAMES

DOC = (Path(__file__).resolve().parents[1] / "docs" / "threat-model.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name, value", [
    ("MAX_LINE_CHARS", limits.MAX_LINE_CHARS), ("MAX_ARGS_CHARS", limits.MAX_ARGS_CHARS),
    ("MAX_TEXT_CHARS", limits.MAX_TEXT_CHARS), ("MAX_DATA_FILE_BYTES", limits.MAX_DATA_FILE_BYTES),
    ("MAX_CONFIG_FILE_BYTES", limits.MAX_CONFIG_FILE_BYTES), ("MAX_REPLY_CHARS", untrusted_json.MAX_REPLY_CHARS),
    ("MAX_SEEDS", limits.MAX_SEEDS), ("MAX_SWEEP_RUNS", limits.MAX_SWEEP_RUNS),
    ("MAX_ROLLOUT_TURNS", limits.MAX_ROLLOUT_TURNS), ("MAX_SOCKET_CONNECTIONS", limits.MAX_SOCKET_CONNECTIONS),
    ("MAX_ADDED_BYTES", request_delta.MAX_ADDED_BYTES), ("MAX_REQUEST_MESSAGES", request_delta.MAX_REQUEST_MESSAGES),
    ("MAX_TOTAL_MESSAGES", llm_record.MAX_TOTAL_MESSAGES), ("MAX_RECORD_BYTES", record.MAX_RECORD_BYTES),
    ("MAX_RECORD_DEPTH", untrusted_json.MAX_RECORD_DEPTH), ("MAX_PROBE_BYTES", context_window.MAX_PROBE_BYTES),
    ("MAX_RESULT_LINE_BYTES", _results_file.MAX_RESULT_LINE_BYTES), ("MAX_PAGE_MESSAGES", llm_requests.MAX_PAGE_MESSAGES),
    ("MAX_MESSAGE_DEPTH", None),
])
def test_each_kernel_limit_is_listed_with_its_value(name, value):
    """The limits table names each constant on the row holding its value."""
    row = next(line for line in DOC.splitlines() if f".{name}`" in line)
    if name == "MAX_MESSAGE_DEPTH":  # the OpenEnv server's (openenv-core may be missing): its value in levels
        value = untrusted_json.MAX_DEPTH + 8
    assert f"{value:,}" in row
    assert f"{untrusted_json.MAX_DEPTH} levels" in DOC and limits.MAX_INT == 2**63 - 1


@pytest.mark.parametrize("world", WORLD_NAMES)
def test_each_declared_argument_limit_is_listed(world):
    """Every text argument with a limit of its own appears with that limit."""
    for spec in world_class(world).commands.visible():
        for p in spec.params:
            if p.type is str and p.max_length is not None:
                row = next((line for line in DOC.splitlines() if f"`{p.flag}`" in line and spec.name in line), None)
                assert row is not None, f"{world} {spec.name} {p.flag} is not listed"
                assert f"{p.max_length:,}" in row


@pytest.mark.parametrize("module", ["bizsim.simcore.limits", "bizsim.simcore._cmdline", "bizsim.simcore.untrusted_json", "bizsim.simcore.seeds",
                                    "bizsim.models.freelance._numscan"])
def test_doctests(module):
    """The examples in the hostile-input modules' docstrings run."""
    import doctest
    import importlib

    assert 0 == doctest.testmod(importlib.import_module(module)).failed


def test_the_run_directory_section_says_what_each_command_can_and_cannot_do():
    """What a run directory someone sends you can do to each command that reads one, with its limits."""
    section = DOC.split("## Run directories someone sends you", 1)[1].split("\n## ", 1)[0]
    for command in ("`view`", "`verify`", "`report`", "`load`", "`fork`", "`export`", "`--resume`"):
        assert command in section, command
    for limit in ("MAX_RESULT_LINE_BYTES", "MAX_RECORD_DEPTH", "MAX_TOTAL_MESSAGES", "MAX_PAGE_MESSAGES",
                  "MAX_VIEW_FILE_BYTES", "MAX_RUN_LOG_BYTES"):
        assert limit in section, limit
