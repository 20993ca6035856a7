"""A text stepping API for external agent frameworks: command lines in, JSON text out.

>>> env = TextEnv("operation", "default", seed=1)
>>> env.reset(seed=1).splitlines()[0][:8]
'You oper'
>>> observation, reward, done, info = env.step("creator_incentive")
>>> observation.startswith('{"action":"creator_incentive"'), reward, done
(True, 0.0, False)
"""

from __future__ import annotations

from typing import Any

from bizsim.models import make_world
from bizsim.runs.observation import metric_of, observation_text, prompt_text
from bizsim.simcore.driver import Driver
from bizsim.simcore.errors import BizSimError
from bizsim.simcore.registry import world_spec
from bizsim.simcore.world import World

__all__ = ["TextEnv", "metric_of", "observation_text", "prompt_text"]


class TextEnv:
    """Step a registered world one command line at a time, from outside SimPy.

    It sits on :class:`bizsim.simcore.driver.Driver`, so a run driven through
    it leaves exactly the trajectory a native agent process issuing the same
    lines leaves.

    Reward: the change of the world's metric (``summary()["metric_value"]``)
    caused by the step, so the rewards of an episode sum to the final metric
    minus the initial one. The metric is the world's own: startup funds in
    cents, operation mean DAU over the days so far, vending net worth in cents.

    With a ``start`` (:class:`~bizsim.agents.start.StartState`) an episode
    begins where it says (a recorded point, or a policy's play until a
    point, on the episode's seed); with a ``window``
    (:class:`~bizsim.agents.start.Window`) it ends after that many agent
    turns or simulated days (``done``, with ``info["truncated"]`` true).
    The return over a window is the metric at its end minus the metric at
    its start.

    Args:
        world: a registered world name (``startup``, ``operation``, ``vending``...).
        preset: a preset name, a ``.toml`` path, or a config object.
        seed: the episode seed :meth:`reset` uses when given none.
        start: where episodes start (default: a fresh world of ``preset``), or a snapshot.
        window: how long an episode lasts (default: until the world ends): a ``Window``, ``N`` turns or
            ``{"days": D}``.
    """

    def __init__(self, world: str, preset: Any = "default", seed: int = 1, *, start: Any = None,
                 window: Any = None) -> None:
        from bizsim.agents.start import Window, start_of

        self.world_name = world_spec(world).world_class().name  # checks the name now, not at the first reset
        self.preset = preset
        self.seed = int(seed)
        self.start = start_of(start)
        if self.start is not None and self.start.world_name != self.world_name:
            raise BizSimError(f"start is a start state of {self.start.world_name}, not {self.world_name}")
        self.window = Window.of(window)
        self._driver: Driver | None = None
        self._metric = 0.0
        #: Where the current episode started: its metric, instant, and the agent turns played since.
        self.start_metric = 0.0
        self.start_us = 0
        self.turns = 0

    @property
    def world(self) -> World:
        """The live world (after :meth:`reset`)."""
        return self._require().world

    @property
    def metric(self) -> float:
        """The world's metric after the last step (or at reset)."""
        self._require()
        return self._metric

    @property
    def done(self) -> bool:
        """True once the episode has ended."""
        return self._require().done

    def reset(self, seed: int | None = None) -> str:
        """Start a new episode (on ``seed``, else the last seed given: the constructor's until a reset names one);
        return the first observation.

        The first observation is the world's system prompt (see :func:`prompt_text`). The previous episode's
        world is freed first (:meth:`close`): read what you need of it before.
        """
        if seed is not None:
            self.seed = int(seed)
        self.close()  # a finished world would otherwise wait for the cyclic garbage collector
        world = make_world(self.world_name, self.preset, self.seed) if self.start is None else self.start.world(self.seed)
        self._driver = Driver(world)
        self._metric = self.start_metric = metric_of(world)
        self.start_us, self.turns = world.now_us, 0
        return prompt_text(world)

    @property
    def truncated(self) -> bool:
        """True once the episode's window is over (never without a window)."""
        if self.window is None or self._driver is None:
            return False
        world = self._driver.world
        return self.window.ends(self.turns, self.window.days_since(self.start_us, world.now_us))

    def step(self, command: str) -> tuple[str, float, bool, dict]:
        """Run one command line; return ``(observation, reward, done, info)``.

        The observation is the command's result (for the advance command, the
        report of the next stop) as JSON text; a refused command's is its
        ``{"error", "hint"}`` and changes nothing. ``info`` holds the result
        as data, ``error`` (refused or not), the ``metric``, the world's
        ``status`` and ``time``.

        Raises:
            BizSimError: the episode has ended (call :meth:`reset`) or was never started.
        """
        driver = self._require()
        if driver.done or self.truncated:
            why = driver.world.status.value if driver.done else "its window is over"
            raise BizSimError(f"the episode has ended ({why}); call reset() to start another")
        if not isinstance(command, str):
            raise BizSimError(f"command(={command!r}) must be a command line (str), e.g. 'help'")
        before = len(driver.world.trajectory)
        result = driver.send(command)
        return self._outcome(result, before)

    def step_tool(self, name: str, arguments: dict[str, Any] | None) -> tuple[str, float, bool, dict]:
        """Run one tool call (a command's tool name and JSON arguments); as :meth:`step`."""
        driver = self._require()
        if driver.done or self.truncated:
            raise BizSimError("the episode has ended; call reset() to start another")
        before = len(driver.world.trajectory)
        result = driver.send_tool(name, arguments)
        return self._outcome(result, before)

    def _outcome(self, result: Any, before: int) -> tuple[str, float, bool, dict]:
        world = self.world
        # An advance command ends the agent's turn, even one the world refused (as turns count in a run's log).
        if ("cmd", world.advance_command) in world.trajectory.heads_since(before):
            self.turns += 1
        metric = metric_of(world)
        reward, self._metric = metric - self._metric, metric
        truncated = not world.done and self.truncated
        info = {"result": result, "error": isinstance(result, dict) and "error" in result, "metric": metric,
                "status": world.status.value, "time": world.now_iso, "truncated": truncated, "turns": self.turns}
        return observation_text(result), reward, world.done or truncated, info

    def close(self) -> None:
        """Free the current episode's world now (:meth:`World.close`); :meth:`reset` starts another."""
        if self._driver is not None:
            self._driver.world.close()
            self._driver = None

    def _require(self) -> Driver:
        if self._driver is None:
            raise BizSimError("no episode yet; call reset() first")
        return self._driver
