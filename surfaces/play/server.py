"""The play page's server: 127.0.0.1 only, one unguessable token per session on every request, bounded requests.

Requests: ``GET /?t=TOKEN`` (the page), ``GET /state`` (what the page draws), ``POST /call`` (one command:
``{"tool", "arguments"}``; answers the outcome and the new state at once, one round trip a click) and ``POST /notes``
(``{"notes"}``); the last three carry the token in the ``X-Bizsim-Token`` header. A request from elsewhere than
loopback, addressed to another host name (DNS rebinding), sent by a page of another origin, without the token or
larger than :data:`~bizsim.surfaces.play.session.MAX_REQUEST_BYTES` is refused before it is read.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bizsim.simcore.errors import BizSimError, ConfigError
from bizsim.simcore.limits import SOCKET_REQUEST_SECONDS
from bizsim.simcore.untrusted_json import loads_untrusted

from bizsim.surfaces._bounded_server import LOOPBACK_HOST, LOOPBACK_ORIGIN, BoundedHTTPServer
from bizsim.surfaces.play.page import render
from bizsim.surfaces.play.session import MAX_REQUEST_BYTES, PlaySession

__all__ = ["PlayServer"]



class PlayServer:
    """Serves ``session``'s page on ``host:port`` (port 0: any free port); the URL holds the session's token.

    Raises:
        ConfigError: ``host`` is not a loopback address (the page plays a recorded run: it is never offered to
            the network), or the port cannot be listened on.
    """

    def __init__(self, session: PlaySession, *, host: str = "127.0.0.1", port: int = 0) -> None:
        if host != "127.0.0.1":
            raise ConfigError(f"host(={host!r}) must be 127.0.0.1: the play page plays a recorded run and is served "
                              "to this machine only")
        self.session = session
        self.token = secrets.token_urlsafe(32)
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = SOCKET_REQUEST_SECONDS
            protocol_version = "HTTP/1.1"  # one connection carries a whole game's clicks
            # Headers and body leave in one segment, at once: unbuffered writes met the peer's delayed ACK (~40 ms).
            wbufsize = 1 << 16
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                server._answer(self, "GET")

            def do_POST(self) -> None:
                server._answer(self, "POST")

        try:
            self.httpd = BoundedHTTPServer((host, port), Handler)
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port") from None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The page's address, token included: whoever has it can play this run."""
        port = self.httpd.server_address[1]
        return f"http://127.0.0.1:{port}/?t={self.token}"

    # -- answering -----------------------------------------------------------------
    def _answer(self, req: BaseHTTPRequestHandler, method: str) -> None:
        refusal = self._refusal(req)
        if refusal is not None:
            req.close_connection = True  # a body left unread must not be read as the next request
            self._send(req, {"error": refusal[1]}, refusal[0])
            return
        path = urlsplit(req.path).path
        try:
            if method == "GET" and path == "/":
                page = render(self.session.state(), token=self.token).encode("utf-8")
                self._send(req, page, 200, "text/html; charset=utf-8")
            elif method == "GET" and path == "/state":
                self._send(req, self.session.state())
            elif method == "POST" and path in ("/call", "/notes"):
                body = self._body(req)
                if body is None:
                    return
                if path == "/call":
                    answer = self.session.call(body.get("tool"), body.get("arguments", {}))
                else:
                    self.session.save_notes(body.get("notes"))
                    answer = {"saved": True}
                self._send(req, {"answer": answer, "state": self.session.state()})
            else:
                req.close_connection = True
                self._send(req, {"error": f"no {method} {path[:80]} here"}, 404)
        except BizSimError as exc:
            self._send(req, {"error": str(exc)}, 400)
        except Exception as exc:  # noqa: BLE001 -- one bad request must not stop the player's game; say what failed
            self._send(req, {"error": f"{type(exc).__name__}: {exc}"}, 500)

    def _refusal(self, req: BaseHTTPRequestHandler) -> tuple[int, str] | None:
        client = str(req.client_address[0])
        if not client.startswith("127."):
            return 403, "this server answers this machine only"
        if not LOOPBACK_HOST.fullmatch(req.headers.get("Host") or ""):
            return 421, "this server answers requests for 127.0.0.1 or localhost only"
        origin = req.headers.get("Origin")
        if origin is not None and not LOOPBACK_ORIGIN.fullmatch(origin):
            return 403, "requests from pages of other sites are refused"
        parts = urlsplit(req.path)
        given = req.headers.get("X-Bizsim-Token") or parse_qs(parts.query).get("t", [""])[0]
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode()):
            return 403, "the session token is missing or wrong: open the URL bizsim play printed"
        return None

    def _body(self, req: BaseHTTPRequestHandler) -> dict[str, Any] | None:
        try:
            length = int(req.headers.get("Content-Length") or "-1")
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_REQUEST_BYTES:
            req.close_connection = True
            self._send(req, {"error": f"a request body must state its length, at most {MAX_REQUEST_BYTES:,} bytes "
                                      f"(got {req.headers.get('Content-Length')!r}); send shorter arguments"}, 413)
            return None
        try:
            data = loads_untrusted(req.rfile.read(length).decode("utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            self._send(req, {"error": f"the request is not JSON ({str(exc)[:120]}); send one JSON object"}, 400)
            return None
        if not isinstance(data, dict):
            self._send(req, {"error": "the request must be one JSON object"}, 400)
            return None
        return data

    @staticmethod
    def _send(req: BaseHTTPRequestHandler, body: Any, status: int = 200, ctype: str = "application/json") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body, default=str, allow_nan=False).encode()
        req.send_response(status)
        req.send_header("Content-Type", ctype)
        req.send_header("Content-Length", str(len(data)))
        req.send_header("Cache-Control", "no-store")
        req.send_header("X-Content-Type-Options", "nosniff")
        req.send_header("Referrer-Policy", "no-referrer")
        req.send_header("X-Frame-Options", "DENY")
        req.end_headers()
        req.wfile.write(data)

    # -- running -----------------------------------------------------------------
    def start(self) -> PlayServer:
        """Serve from a daemon thread; returns ``self``."""
        # A short poll: close() waits for the loop to notice (the default half second, per server closed).
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="bizsim-play", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve until interrupted."""
        self.httpd.serve_forever()

    def close(self) -> None:
        """Stop serving, free the port and close the session (the run stays resumable)."""
        if self._thread is not None:
            self.httpd.shutdown()
        self.httpd.server_close()
        self.session.close()

    def __enter__(self) -> PlayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

