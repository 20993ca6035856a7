"""Execute the notebooks as tests: ``python -m pytest`` runs them through nbmake when it is installed.

nbmake (in the ``test`` extra) collects ``.ipynb`` files only with ``--nbmake``;
turning the option on here means the README's single test command covers the
notebooks too, and a checkout without nbmake still runs the rest of the suite.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Switch nbmake's notebook collection on."""
    if config.pluginmanager.hasplugin("nbmake") and hasattr(config.option, "nbmake"):
        config.option.nbmake = True
