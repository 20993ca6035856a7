"""`bizsim serve`, `bizsim do` and the `yc-bench` shim: one recorded episode behind a socket, played from a shell."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from bizsim.runs.verify import verify_run_dir
from bizsim.cli.shell_client import request
from bizsim.simcore.limits import MAX_SOCKET_MESSAGE_BYTES

GREEDY_SEED_1_CENTS = 42_029_521  # bizsim's own greedy run, startup preset default, seed 1
BIZSIM = [sys.executable, "-m", "bizsim.cli"]


def _wait_for_socket(path, proc, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read())
        if path.exists():
            with socket.socket(socket.AF_UNIX) as probe:
                try:
                    probe.connect(str(path))  # a connection that sends nothing is no call
                    return
                except OSError:
                    pass
        time.sleep(0.05)
    raise AssertionError(f"nothing serves at {path}")


@pytest.fixture
def served(tmp_path):
    """A `bizsim serve startup --seed 1` in a subprocess; stopped with SIGTERM afterwards."""
    out = tmp_path / "run"
    proc = subprocess.Popen([*BIZSIM, "serve", "startup", "--seed", "1", "--out", str(out)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_socket(out / "episode.sock", proc)
        yield out, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def _do(run, line, **env):
    return subprocess.run([*BIZSIM, "do", line], env={**os.environ, "BIZSIM_RUN": str(run), **env},
                          capture_output=True, text=True, timeout=120, check=False)


GREEDY_SCRIPT = textwrap.dedent("""
    import json, subprocess, sys
    sys.path.insert(0, sys.argv[1])
    from tests._greedy_client import argv_of, play_greedy

    def call(command, arguments):
        done = subprocess.run(["yc-bench", *argv_of(command, arguments)], capture_output=True, text=True)
        assert done.returncode in (0, 1, 2), done
        if done.returncode == 2:
            return {"error": done.stderr}
        return json.loads(done.stdout)

    print(play_greedy(call))
""")


@pytest.mark.slow
def test_a_subprocess_plays_the_greedy_year_through_yc_bench_commands(served, tmp_path):
    """Typed as `yc-bench ...` commands in a terminal, the greedy year ends with bizsim's greedy funds."""
    out, proc = served
    subprocess.run([*BIZSIM, "shim", str(tmp_path / "bin"), "--run", str(out)], check=True, capture_output=True)
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    played = subprocess.run([sys.executable, "-c", GREEDY_SCRIPT, root], env=env, capture_output=True, text=True,
                            timeout=600, check=False)
    assert 0 == played.returncode, played.stderr
    assert "278" == played.stdout.strip()  # 277 commands, then the end of the episode refused the next call
    result = json.loads((out / "result.json").read_text())
    assert (GREEDY_SEED_1_CENTS, "horizon_end", "shell") == (
        result["final_funds_cents"], result["terminal_reason"], result["agent"])
    assert [{"name": "yc-bench", "version": None}] == result["live"]["clients"]
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert not (out / "episode.sock").exists()
    assert json.loads((out / "result.json").read_text())["live"]["open"] is False
    found = verify_run_dir(out)
    assert (True, 277) == (found.ok, found.commands), found.problems


def test_owner_only_socket_and_a_second_serve_refused(served):
    """The socket is 0600 in a 0700 directory; a second serve on the directory exits 2 and changes nothing."""
    out, _ = served
    assert (0o600, 0o700) == (stat.S_IMODE(os.stat(out / "episode.sock").st_mode), stat.S_IMODE(os.stat(out).st_mode))
    assert stat.S_ISSOCK(os.stat(out / "episode.sock").st_mode)
    second = subprocess.run([*BIZSIM, "serve", "startup", "--seed", "2", "--out", str(out), "--overwrite"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert 2 == second.returncode and "recording a live episode already" in second.stderr
    assert 1 == json.loads((out / "result.json").read_text())["seed"]
    assert 0 == _do(out, "company status").returncode  # the first still answers


def test_do_prints_json_and_exits_as_the_reference_cli(served, tmp_path):
    """0 with the result, 1 with the world's error on stdout, 2 with a usage error on stderr; no shell reads argv."""
    out, _ = served
    ok = _do(out, "market browse --limit 2")
    assert (0, 2) == (ok.returncode, len(json.loads(ok.stdout)["tasks"]))
    refused = _do(out, "task accept --task-id Task-404")
    assert (1, True) == (refused.returncode, "not found" in json.loads(refused.stdout)["error"])
    usage = _do(out, "task accept")
    assert (2, "", True) == (usage.returncode, usage.stdout, usage.stderr.startswith("Error: Missing option"))
    unset = {k: v for k, v in os.environ.items() if k != "BIZSIM_RUN"}
    unrun = subprocess.run([*BIZSIM, "do", "company status"], env=unset, capture_output=True, check=False)
    assert 2 == unrun.returncode
    subprocess.run([*BIZSIM, "shim", str(tmp_path / "bin"), "--run", str(out)], check=True, capture_output=True)
    hostile = "$(touch owned); `touch owned` 'q\" \\ && rm -rf ."
    wrote = subprocess.run([str(tmp_path / "bin" / "yc-bench"), "scratchpad", "write", "--content", hostile],
                           cwd=tmp_path, capture_output=True, text=True, check=False,
                           env={**os.environ, "BIZSIM_CLIENT": "my-agent 2.0"})
    assert (0, hostile) == (wrote.returncode, json.loads(wrote.stdout)["content"])
    assert not (tmp_path / "owned").exists()
    helped = subprocess.run([str(tmp_path / "bin" / "yc-bench"), "task", "accept", "--help"], capture_output=True,
                            text=True, check=False)
    assert (0, True) == (helped.returncode, helped.stdout.startswith("task accept --task-id"))
    clients = [c["name"] for c in json.loads((out / "result.json").read_text())["live"]["clients"]]
    assert ["bizsim do", "my-agent 2.0", "yc-bench"] == clients


def test_concurrent_clients_are_answered_one_at_a_time(served):
    """Sixteen clients at once: every call is answered and recorded, and the run still replays exactly."""
    out, _ = served
    sock = str(out / "episode.sock")

    def append(n):
        return request(sock, {"argv": ["scratchpad", "append", "--content", f"note {n}"]}, MAX_SOCKET_MESSAGE_BYTES)

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(append, range(16)))
    assert [0] * 16 == [a["status"] for a in answers]
    notes = request(sock, {"line": "scratchpad read"}, MAX_SOCKET_MESSAGE_BYTES)["result"]["content"].split("\n")
    assert sorted(f"note {n}" for n in range(16)) == sorted(notes)
    assert 2 == request(sock, {"line": 3}, MAX_SOCKET_MESSAGE_BYTES)["status"]
    assert 2 == request(sock, {"argv": "company status"}, MAX_SOCKET_MESSAGE_BYTES)["status"]
    found = verify_run_dir(out)
    assert (True, 17) == (found.ok, found.commands), found.problems  # the two malformed requests ran nothing
