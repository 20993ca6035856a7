"""What does a call cost on each surface an outside agent plays through? bizsim's own time per call.

Run: ``python benchmarks/surfaces.py [--repeats 3] [--skip-shim]`` (needs the ``mcp`` extra; Linux, for /proc).

Every figure is a startup year (preset default, seed 1) played by the greedy policy as an outside client
(``tests/_greedy_client.py``), 278 calls, each recorded into a run directory as it happens:

1. ``Episode`` in process: the world plus the recording, per call; and the bare ``Driver`` (no recording)
   for comparison.
2. ``bizsim mcp`` over stdio and over streamable HTTP, driven by the official ``mcp`` client: the server
   process's own CPU time per call (user + system, from /proc; the client, its transport and the server's
   start-up excluded), and the wall time per call as the client sees it (client included).
3. ``bizsim serve``: the server's CPU time per call and the wall time of a socket request made in process;
   and the wall time per ``yc-bench`` command typed in a shell (a process started per command: what an agent in
   a terminal pays).

Prints medians over ``--repeats``.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' greedy client

from bizsim.runs.live import Episode
from bizsim.cli.shell_client import request
from bizsim.models.startup import StartupWorld
from bizsim.simcore.driver import Driver
from bizsim.simcore.limits import MAX_SOCKET_MESSAGE_BYTES
from calibration import machine_line  # benchmarks/calibration.py

from tests._greedy_client import argv_of, play_greedy, play_greedy_async

BIZSIM = [sys.executable, "-m", "bizsim.cli"]


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def in_process(tmp: Path, n: int) -> tuple[float, float]:
    """Microseconds per call: an Episode (world + recording), and the bare Driver."""
    episode = Episode("startup", "default", 1, out=tmp / f"live{n}")
    start = time.perf_counter()
    calls = play_greedy(lambda c, a: episode.call_tool(c.replace(" ", "_"), a).result)
    live = (time.perf_counter() - start) / calls * 1e6
    episode.close()
    driver = Driver(StartupWorld("default", 1))
    start = time.perf_counter()
    calls = play_greedy(lambda c, a: driver.send_tool(c.replace(" ", "_"), a) if not driver.done else {"error": "end"})
    bare = (time.perf_counter() - start) / calls * 1e6
    return live, bare


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(check, what: str, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def mcp_year(tmp: Path, n: int, http: bool) -> tuple[float, float]:
    """(server CPU ms per call, client wall ms per call) of a greedy year through ``bizsim mcp``."""
    import anyio
    from mcp import Client, StdioServerParameters

    out = tmp / f"mcp{'http' if http else 'stdio'}{n}"
    args = ["mcp", "startup", "--seed", "1", "--out", str(out)]
    proc = None
    if http:
        port = _free_port()
        proc = subprocess.Popen([*BIZSIM, *args, "--http", str(port)], stderr=subprocess.DEVNULL)
        _wait(lambda: socket.create_connection(("127.0.0.1", port), timeout=1).close() is None, "the HTTP server")
        target: object = f"http://127.0.0.1:{port}/mcp"
    else:
        target = StdioServerParameters(command=sys.executable, args=["-m", "bizsim.cli", *args])
    figures: list[float] = []

    async def main() -> None:
        async with Client(target) as client:  # type: ignore[arg-type]
            await client.list_tools()
            pid = int((out / "live.lock").read_text())

            async def call(command, arguments):
                return (await client.call_tool(command.replace(" ", "_"), arguments)).structured_content

            cpu0, wall0 = cpu_seconds(pid), time.perf_counter()
            calls = await play_greedy_async(call)
            wall, cpu = time.perf_counter() - wall0, cpu_seconds(pid) - cpu0
            figures.extend([cpu / calls * 1e3, wall / calls * 1e3])

    try:
        anyio.run(main)
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    return figures[0], figures[1]


def shell_year(tmp: Path, n: int, shim: bool) -> tuple[float, float, float | None]:
    """(server CPU ms per call, in-process socket request wall ms, ``yc-bench`` command wall ms) of a greedy year."""
    out = tmp / f"serve{n}"
    proc = subprocess.Popen([*BIZSIM, "serve", "startup", "--seed", "1", "--out", str(out)], stderr=subprocess.DEVNULL)
    sock = out / "episode.sock"

    def ready() -> bool:
        with socket.socket(socket.AF_UNIX) as probe:
            probe.connect(str(sock))
        return True

    try:
        _wait(ready, "bizsim serve")

        typed = None
        if shim:  # before the year: a finished episode refuses commands
            bin_dir = tmp / f"bin{n}"
            subprocess.run([*BIZSIM, "shim", str(bin_dir), "--run", str(out)], check=True, capture_output=True)
            start, count = time.perf_counter(), 100
            for _ in range(count):
                subprocess.run([str(bin_dir / "yc-bench"), "company", "status"], check=True, capture_output=True)
            typed = (time.perf_counter() - start) / count * 1e3

        def call(command, arguments):
            return request(str(sock), {"argv": argv_of(command, arguments)}, MAX_SOCKET_MESSAGE_BYTES)["result"]

        cpu0, wall0 = cpu_seconds(proc.pid), time.perf_counter()
        calls = play_greedy(call)
        wall, cpu = time.perf_counter() - wall0, cpu_seconds(proc.pid) - cpu0
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    return cpu / calls * 1e3, wall / calls * 1e3, typed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-shim", action="store_true", help="do not time yc-bench commands (a process each)")
    args = parser.parse_args()
    rows: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        for n in range(args.repeats):
            live, bare = in_process(tmp, n)
            rows.setdefault("Episode.call_tool, world + recording (us/call)", []).append(live)
            rows.setdefault("Driver.send_tool, world only (us/call)", []).append(bare)
            for http in (False, True):
                cpu, wall = mcp_year(tmp, n, http)
                label = "HTTP" if http else "stdio"
                rows.setdefault(f"bizsim mcp over {label}: server CPU (ms/call)", []).append(cpu)
                rows.setdefault(f"bizsim mcp over {label}: client wall, client included (ms/call)", []).append(wall)
            cpu, wall, typed = shell_year(tmp, n, not args.skip_shim)
            rows.setdefault("bizsim serve: server CPU (ms/call)", []).append(cpu)
            rows.setdefault("bizsim serve: socket request wall, in process (ms/call)", []).append(wall)
            if typed is not None:
                rows.setdefault("yc-bench shim: one command typed, process start included (ms)", []).append(typed)
    width = max(map(len, rows))
    for label, values in rows.items():
        runs = ", ".join(f"{v:.2f}" for v in values)
        print(f"{label.ljust(width)}  {statistics.median(values):8.2f}   (runs: {runs})")
    print(machine_line())


if __name__ == "__main__":
    main()
