"""Execute the notebooks as tests: ``python -m pytest`` runs them through nbmake when it is installed.

nbmake (in the ``test`` extra) collects ``.ipynb`` files only with ``--nbmake``;
turning the option on here means the README's single test command covers the
notebooks too, and a checkout without nbmake still runs the rest of the suite.

A notebook whose metadata holds ``bizsim.not_run_in_suite`` (a reason) is collected and skipped with that
reason: one that needs what the test extra does not install (``trl_grpo.ipynb`` needs torch and trl).
"""

from __future__ import annotations

import json

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Switch nbmake's notebook collection on."""
    if config.pluginmanager.hasplugin("nbmake") and hasattr(config.option, "nbmake"):
        config.option.nbmake = True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the notebooks that say why the suite does not run them."""
    for item in items:
        if item.path.suffix != ".ipynb":
            continue
        metadata = json.loads(item.path.read_text(encoding="utf-8")).get("metadata", {})
        reason = (metadata.get("bizsim") or {}).get("not_run_in_suite")
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"{item.path.name}: {reason}"))
