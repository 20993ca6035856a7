"""The notebooks are valid nbformat 4.5: every cell has an id, and ids are unique (missing ones will be an error)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_cell_has_a_unique_id(path):
    """nbformat warns today, and will refuse later, a 4.5 notebook with a cell that has no id."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    ids = [cell.get("id") for cell in nb["cells"]]
    assert (4, 5) <= (nb["nbformat"], nb["nbformat_minor"])
    assert None not in ids and len(ids) == len(set(ids))
