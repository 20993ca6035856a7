"""A thread per connection, but a bounded number of them: the servers bizsim runs (``bizsim serve``'s socket,
``bizsim view --serve``) take no more connections at once than :data:`MAX_SOCKET_CONNECTIONS`.

Past the bound a connection is answered at once by the server's :meth:`BoundedThreadingMixIn.refuse` (never
waited on) and closed, so silent or slow clients cannot pile up threads, or the bytes each thread buffers.
"""

from __future__ import annotations

import re
import socketserver
import threading
from http.server import HTTPServer
from typing import Any

from bizsim.simcore.limits import MAX_SOCKET_CONNECTIONS

__all__ = ["LOOPBACK", "LOOPBACK_HOST", "LOOPBACK_ORIGIN", "BoundedHTTPServer", "BoundedThreadingMixIn"]

#: The host names of this machine's loopback interface.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: A loopback server answers only requests addressed to a loopback name: a web page elsewhere that points its own
#: domain at 127.0.0.1 (DNS rebinding) is refused, so it cannot read what the server holds.
LOOPBACK_HOST = re.compile(r"(?:127\.0\.0\.1|localhost|\[::1\])(?::[0-9]{1,5})?", re.IGNORECASE)
#: A page of this machine (a browser's ``Origin`` header): any other site's script is refused.
LOOPBACK_ORIGIN = re.compile(r"https?://" + LOOPBACK_HOST.pattern, re.IGNORECASE)


class BoundedThreadingMixIn(socketserver.ThreadingMixIn):
    """``ThreadingMixIn`` with at most ``max_connections`` connections served at once (daemon threads)."""

    daemon_threads = True
    max_connections = MAX_SOCKET_CONNECTIONS
    _slots: threading.BoundedSemaphore | None = None

    def process_request(self, request: Any, client_address: Any) -> None:
        if self._slots is None:
            self._slots = threading.BoundedSemaphore(self.max_connections)
        if not self._slots.acquire(blocking=False):
            try:
                request.setblocking(False)  # the answer is sent if it fits the socket's buffer, never waited on
                self.refuse(request)
            except OSError:
                pass
            self.shutdown_request(request)  # type: ignore[attr-defined]
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            assert self._slots is not None
            self._slots.release()

    def refuse(self, request: Any) -> None:
        """Tell a connection past the bound that the server is busy (the default says nothing)."""


class BoundedHTTPServer(BoundedThreadingMixIn, HTTPServer):
    """The HTTP server of the viewer and the play page: a thread per connection, at most MAX_SOCKET_CONNECTIONS at
    once; one more is told 503."""

    # A browser opens a burst of connections: they wait in the kernel's queue instead of having their SYNs dropped
    # and resent a second later (the default queue holds 5), and each is then served or told 503 at once.
    request_queue_size = 4 * MAX_SOCKET_CONNECTIONS

    def refuse(self, request: Any) -> None:
        request.send(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
