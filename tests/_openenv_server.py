"""An OpenEnv server of bizsim's on a free port of 127.0.0.1, run on a thread for a test module."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any


def serving(runs: Any, **options: Any) -> Iterator[str]:
    """Serve ``runs`` (an ``EpisodeRuns``) until the generator is closed; yields the server's URL."""
    from bizsim.surfaces.openenv_server import serve

    box: dict = {}
    thread = threading.Thread(target=serve, args=(runs,), daemon=True, kwargs={
        "port": 0, "ready": lambda s, p: box.update(server=s, port=p), **options})
    thread.start()
    deadline = time.monotonic() + 60
    while not (box.get("server") and box["server"].started):
        assert time.monotonic() < deadline, "the OpenEnv server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{box['port']}"
    finally:
        box["server"].should_exit = True
        thread.join(10)
