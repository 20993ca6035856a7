"""A disk that fills up mid-run: one clear line, and what was written before stays usable.

The file-size limit of the process (``RLIMIT_FSIZE``, with ``SIGXFSZ`` ignored) makes writes past a size fail
as a full disk does, without needing a small file system: the run is a subprocess under that limit.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bizsim.agents.llm import ScriptedClient
from bizsim.runs import RunSpec, resume_llm, run_llm
from bizsim.runs.verify import verify_run_dir

from .llm_policies import greedy_policy

pytestmark = pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="needs POSIX file-size limits")


def _limited(max_bytes: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))
    return apply


def test_a_full_disk_is_one_line_and_exit_status_2(tmp_path):
    """No traceback: the error names the file bizsim could not write; a rerun with room verifies."""
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "bizsim.cli", "run", "startup", "--out", str(out), "--no-progress"],
                          preexec_fn=_limited(20_000), capture_output=True, text=True, timeout=120)
    assert 2 == proc.returncode, proc.stderr
    assert proc.stderr.startswith("bizsim: error: File too large: ") and 1 == proc.stderr.count("\n"), proc.stderr
    assert str(out) in proc.stderr and not list(out.glob("*.tmp"))
    assert 0 == subprocess.run([sys.executable, "-m", "bizsim.cli", "run", "startup", "--out", str(out), "--overwrite",
                                "--no-progress"], capture_output=True, timeout=120).returncode
    assert verify_run_dir(out).ok


def test_an_llm_run_cut_by_a_full_disk_resumes_to_the_uninterrupted_result(tmp_path):
    """The call log holds every call answered before the disk filled; the resume replays them and goes on."""
    whole = run_llm(RunSpec("startup", agent="llm", agent_options={"model": "scripted", "max_turns": 40}),
                    out=tmp_path / "whole", client=ScriptedClient(greedy_policy))
    out = tmp_path / "cut"
    root = Path(__file__).resolve().parent.parent  # the tests package's parent, so the policy imports
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(root)!r})
        from bizsim.agents.llm import ScriptedClient
        from bizsim.runs import RunSpec, run_llm
        from tests.llm_policies import greedy_policy
        spec = RunSpec("startup", agent="llm", agent_options={{"model": "scripted", "max_turns": 40}})
        try:
            run_llm(spec, out={str(out)!r}, client=ScriptedClient(greedy_policy))
        except OSError as exc:
            print(exc.filename)
            sys.exit(3)
    """)
    proc = subprocess.run([sys.executable, "-c", script],
                          preexec_fn=_limited(60_000), capture_output=True, text=True, timeout=120)
    assert 3 == proc.returncode, proc.stderr
    assert proc.stdout.strip().startswith(str(out))
    assert not (out / "result.json").exists()
    client = ScriptedClient(greedy_policy)
    again = resume_llm(out, client=client)
    assert again.replayed_calls > 0 and 40 == again.replayed_calls + client.answered
    assert whole.record() == again.record() and verify_run_dir(out).ok
    assert json.loads((out / "run.json").read_text())["resumes"]
