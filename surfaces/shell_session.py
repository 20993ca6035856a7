"""``bizsim serve``: one recorded episode kept alive behind a Unix socket in its run directory.

Clients (``bizsim do``, the ``yc-bench`` shim of ``bizsim shim``) connect to ``DIR/episode.sock``, send one
request and read one answer (the wire is described in :mod:`bizsim.cli.shell_client`). The socket and the run
directory are the owner's only (modes 0600 and 0700), and a client of another user is refused even so. Requests
from any number of clients are answered one at a time (the episode's lock), each recorded before it is answered.
A second ``serve`` on the same directory is refused (the episode's ``live.lock``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
from typing import Any

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import (MAX_CLIENT_NAME_CHARS, MAX_SOCKET_CONNECTIONS, MAX_SOCKET_MESSAGE_BYTES,
                                   SOCKET_REQUEST_SECONDS)
from bizsim.simcore.untrusted_json import loads_untrusted

from bizsim.surfaces._bounded_server import BoundedThreadingMixIn
from bizsim.runs.live import EXIT_USAGE, Episode
from bizsim.runs.rundir import RunDir

__all__ = ["MAX_SOCKET_PATH", "handle_request", "serve_socket"]

#: The longest path a Unix socket can be bound at (``sun_path`` holds 108 bytes, with its terminating zero).
MAX_SOCKET_PATH = 107


def handle_request(episode: Episode, data: bytes) -> dict[str, Any]:
    """The answer to one request read from the socket: ``{"status", "result"}``; a malformed one is a usage error."""
    try:
        message = loads_untrusted(data.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        return _usage("The request is not one JSON object.")
    if not isinstance(message, dict):
        return _usage("The request must be a JSON object with 'line' or 'argv'.")
    client = message.get("client")
    if isinstance(client, str) and client:
        episode.set_client(client[:MAX_CLIENT_NAME_CHARS])
    if "argv" in message:
        argv = message["argv"]
        if not isinstance(argv, list) or not all(isinstance(w, str) for w in argv):
            return _usage("'argv' must be a list of strings.")
        outcome = episode.call_argv(argv)
    elif "line" in message:
        outcome = episode.call_line(message["line"])
    else:
        return _usage("The request must hold 'line' (a command line) or 'argv' (its words).")
    return {"status": outcome.status, "result": outcome.result}


def _usage(message: str) -> dict[str, Any]:
    return {"status": EXIT_USAGE, "result": {"error": message, "hint": "Send {\"line\": \"company status\"}."}}


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        sock: socket.socket = self.request
        if not _same_user(sock):
            return
        # One deadline for the whole request: a client trickling a byte at a time cannot hold its thread longer.
        deadline = time.monotonic() + SOCKET_REQUEST_SECONDS
        chunks, size = [], 0
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                sock.settimeout(left)
                chunk = sock.recv(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_SOCKET_MESSAGE_BYTES:
                    self._reply(_usage(f"The request is larger than {MAX_SOCKET_MESSAGE_BYTES:,} bytes."))
                    return
                chunks.append(chunk)
                if chunk.endswith(b"\n"):
                    break
        except OSError:  # a client that went silent or away: nothing ran
            return
        if not chunks:  # a connection that sent nothing (a readiness probe) is no call
            return
        self._reply(handle_request(self.server.episode, b"".join(chunks)))

    def _reply(self, answer: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # the client left before its answer: the call is recorded all the same
            self.request.sendall((json.dumps(answer, ensure_ascii=True, default=str) + "\n").encode("ascii"))


class _Server(BoundedThreadingMixIn, socketserver.UnixStreamServer):
    request_queue_size = 128  # clients waiting to connect while one is answered (they retry past it)

    def __init__(self, path: str, episode: Episode) -> None:
        self.episode = episode
        super().__init__(path, _Handler)

    def refuse(self, request: Any) -> None:
        request.send((json.dumps(_busy()) + "\n").encode("ascii"))


def _busy() -> dict[str, Any]:
    return {"status": EXIT_USAGE, "result": {
        "error": f"The episode's server is answering {MAX_SOCKET_CONNECTIONS} connections, its limit; nothing ran.",
        "hint": "Send one request at a time, and try again."}}


def _same_user(sock: socket.socket) -> bool:
    """Whether the peer runs as this process's user (Linux ``SO_PEERCRED``; elsewhere the socket's mode decides)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    try:
        _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except OSError:
        return False
    return uid == os.getuid()


def serve_socket(episode: Episode) -> None:
    """Serve ``episode`` at ``DIR/episode.sock`` until SIGINT or SIGTERM; close it on the way out.

    Raises:
        ConfigError: the socket path is too long for a Unix socket, or cannot be bound.
    """
    root = episode.root
    if root is None:
        raise ConfigError("bizsim serve plays a recorded episode: open it with out=DIR")
    path = RunDir(root.resolve()).socket
    if len(os.fsencode(str(path))) > MAX_SOCKET_PATH:
        episode.close("the socket path is too long")
        raise ConfigError(f"the socket path {str(path)!r} is longer than {MAX_SOCKET_PATH} bytes, the limit of a Unix "
                          "socket; choose a shorter --out")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # a killed serve's; this episode holds the directory's lock, so no live one
    os.chmod(root, 0o700)
    old_mask = os.umask(0o177)  # the socket is created 0600: no moment at which another user may connect
    try:
        server = _Server(str(path), episode)
    except OSError as exc:
        episode.close("the socket cannot be bound")
        raise ConfigError(f"cannot serve at {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        os.umask(old_mask)
    # The handler asks the loop to stop instead of raising SystemExit: a signal that lands inside a finalizer or a
    # callback would have its exception swallowed there, and the server would keep serving (seen in the suite).
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: _stop(server))
    print(f"bizsim serve: {episode.world.benchmark_id} seed {episode.spec.seed} at {path}; "
          f"BIZSIM_RUN={episode.root} bizsim do \"company status\"", file=sys.stderr, flush=True)
    detail = "server stopped"
    try:
        server.serve_forever(poll_interval=0.5)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        episode.close(detail)


def _stop(server: socketserver.BaseServer) -> None:
    """Ask ``serve_forever`` to return at its next poll; from a thread, because ``shutdown`` waits for it."""
    threading.Thread(target=server.shutdown, name="bizsim-serve-stop", daemon=True).start()
