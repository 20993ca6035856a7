"""The client side of ``bizsim serve``: send one command to the episode's socket, print its answer.

This module uses the standard library only and imports nothing of bizsim: ``bizsim shim`` copies its source
into the ``yc-bench`` program it writes, which starts with ``python -IS`` (isolated, no site packages), so each
command an agent types costs a few milliseconds.

The wire: one request a connection, one JSON object (``{"line": "market browse --limit 5"}`` or
``{"argv": ["market", "browse", "--limit", "5"]}``, with an optional ``"client"`` name) followed by a newline;
the answer is one JSON object ``{"status": 0|1|2, "result": {...}}`` and a newline.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from typing import Any

__all__ = ["forward", "request"]

#: How long a command may take to answer (an advance runs the simulation to its next stop).
TIMEOUT_S = 600.0


class ServeError(Exception):
    """No episode answers at the socket, or it answered nonsense."""


def request(socket_path: str, message: dict[str, Any], limit: int) -> dict[str, Any]:
    """Send ``message`` to the episode served at ``socket_path``; return its answer (at most ``limit`` bytes)."""
    data = (json.dumps(message) + "\n").encode("utf-8", "surrogatepass")
    if len(data) > limit:
        raise ServeError(f"the command is {len(data):,} bytes as JSON; the limit is {limit:,}")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(TIMEOUT_S)
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            try:
                sock.connect(socket_path)
                break
            except BlockingIOError:  # the server's queue of waiting clients is full: wait for a turn
                if time.monotonic() > deadline:
                    raise ServeError(f"the episode at {socket_path} is too busy") from None
                time.sleep(0.01)
            except OSError as exc:
                raise ServeError(f"no episode is served at {socket_path} ({exc.strerror or exc}); start one with "
                                 "`bizsim serve WORLD --out DIR`") from None
        chunks, size = [], 0
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    raise ServeError(f"the answer is larger than {limit:,} bytes")
                chunks.append(chunk)
        except OSError as exc:  # a reset or a call slower than the timeout: exit 2, not a traceback (1 = refused)
            raise ServeError(f"the episode at {socket_path} did not answer ({exc.strerror or exc})") from None
    finally:
        sock.close()
    try:
        reply = json.loads(b"".join(chunks).decode("utf-8"))
    except ValueError:
        raise ServeError(f"the episode at {socket_path} answered something that is not JSON") from None
    if not isinstance(reply, dict) or reply.get("status") not in (0, 1, 2) or not isinstance(reply.get("result"), dict):
        raise ServeError(f"the episode at {socket_path} answered an unexpected object")
    return reply


def forward(socket_path: str, message: dict[str, Any], limit: int) -> int:
    """Send ``message``, print the answer as YC-Bench's command line prints, return its exit status.

    0: the result on stdout (a help text as text); 1: the world refused the command, its error on stdout;
    2: nothing ran, ``Error: ...`` on stderr (also when no episode answers).
    """
    try:
        reply = request(socket_path, message, limit)
    except ServeError as exc:
        sys.stderr.write(f"Error: {exc}\n")
        return 2
    status, result = reply["status"], reply["result"]
    if status == 2:
        hint = f" {result['hint']}" if isinstance(result.get("hint"), str) else ""
        sys.stderr.write(f"Error: {result.get('error')}{hint}\n")
    elif status == 0 and set(result) == {"help"} and isinstance(result["help"], str):
        sys.stdout.write(result["help"] + "\n")
    else:
        sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return int(status)
