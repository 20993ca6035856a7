"""Hostile input on the live surfaces and the command line: `bizsim mcp` over stdio answers every request it
reads, whatever the line holds, and writes every answer before it exits."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bizsim.runs.verify import verify_run_dir

pytestmark = pytest.mark.fuzz


def _init(ident: int = 1) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "hostile", "version": "1"}}}


def _call(ident, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _mcp_stdio(out, lines: list[str], timeout: float = 120) -> list[dict]:
    """Feed ``lines`` to `bizsim mcp startup` over stdio, then end its input; the answers it wrote."""
    done = subprocess.run([sys.executable, "-m", "bizsim.cli", "mcp", "startup", "--seed", "1", "--out", str(out)],
                          input="".join(line + "\n" for line in lines).encode(), capture_output=True, timeout=timeout)
    assert 0 == done.returncode, done.stderr.decode()[-2000:]
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def test_mcp_stdio_answers_every_request_however_malformed(tmp_path):
    """A lone surrogate, 300 levels of nesting, an object as id, a line over 16 MiB and text that is not JSON were
    never answered (the official client waited forever); each now gets an answer, the request's id when it
    can be read, and a call followed at once by the end of input is answered too."""
    pytest.importorskip("mcp")
    deep = '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "x", "arguments": ' + \
        '{"a": ' * 300 + "1" + "}" * 300 + "}}"
    long_line = json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                            "params": {"name": "company_status", "arguments": {"x": "y" * (17 * 2**20)}}})
    lines = [
        json.dumps(_init()),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "a\\ud800b", "arguments": {}}}',
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "task_inspect", '
        '"arguments": {"task_id": "a\\ud800b"}}}',
        deep,
        '{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}',
        long_line,
        "{not json",
        json.dumps(_call(7, "company_status", {})),
    ]
    answers = _mcp_stdio(tmp_path / "run", lines)
    by_id = {a["id"]: a for a in answers if a["id"] is not None}
    assert [1, 2, 3, 4, 6, 7] == sorted(by_id)
    assert 2 == sum(a["id"] is None for a in answers)  # the object id and the text that is not JSON
    assert {-32700} == {by_id[i]["error"]["code"] for i in (4, 6)}
    assert "longer than the limit of 16,777,216 bytes" in by_id[6]["error"]["message"]
    assert {-32600, -32700} == {a["error"]["code"] for a in answers if a["id"] is None}
    assert by_id[3]["result"]["isError"] and "\ufffd" in json.dumps(by_id[3]["result"], ensure_ascii=False)
    assert not by_id[7]["result"]["isError"]  # the last call, read just before the end of input, is answered
    assert verify_run_dir(tmp_path / "run").ok


def test_the_message_screen_finds_an_id_only_at_the_top_level():
    """The id of an unreadable message is looked up at its top level, skipping nested values and strings."""
    pytest.importorskip("mcp")
    from bizsim.surfaces.mcp_stdio import screen_line

    text = b'{"params": {"id": 9, "s": "\\"}{"}, "id": "req-1", "method": "x", "more": ' + b"[" * 200
    assert "req-1" == screen_line(text)[1]["id"]
    assert screen_line(b'{"params": {"id": 9}, "method": "x", ' + b"[" * 200)[1]["id"] is None
    assert screen_line(b"   \n")  == (None, None)


# --- Numbers and KEY=VALUE options on the command line: a one-line refusal naming the rule, never a traceback.

def _cli(argv: list[str], capsys) -> tuple[int, str]:
    from bizsim.cli.main import main

    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    err = capsys.readouterr().err
    return code, err


@pytest.fixture(scope="module")
def parent_run(tmp_path_factory):
    from bizsim.cli.main import main

    out = tmp_path_factory.mktemp("parent") / "run"
    assert 0 == main(["run", "startup", "--agent", "greedy", "--seed", "1", "--no-progress", "--out", str(out)])
    return out


_DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(("argv", "rule"), [
    (["fork", "{run}", "--at-day", "inf", "--agent", "greedy", "--out", "{out}"], "not a finite number"),
    (["fork", "{run}", "--at-day", "nan", "--agent", "greedy", "--out", "{out}"], "not a finite number"),
    (["fork", "{run}", "--at-day", "1e308", "--agent", "greedy", "--out", "{out}"], "from 0 to 106,751,991"),
    (["fork", "{run}", "--at-hour", "1e308", "--agent", "greedy", "--out", "{out}"], "from 0 to 2,562,047,788"),
    (["fork", "{run}", "--at-turn", "99999999999999999999999", "--agent", "greedy", "--out", "{out}"],
     "is not from 0 to"),
    (["mcp", "startup", "--out", "{out}", "--http", "70000"], "70000 is not from 0 to 65,535"),
    (["mcp", "startup", "--out", "{out}", "--http", "-1"], "-1 is not from 0 to 65,535"),
    (["mcp", "startup", "--out", "{out}", "--http", "0", "--idle-timeout", "inf"], "not a finite number above 0"),
    (["run", "startup", "--agent", "greedy", "--seed", "-1", "--out", "{out}"], "-1 is not from 0"),
    (["run", "startup", "--agent", "greedy", "--agent-opt", "x=" + _DEEP, "--out", "{out}"], "deeper than 64 levels"),
    (["run", "startup", "--agent", "greedy", "--agent-opt", "x=NaN", "--out", "{out}"], "not a finite number"),
    (["sweep", "--world", "startup", "--agent", "greedy", "--agent-opt", "x=" + _DEEP, "--out", "{out}"],
     "deeper than 64 levels"),
    (["fork", "{run}", "--at-turn", "3", "--agent", "greedy", "--agent-opt", "x=" + _DEEP, "--out", "{out}"],
     "deeper than 64 levels"),
    (["mcp", "startup", "--out", "{out}", "--set", "x=" + _DEEP], "deeper than 64 levels"),
    (["serve", "startup", "--out", "{out}", "--set", "x=" + _DEEP], "deeper than 64 levels"),
], ids=lambda v: " ".join(v)[:60] if isinstance(v, list) else None)
def test_out_of_range_numbers_and_deep_options_are_one_line(tmp_path, parent_run, capsys, argv, rule):
    """`fork --at-day inf` or 1e308, `mcp --http 70000`, a 100,000-deep --agent-opt or --set value raised
    tracebacks (OverflowError, RecursionError); each is refused in one line, before anything is written."""
    out = tmp_path / "out"
    code, err = _cli([a.format(run=parent_run, out=out) for a in argv], capsys)
    assert 2 == code
    assert rule in err and "Traceback" not in err and 1 == len(err.strip().splitlines()), err[-500:]
    assert len(err) < 600
    assert not out.exists()


def test_the_python_api_checks_the_same_ranges(parent_run, tmp_path):
    """fork points, MCP ports and option values given from Python are refused as ConfigErrors too."""
    from bizsim.runs.fork import fork
    from bizsim.simcore.errors import ConfigError

    for at in ({"day": float("inf")}, {"hours": 1e308}, {"turn": 10**30}):
        with pytest.raises(ConfigError, match="must be a finite number from 0"):
            fork(parent_run, at, "greedy", out=tmp_path / "f")
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ConfigError, match="deeper than 64 levels"):
        fork(parent_run, 3, "greedy", agent_options={"x": deep}, out=tmp_path / "f")
    pytest.importorskip("mcp")
    from bizsim.surfaces.mcp_server import bind_http

    for port in (70000, -1, True):
        with pytest.raises(ConfigError, match="from 0 to 65535"):
            bind_http("127.0.0.1", port)


# --- Inspect tasks: the documented -T forms are read by the one seed parser; a refusal is Inspect's one message.

def test_an_inspect_task_reads_the_list_form_and_refuses_in_one_message(tmp_path):
    """`-T seeds=1,3` reaches the task as ['1', '3'] (it was refused), seeds=10**30 was accepted, and every refusal
    was shown inside Inspect's full traceback."""
    pytest.importorskip("inspect_ai")
    from bizsim.surfaces.inspect_eval.task import world_task
    from bizsim.simcore.errors import ConfigError

    task = world_task("startup", seeds=["1", "3"], runs_dir=str(tmp_path / "runs"))
    assert ["seed-1", "seed-3"] == [s.id for s in task.dataset]
    for seeds, rule in ((10**30, "past the largest seed"), ("1-1000000000000", "past the limit of 100,000"),
                        (["1", "1"], "names a seed twice")):
        with pytest.raises(ConfigError, match=rule):
            world_task("startup", seeds=seeds, runs_dir=str(tmp_path / "runs"))
    done = subprocess.run([sys.executable, "-m", "inspect_ai", "eval", "bizsim/startup", "-T",
                           "seeds=1-1000000000000", "--model", "mockllm/model", "--log-dir", str(tmp_path / "logs")],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    shown = done.stdout + done.stderr
    assert "past the limit of 100,000" in shown and "Traceback" not in shown, shown[-3000:]


def test_bizsim_mcp_without_the_sdk_names_the_extra_as_the_checkout_installs_it(tmp_path):
    """Without the mcp extra `bizsim mcp` printed a raw ModuleNotFoundError traceback; it says, in one line, how
    to install the extra from the checkout (never the extra by name from a package index, which installs any
    package called bizsim), and touches no run directory."""
    code = ("import sys; sys.modules['mcp'] = None; sys.modules['mcp_types'] = None\n"
            "from bizsim.cli.main import main\n"
            f"sys.exit(main(['mcp', 'startup', '--out', {str(tmp_path / 'run')!r}]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert 2 == done.returncode
    assert 'pip install -e ".[mcp]"' in done.stderr and "bizsim[" not in done.stderr
    assert "Traceback" not in done.stderr and 1 == len(done.stderr.strip().splitlines())
    assert not (tmp_path / "run").exists()


def test_no_install_hint_names_the_package_on_an_index():
    """Every hint in the code and the docs installs an extra from the checkout."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = [*root.glob("*.md"), *root.glob("docs/**/*.md"), *(p for d in ("simcore", "models", "agents", "runs",
                                                                            "surfaces", "analysis", "view", "cli") for p in root.glob(f"{d}/**/*.py"))]
    offenders = [str(p.relative_to(root)) for p in files if p.name not in ("extras.py", "CHANGELOG.md")
                 and ("install 'bizsim[" in p.read_text(encoding="utf-8")
                      or 'install "bizsim[' in p.read_text(encoding="utf-8"))]
    assert [] == offenders


# --- `bizsim serve`: connections, threads and buffered bytes are bounded.

def _threads(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        return int(next(line for line in fh if line.startswith("Threads:")).split()[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")
def test_bizsim_serve_bounds_its_connections_and_threads(tmp_path):
    """2,000 silent connections held 2,002 threads (and 300 holding 4 MiB each, 1.25 GB); past
    MAX_SOCKET_CONNECTIONS a connection is told the server is busy and closed, and the served episode still
    answers once the silent ones go."""
    import signal
    import socket
    import time

    from bizsim.cli.shell_client import request
    from bizsim.simcore.limits import MAX_SOCKET_CONNECTIONS

    from .test_shell_session import BIZSIM, _wait_for_socket

    out = tmp_path / "run"
    proc = subprocess.Popen([*BIZSIM, "serve", "startup", "--seed", "1", "--out", str(out)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    silent = []
    try:
        _wait_for_socket(out / "episode.sock", proc)
        idle = _threads(proc.pid)
        for _ in range(3 * MAX_SOCKET_CONNECTIONS):
            s = socket.socket(socket.AF_UNIX)
            s.connect(str(out / "episode.sock"))
            s.sendall(b'{"line": "company status"')  # never finished: it holds its connection
            silent.append(s)
        time.sleep(1.0)
        assert _threads(proc.pid) <= idle + MAX_SOCKET_CONNECTIONS
        busy = []
        for s in silent:
            s.settimeout(0.01)
            try:
                busy.append(json.loads(s.recv(4096).decode()))
            except (TimeoutError, OSError, ValueError):
                pass
        assert len(busy) >= MAX_SOCKET_CONNECTIONS and all("its limit; nothing ran" in b["result"]["error"]
                                                            for b in busy)
        for s in silent:
            s.close()
        silent = []
        time.sleep(0.5)
        answer = request(str(out / "episode.sock"), {"line": "company status"}, 2**20)
        assert 0 == answer["status"] and "funds_cents" in json.dumps(answer["result"])
    finally:
        for s in silent:
            s.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads")
@pytest.mark.slow
def test_the_viewers_server_bounds_its_connections_and_frees_silent_ones(tmp_path, parent_run):
    """`bizsim view --serve` took a thread per connection without bound, and a silent one held its thread forever;
    past MAX_SOCKET_CONNECTIONS it answers 503 at once, and the page is still served."""
    import socket
    import threading
    import time
    import urllib.request

    from bizsim.view.server import ViewServer
    from bizsim.simcore.limits import MAX_SOCKET_CONNECTIONS

    with ViewServer([parent_run]) as server:
        host, port = server.httpd.server_address[:2]
        before = threading.active_count()
        silent = [socket.create_connection((host, port)) for _ in range(2 * MAX_SOCKET_CONNECTIONS)]
        try:
            time.sleep(0.5)
            assert threading.active_count() <= before + MAX_SOCKET_CONNECTIONS
            refused = 0
            for s in silent:
                s.settimeout(0.01)
                try:
                    refused += s.recv(100).startswith(b"HTTP/1.1 503")
                except OSError:
                    pass
            assert refused >= MAX_SOCKET_CONNECTIONS
        finally:
            for s in silent:
                s.close()
        time.sleep(0.5)
        with urllib.request.urlopen(server.url, timeout=30) as page:
            assert 200 == page.status


def test_the_stdio_line_reader_cuts_every_line_past_the_limit():
    """A line past MAX_MESSAGE_BYTES is cut whether its newline came in the same read or much later, or never."""
    import asyncio

    from bizsim.surfaces.mcp_stdio import MAX_MESSAGE_BYTES, _Lines

    def lines_of(data: bytes, chunk: int) -> list[tuple[int, bool]]:
        async def main() -> list[tuple[int, bool]]:
            pos = 0

            async def read(n: int) -> bytes:
                nonlocal pos
                piece = data[pos:pos + min(n, chunk)]
                pos += len(piece)
                return piece

            return [(len(line), cut) async for line, cut in _Lines(read)]

        return asyncio.run(main())

    over = b"x" * (MAX_MESSAGE_BYTES + 10)
    for chunk in (2**16, 2**25):  # the newline read with the line's end, or long after its start
        found = lines_of(over + b"\n" + b'{"a": 1}\n' + over, chunk)
        assert [True, False, True] == [cut for _, cut in found]
        assert found[1] == (8, False) and all(n <= 2**16 for n, cut in found if cut)
