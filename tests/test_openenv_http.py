"""`bizsim openenv` over plain HTTP and hostile WebSocket messages: a refused reset answers its rule (not a 500
with a traceback), stateless resets record a bounded number of run directories, and a message nested past the
limit is refused before OpenEnv's own parser recurses, the session going on."""

from __future__ import annotations

import asyncio
import importlib.util
import json

import httpx
import pytest

if importlib.util.find_spec("openenv") is None:  # checked without the import: gradio's takes seconds per worker
    pytest.skip("needs openenv-core (bizsim[openenv])", allow_module_level=True)

from ._hang_guard import no_hang
from ._openenv_server import serving

pytestmark = pytest.mark.xdist_group("openenv")
MAX_EPISODES = 3


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server on a free port of 127.0.0.1 holding at most three episodes; stopped after the module."""
    from bizsim.surfaces.openenv_server import EpisodeRuns

    out = tmp_path_factory.mktemp("openenv-http")
    runs = EpisodeRuns("operation", seed=3, out=out, window={"days": 2})
    for url in serving(runs, max_episodes=MAX_EPISODES):
        yield url, out


def _post(url: str, path: str, body: bytes) -> httpx.Response:
    return httpx.post(url + path, content=body, headers={"Content-Type": "application/json"}, timeout=30)


@pytest.mark.parametrize(("body", "rule"), [
    (b'{"seed": 9223372036854775808}', "seed(=an integer of 64 bits) must be an integer from 0 to 9223372036854775807"),
    (b'{"seed": 18446744073709551616}', "must be an integer from 0 to 9223372036854775807"),
    (b'{"seed": 1e400}', "Input should be a finite number"),
    (b'{"colour": "blue"}', "reset takes seed and episode_id, not ['colour']"),
])
def test_a_refused_http_reset_answers_its_rule(server, capfd, body, rule):
    """Each answered 500 with a traceback in the server's log; over WebSocket the same input was refused with
    its rule. No run directory is made for it."""
    url, out = server
    before = sorted(p.name for p in out.iterdir())
    answer = _post(url, "/reset", body)
    assert 422 == answer.status_code
    assert rule in json.dumps(answer.json()["detail"]).replace('\\"', '"')
    assert before == sorted(p.name for p in out.iterdir())
    assert "Traceback" not in capfd.readouterr().err


def test_a_step_whose_validation_error_quotes_infinity_answers_422(server, capfd):
    """FastAPI's own answer quoted the value back and could not encode infinity: a 500."""
    url, _ = server
    answer = _post(url, "/step", b'{"action": {"command": 1e400}}')
    assert 422 == answer.status_code and "Infinity" in answer.text
    assert "Traceback" not in capfd.readouterr().err


def test_a_request_body_nested_past_the_limit_is_refused(server):
    from bizsim.surfaces.openenv_server import MAX_MESSAGE_DEPTH

    url, _ = server
    with no_hang("a deep request body"):
        answer = _post(url, "/reset", b'{"seed": ' + b"[" * 300_000 + b"]" * 300_000 + b"}")
    assert 400 == answer.status_code and f"deeper than {MAX_MESSAGE_DEPTH} levels" in answer.text


def test_a_700000_deep_websocket_message_is_refused_and_the_session_goes_on(server):
    """OpenEnv's handler parsed it with json.loads and ended the session with a recursion error; it is answered
    with OpenEnv's own INVALID_JSON error before that, and the same session then plays."""
    import websockets

    url, _ = server

    async def session() -> tuple[dict, dict]:
        async with websockets.connect(url.replace("http", "ws") + "/ws", max_size=None) as ws:
            await ws.send("[" * 700_000)
            refused = json.loads(await ws.recv())
            await ws.send(json.dumps({"type": "reset", "data": {"seed": 2}}))
            opened = json.loads(await ws.recv())
            await ws.send(json.dumps({"type": "close", "data": {}}))
            return refused, opened

    with no_hang("a deep WebSocket message"):
        refused, opened = asyncio.run(session())
    assert ("error", "INVALID_JSON") == (refused["type"], refused["data"]["code"])
    assert "nested deeper than" in refused["data"]["message"]
    assert "observation" == opened["type"]


def test_http_resets_record_at_most_max_episodes_run_directories(server):
    """300 stateless resets made 300 run directories; a server now records at most --max-episodes of them and
    refuses the next with the rule (a session over /ws is the way to train)."""
    url, out = server
    before = len(list(out.iterdir()))
    codes = [_post(url, "/reset", b'{"seed": 5}').status_code for _ in range(MAX_EPISODES + 3)]
    assert codes.count(200) <= MAX_EPISODES and codes[-1] == 429
    assert len(list(out.iterdir())) - before == codes.count(200)
    assert "--max-episodes" in _post(url, "/reset", b"{}").text
