"""`bizsim openenv`: OpenEnv's own client plays concurrent recorded episodes of a world over WebSocket sessions."""

from __future__ import annotations

import asyncio
import importlib.util
import socket

import httpx
import pytest

if importlib.util.find_spec("openenv") is None:  # checked without the import: gradio's takes seconds per worker
    pytest.skip("needs openenv-core (bizsim[openenv])", allow_module_level=True)

from bizsim.cli.main import main

from ._openenv_server import serving
from bizsim.runs.rundir import read_record
from bizsim.runs.verify import verify_run_dir
from bizsim.agents.start import StartState
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.registry import world_names, world_spec

pytestmark = pytest.mark.xdist_group("openenv")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server on a free port of 127.0.0.1: operation, episodes of two days; stopped after the module."""
    from bizsim.surfaces.openenv_server import EpisodeRuns

    out = tmp_path_factory.mktemp("openenv")
    runs = EpisodeRuns("operation", seed=3, out=out, window={"days": 2})
    for url in serving(runs):
        yield url, out


async def _play(url: str, seed: int) -> tuple[list[float], dict, dict]:
    """One session: reset on ``seed``, then (a tool call, a command line) a day until the window ends."""
    from openenv.core.generic_client import GenericEnvClient

    async with GenericEnvClient(base_url=url) as env:
        first = await env.reset(seed=seed, episode_id=f"e{seed}")
        assert {"creator_incentive", "task_done"} <= {t["function"]["name"] for t in first.observation["tools"]}
        rewards, done = [], False
        while not done:
            for action in ({"tool": "creator_incentive", "arguments": {}}, {"command": "task_done"}):
                result = await env.step(action)
                rewards.append(result.reward)
                done = result.done
        after = await env.step({"command": "task_done"})
        return rewards, dict(await env.state()), after.observation["result"]


def test_concurrent_sessions_each_play_a_recorded_episode_that_verifies(server):
    """Eight sessions at once, each with its own world: the window ends each after two days, the rewards sum to
    the metric change, a step after the end is refused, and every run directory replays to its record."""
    url, out = server

    async def many():
        return await asyncio.gather(*(_play(url, seed) for seed in range(10, 18)))

    played = asyncio.run(many())
    for seed, (rewards, state, after) in zip(range(10, 18), played, strict=True):
        assert (seed, f"e{seed}", 2, True) == (state["seed"], state["episode_id"], state["turns"], state["done"])
        assert sum(rewards) == pytest.approx(state["metric"] - state["start_metric"], rel=1e-12)
        assert "the episode has ended" in after["error"]
        run = out / state["run"]
        assert verify_run_dir(run).ok
        record = read_record(run)
        assert ("openenv", seed, 4) == (record.live["surface"], record.seed, record.live["calls"])


def test_bad_requests_are_refused_with_the_rule(server):
    """A step before any reset answers an error observation; an action that is both a command and a tool call is
    a validation error (the session goes on), a negative seed is refused with its rule."""
    from openenv.core.generic_client import GenericEnvClient

    url, _ = server

    async def session():
        async with GenericEnvClient(base_url=url) as env:
            early = await env.step({"command": "help"})
            assert early.done and "No episode is open" in early.observation["result"]["error"]
            with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
                await env.step({"command": "help", "tool": "task_done"})
            await env.reset(seed=4)
            assert not (await env.step({"command": "help"})).observation["error"]
        async with GenericEnvClient(base_url=url) as env:
            with pytest.raises(RuntimeError, match=r"seed\(=-1\) must be an integer from 0"):
                await env.reset(seed=-1)

    asyncio.run(session())
    # OpenEnv's client shows only the error's code; its HTTP route answers the rule.
    answer = httpx.post(f"{url}/step", json={"action": {"command": "help", "tool": "task_done"}}, timeout=30)
    assert 422 == answer.status_code and "one of them" in answer.text


def test_the_command_refuses_a_port_in_use_before_serving(tmp_path, capsys):
    """`bizsim openenv` names the address it cannot listen on and exits 2."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert 2 == main(["openenv", "operation", "--out", str(tmp_path), "--port", str(port)])
    assert f"cannot serve OpenEnv on 127.0.0.1:{port}" in capsys.readouterr().err


@pytest.mark.parametrize("world", world_names())
def test_every_registered_world_plays_an_episode_through_the_environment(world, tmp_path):
    """Each registered world resets with its tools and plays its advance command; the run directory verifies."""
    from bizsim.surfaces.openenv_server import BizSimAction, BizSimEnvironment, EpisodeRuns

    env = BizSimEnvironment(EpisodeRuns(world, out=tmp_path))
    first = env.reset(seed=2)
    advance = env.episode.advance_command
    assert any(t["function"]["name"] == advance.replace(" ", "_") for t in first.tools) and not first.done
    stepped = env.step(BizSimAction(command=advance))
    assert (world_spec(world).benchmark_id, 1) == (env.state.world, env.state.step_count)
    assert stepped.reward == pytest.approx(stepped.metric - env.episode.start_metric)
    run = tmp_path / env.state.run
    env.close()
    assert verify_run_dir(run).ok


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"world": 3}, r"world\(=3\) must be a registered world's name"),
    ({"preset": "nope"}, r"unknown operation preset 'nope'"),
    ({"seed": -1}, r"seed\(=-1\) must be an integer from 0"),
    ({"reward": "dense"}, r"reward\(='dense'\) must be one of delta, terminal, shaped"),
    ({"reward": "shaped", "reward_weights": {"users": 1}},
     r"reward_weights\['users'\] is not a sub-metric of operation"),
    ({"reward_scale": float("nan")}, r"reward_scale\(=nan\) must be a finite number > 0"),
    ({"window": {"days": 0}}, r"days\(=0\) must be a finite number > 0"),
    ({"start": StartState("startup")}, r"start is a start state of startup, not operation"),
])
def test_server_arguments_are_refused_with_their_rule(kwargs, match, tmp_path):
    """Every argument of the server's episodes is checked before it listens; so is the number of sessions."""
    from bizsim.surfaces.openenv_server import EpisodeRuns, build_app

    with pytest.raises(ConfigError, match=match):
        EpisodeRuns(**{"world": "operation", "out": tmp_path, **kwargs})
    with pytest.raises(ConfigError, match=r"max_episodes\(=0\) must be an integer from 1 to 1,024"):
        build_app(EpisodeRuns("operation", out=tmp_path), max_episodes=0)


def test_a_shaped_server_pays_the_metric_change_plus_the_weighted_sub_metrics_scaled(tmp_path, capsys):
    """``reward="shaped"`` with a weight given: a step's reward is (the metric change plus each weight times its
    sub-metric's change) times ``reward_scale``; the command takes ``--reward shaped --reward-weight NAME=W`` and
    refuses a weight that is not a number or names no sub-metric before it listens."""
    from bizsim.surfaces.openenv_server import BizSimAction, BizSimEnvironment, EpisodeRuns

    env = BizSimEnvironment(EpisodeRuns("operation", out=tmp_path, reward="shaped", reward_scale=0.5,
                                        reward_weights={"dau": 2.0}))
    env.reset(seed=2)
    before = env.episode.world.summary()
    stepped = env.step(BizSimAction(command="task_done"))
    after = env.episode.world.summary()
    gain = (after["mean_dau"] - before["mean_dau"] + 2.0 * (after["final_dau"] - before["final_dau"])
            + 60 * sum(after[k] - before[k] for k in ("final_content_quality", "final_creator_activity")))
    assert 0.5 * gain == pytest.approx(stepped.reward, rel=1e-12) and gain != after["mean_dau"] - before["mean_dau"]
    env.close()
    with pytest.raises(SystemExit) as usage:  # argparse's usage error
        main(["openenv", "operation", "--out", str(tmp_path), "--reward", "shaped", "--reward-weight", "dau=x"])
    assert 2 == usage.value.code
    assert "'dau=x' must look like NAME=W with W a finite number" in capsys.readouterr().err
    assert 2 == main(["openenv", "operation", "--out", str(tmp_path), "--reward", "shaped", "--reward-weight",
                      "prestige=1"])
    assert "reward_weights['prestige'] is not a sub-metric of operation" in capsys.readouterr().err


def test_a_sub_metric_weighed_twice_on_the_command_line_is_refused_before_serving(tmp_path, capsys, monkeypatch):
    """``--reward-weight dau=1 ... --reward-weight dau=2`` weighs one sub-metric twice: refused, naming it, where a
    dict would have served the last weight and dropped the first unsaid."""
    from bizsim.surfaces import openenv_server

    def served(*_args, **_kwargs):
        raise AssertionError("the server started with a sub-metric weighed twice")

    monkeypatch.setattr(openenv_server, "serve", served)
    assert 2 == main(["openenv", "operation", "--out", str(tmp_path), "--reward", "shaped", "--reward-weight",
                      "dau=1", "--reward-weight", "content_quality=5", "--reward-weight", "dau=2"])
    assert "--reward-weight names 'dau' more than once" in capsys.readouterr().err


def test_a_reward_weight_without_a_shaped_reward_is_refused_in_the_commands_own_terms(tmp_path, capsys):
    """``--reward-weight`` with ``--reward`` delta or terminal: the error names the flags to change, not the Python
    arguments they become."""
    for reward in ("delta", "terminal"):
        assert 2 == main(["openenv", "operation", "--out", str(tmp_path), "--reward", reward, "--reward-weight",
                          "dau=1"])
        assert (f"--reward-weight weighs the sub-metrics of --reward shaped and --reward is {reward}: add --reward "
                "shaped or drop --reward-weight") in capsys.readouterr().err


def test_only_this_machines_clients_and_bounded_bodies_are_served(server):
    """A page of another site (its Origin), a request for another host name (DNS rebinding) and a body past the
    limit are refused before OpenEnv sees them; a plain local client is served."""
    from bizsim.surfaces.openenv_server import MAX_BODY_BYTES

    url, out = server
    before = sorted(p.name for p in out.iterdir())
    assert 200 == httpx.get(f"{url}/schema").status_code
    assert 403 == httpx.post(f"{url}/reset", json={}, headers={"Origin": "https://evil.example"}).status_code
    assert 403 == httpx.post(f"{url}/reset", json={}, headers={"Host": "evil.example"}).status_code
    big = httpx.post(f"{url}/step", content=b"{" + b" " * MAX_BODY_BYTES + b"}",
                     headers={"Content-Type": "application/json"})
    assert 413 == big.status_code
    assert before == sorted(p.name for p in out.iterdir())  # no episode was opened for them

    async def foreign_socket():
        import websockets

        with pytest.raises(websockets.exceptions.WebSocketException):
            async with websockets.connect(url.replace("http", "ws") + "/ws", origin="https://evil.example") as ws:
                await ws.send("{}")
                await ws.recv()

    asyncio.run(foreign_socket())
