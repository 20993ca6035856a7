"""verifiers 0.4 plays `bizsim openenv` through its own OpenEnv taskset and `vf-eval`, the model on loopback.

verifiers 0.4 cannot be installed beside the test extra (it pins mcp 2.0.0 and openai below 3), so the suite skips
this module; run it in an environment that has verifiers 0.4 and its ``openenv`` extra (docs/rl.md says how).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ._verifiers_04 import needs_verifiers_04

needs_verifiers_04()

from bizsim.agents.llm.loopback import LoopbackLLMServer
from bizsim.runs.rundir import read_record
from bizsim.runs.verify import verify_run_dir
from bizsim.surfaces.openenv_server import EpisodeRuns, serve

pytestmark = pytest.mark.xdist_group("openenv")


def alternate(messages, tools):
    """Each reply is one JSON action: an intervention as a tool call, then the day's end as a command line."""
    n = sum(1 for m in messages if m["role"] == "assistant")
    action = {"tool": "creator_incentive", "arguments": {}} if n % 2 == 0 else {"command": "task_done"}
    return {"content": json.dumps(action), "tool_calls": []}


def test_vf_eval_scores_each_task_with_the_metric_change_of_its_recorded_episode(tmp_path):
    """Two tasks (seeds 1 and 2) of two days each: verifiers' reward for each is the metric change of the run
    directory the server recorded, and every directory verifies."""
    runs = EpisodeRuns("operation", out=tmp_path / "runs", window={"days": 2})
    box: dict = {}
    threading.Thread(target=serve, args=(runs,), daemon=True,
                     kwargs={"port": 0, "ready": lambda s, p: box.update(server=s, port=p)}).start()
    while not (box.get("server") and box["server"].started):
        time.sleep(0.02)
    with LoopbackLLMServer(alternate, lifetime_s=600) as llm:
        (tmp_path / "eval.toml").write_text(f'''model = "scripted"
push = false
output_dir = "{tmp_path / 'vf'}"
[client]
base_url = "{llm.url}"
api_key_var = "LOOPBACK_KEY"
[env.taskset]
id = "openenv"
base_url = "http://127.0.0.1:{box['port']}"
resets = [{{seed = 1}}, {{seed = 2}}]
[env.player.runtime]
type = "subprocess"
''')
        done = subprocess.run([str(Path(sys.executable).parent / "vf-eval"), "@", "eval.toml", "--no-rich"],
                              cwd=tmp_path, env=dict(os.environ, LOOPBACK_KEY="sk-loopback"), capture_output=True,
                              text=True, timeout=600)
    box["server"].should_exit = True
    assert 0 == done.returncode, done.stderr[-3000:]
    scores = {}
    for line in next((tmp_path / "vf").glob("*/traces.jsonl")).read_text().splitlines():
        for trace in json.loads(line)["traces"]:
            scores[trace["task"]["data"]["reset"]["seed"]] = trace["rewards"]["openenv_reward"]["score"]
    recorded = {}
    for run in sorted((tmp_path / "runs").iterdir()):
        assert verify_run_dir(run).ok
        record = read_record(run)
        recorded[record.seed] = record.summary["metric_value"] - 1000.0  # operation starts at 1,000 DAU
        assert 4 == record.live["calls"]
    assert {1, 2} == set(scores) and scores == pytest.approx(recorded)
