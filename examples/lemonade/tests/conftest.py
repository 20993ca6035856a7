"""The Hypothesis profile of the example's tests: fixed examples, no database, nothing written to the repository."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_home = tempfile.mkdtemp(prefix="lemonade-hypothesis-")
set_hypothesis_home_dir(_home)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove Hypothesis' temporary directory."""
    shutil.rmtree(_home, ignore_errors=True)
