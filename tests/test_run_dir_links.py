"""Run-directory writes never follow a link planted in the run directory (issue 18, defect 9)."""

from __future__ import annotations

import os

from bizsim.runs import run_episode
from bizsim.runs.verify import verify_run_dir


def test_a_planted_tmp_link_does_not_redirect_the_write(tmp_path):
    """A `result.json.tmp` symlink pointing outside the run directory is replaced, its target left untouched."""
    out, outside = tmp_path / "run", tmp_path / "precious.txt"
    out.mkdir()
    outside.write_text("keep me", encoding="utf-8")
    for name in ("result.json.tmp", "commands.jsonl.tmp", "config.toml.tmp", "trajectory.jsonl.tmp"):
        os.symlink(outside, out / name)
    run_episode("operation", "default", "threshold", seed=1, out=out)
    assert "keep me" == outside.read_text(encoding="utf-8")
    assert verify_run_dir(out).ok
    assert not any(p.name.endswith(".tmp") for p in out.iterdir())


def test_overwrite_never_deletes_through_an_episodes_link(tmp_path):
    """--overwrite on a run whose episodes/ is a link to another folder removes the link, not that folder's files."""
    out, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    (elsewhere / "1").mkdir(parents=True)
    for name in ("commands.jsonl", "trajectory.jsonl"):
        (elsewhere / "1" / name).write_text("not bizsim's\n", encoding="utf-8")
    run_episode("operation", "default", "threshold", seed=1, out=out)
    os.symlink(elsewhere, out / "episodes")
    run_episode("operation", "default", "threshold", seed=1, out=out, overwrite=True)
    assert ["commands.jsonl", "trajectory.jsonl"] == sorted(p.name for p in (elsewhere / "1").iterdir())
    assert not (out / "episodes").exists() and verify_run_dir(out).ok
