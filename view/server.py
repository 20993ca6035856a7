"""``bizsim view --serve``: the page on 127.0.0.1, rebuilt when the run's files change (``--follow``)."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from bizsim.simcore.limits import SOCKET_REQUEST_SECONDS

from bizsim.surfaces._bounded_server import LOOPBACK as _LOOPBACK
from bizsim.surfaces._bounded_server import LOOPBACK_HOST as _LOOPBACK_HOST
from bizsim.surfaces._bounded_server import BoundedHTTPServer

__all__ = ["ViewServer"]

_RUN = re.compile(r"/run/([A-Za-z0-9_.-]{1,128})")
_PAGE = re.compile(r"/page/([^/]{1,300})")


def _version(paths: Sequence[Path]) -> str:
    """A fingerprint of the files under ``paths`` (names, sizes, modification times), two levels deep."""
    h = hashlib.sha256()
    for root in paths:
        for p in sorted([root, *root.glob("*"), *root.glob("*/*")]):
            try:
                st = p.stat()
            except OSError:
                continue
            h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()[:16]


class ViewServer:
    """Serves the viewer of ``paths`` on ``host:port`` (port 0: any free port) from a daemon thread.

    Args:
        paths: what ``bizsim view`` was given.
        follow: the page polls for fresh data every two seconds and redraws when the files changed.
        options: passed to the loaders (e.g. ``requests=False``).
    """

    def __init__(self, paths: Sequence[str | Path], *, host: str = "127.0.0.1", port: int = 0, follow: bool = False,
                 **options: Any) -> None:
        from bizsim.view import view_data

        self.paths = [Path(p) for p in paths]
        self.follow = follow
        self.options = options
        self._lock = threading.Lock()
        self._cache: tuple[str, bytes] | None = None
        view_data(self.paths, **options)  # fail now, with a clear message, not on the first request
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = SOCKET_REQUEST_SECONDS  # a silent client's thread is freed (it held one forever)

            def log_message(self, *args: Any) -> None:  # quiet: the terminal shows the URL only
                return

            def do_GET(self) -> None:
                server._answer(self)

        self.check_host = host in _LOOPBACK
        self.httpd = BoundedHTTPServer((host, port), Handler)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The page's address."""
        host, port = self.httpd.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        return f"http://{name}:{port}/"

    def _data(self) -> tuple[str, bytes]:
        from bizsim.view import view_data
        from bizsim.view.page import embed_json

        version = _version(self.paths)
        with self._lock:
            if self._cache is None or self._cache[0] != version:
                data = view_data(self.paths, **self.options)
                # The links go in the data itself: a followed page redraws from /data.json and must keep them.
                if data.get("kind") == "sweep":
                    data["run_links"] = "/run/{id}"
                if isinstance(data.get("pages"), dict):
                    data["page_links"] = "/page/{id}"
                self._cache = (version, embed_json(data).encode("utf-8"))
            return self._cache

    def _answer(self, req: BaseHTTPRequestHandler) -> None:
        from bizsim.view import back_link, title_of
        from bizsim.view.page import render
        from bizsim.view.sources import load_view, page_data

        if self.check_host and not _LOOPBACK_HOST.fullmatch(req.headers.get("Host") or ""):
            self._send(req, b"this server answers requests for 127.0.0.1 or localhost only",
                       "text/plain; charset=utf-8", "", 421)
            return
        parts = urlsplit(req.path)
        try:
            if parts.path == "/data.json":
                version, body = self._data()
                since = parse_qs(parts.query).get("since", [""])[0]
                if since == version:
                    req.send_response(204)
                    req.end_headers()
                    return
                self._send(req, body, "application/json", version)
                return
            found = _RUN.fullmatch(parts.path)
            if parts.path == "/":
                version, body = self._data()
                data = json.loads(body)
                page = render(data, title=title_of(data), follow="/data.json" if self.follow else None, version=version)
                self._send(req, page.encode("utf-8"), "text/html; charset=utf-8", version)
                return
            page_id = _PAGE.fullmatch(parts.path)
            if page_id and len(self.paths) == 1:
                # Only a page the data names: the id never becomes a path of its own.
                home = json.loads(self._data()[1])
                spec = home.get("pages", {}).get(unquote(page_id.group(1)))
                if spec is not None:
                    data = page_data(self.paths[0], spec, **self.options) | {"back": back_link(home, "/")}
                    self._send(req, render(data, title=title_of(data)).encode("utf-8"), "text/html; charset=utf-8", "")
                    return
            if found and len(self.paths) == 1 and found.group(1) in json.loads(self._data()[1]).get("run_dirs", []):
                data = load_view(self.paths[0] / "runs" / found.group(1), **self.options) | {
                    "back": back_link({"kind": "sweep"}, "/")}
                self._send(req, render(data, title=title_of(data)).encode("utf-8"), "text/html; charset=utf-8", "")
                return
        except Exception as exc:  # noqa: BLE001 -- a bad file must not take the server down; say what failed
            self._send(req, f"bizsim view: {type(exc).__name__}: {exc}".encode(), "text/plain; charset=utf-8", "", 500)
            return
        self._send(req, b"not found", "text/plain; charset=utf-8", "", 404)

    @staticmethod
    def _send(req: BaseHTTPRequestHandler, body: bytes, ctype: str, version: str, status: int = 200) -> None:
        req.send_response(status)
        req.send_header("Content-Type", ctype)
        req.send_header("Content-Length", str(len(body)))
        req.send_header("Cache-Control", "no-store")
        if version:
            req.send_header("X-Bizsim-Version", version)
        req.end_headers()
        req.wfile.write(body)

    def start(self) -> ViewServer:
        """Serve from a daemon thread; returns ``self``."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="bizsim-view", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve until interrupted."""
        self.httpd.serve_forever()

    def close(self) -> None:
        """Stop serving and free the port."""
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> ViewServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
