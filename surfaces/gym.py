"""Gymnasium adapters for every registered world, as ``bizsim/<world>-v<version>`` (see :func:`env_id`).

Importing this module registers one environment id per world of
:func:`bizsim.simcore.registry.world_names` (lazy entry-point strings: no world is built
until ``gymnasium.make``). ``import bizsim`` alone registers nothing.

>>> import gymnasium
>>> env = gymnasium.make("bizsim/operation-v1")
>>> text, info = env.reset(seed=1)
>>> env.unwrapped.action_names[env.action_space.n - 1]
'task_done'

Observations are text (``gymnasium.spaces.Text``): the world's system prompt
after ``reset``, then each command's result as JSON (ASCII only). Actions are
command lines, except for operation, whose actions are ``Discrete(5)``: its
four interventions and ``task_done`` (``actions="text"`` gives command lines
there too). The reward is the change of the world's metric the step caused
(see :class:`bizsim.surfaces.textenv.TextEnv`); an episode ends (``terminated``)
when the world does. The registered ids truncate an episode after
:data:`MAX_EPISODE_STEPS` steps (``gymnasium.make(..., max_episode_steps=N)``
changes it): only the advance command moves the clock, so a policy that never
sends it would otherwise never finish.

Vectorized: ``gymnasium.make_vec(..., vectorization_mode="async")`` needs
``vector_kwargs={"shared_memory": False}``. Gymnasium's shared memory reads
text observations only once, when the vector env is built, so it would hand
back stale observations; bizsim's observation space refuses it with
Gymnasium's own error instead. The sync vector env needs nothing.

Needs the ``gym`` extra: ``pip install -e ".[gym]"`` in the bizsim checkout.
"""

from __future__ import annotations

import string
from typing import Any

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.error import CustomSpaceError
    from gymnasium.vector.utils import create_shared_memory
except ImportError as exc:  # pragma: no cover - depends on the environment
    from bizsim.simcore.extras import install_hint

    raise ImportError(f"bizsim.surfaces.gym needs gymnasium: {install_hint('gym')}") from exc

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.registry import load_object, world_names, world_spec

from bizsim.surfaces._rl_args import check_seed
from bizsim.surfaces.textenv import TextEnv

__all__ = ["MAX_COMMAND", "MAX_EPISODE_STEPS", "MAX_OBSERVATION", "OBSERVATION_CHARSET", "BizSimEnv",
           "ObservationText", "env_id", "register_all"]

#: Every character an observation may hold: printable ASCII and whitespace.
OBSERVATION_CHARSET = frozenset(string.printable)
#: The longest observation text (characters): far above any command result or report.
MAX_OBSERVATION = 2_000_000
#: The longest command line the text action space holds.
MAX_COMMAND = 10_000
#: Steps after which a registered id truncates an episode: about ten times the most a budgeted year takes
#: (vending, 5 x 366; freelance, 6 x 365), far above any built-in agent's year (startup greedy: about 280).
MAX_EPISODE_STEPS = 20_000


class ObservationText(spaces.Text):
    """The observation space: ``gymnasium.spaces.Text``, refused by the async vector env's shared memory.

    Gymnasium (1.x) reads a text space's shared memory once, when the vector
    env is built, and hands back those stale strings at every step after.
    """


@create_shared_memory.register(ObservationText)
def _no_shared_memory(space: ObservationText, n: int = 1, ctx: Any = None) -> Any:
    raise CustomSpaceError("bizsim's text observations cannot go through Gymnasium's shared memory; "
                           "use make_vec(..., vector_kwargs={'shared_memory': False})")

def env_id(world: str) -> str:
    """The Gymnasium id of a registered world: ``bizsim/<name>-v<version>``, e.g. ``bizsim/operation-v1``.

    A world whose name carries a version of its own (``startup-v2``, a world beside ``startup``, not a newer
    version of it) is named with ``_`` there (``bizsim/startup_v2-v2``): Gymnasium reads ``-vN`` as an id's
    version, and ``startup-v2`` would make ``gymnasium.make("bizsim/startup")`` build it, warning that
    ``startup-v1`` is out of date.

    >>> env_id("startup"), env_id("startup-v2")
    ('bizsim/startup-v1', 'bizsim/startup_v2-v2')
    """
    spec = world_spec(world)
    return f"bizsim/{spec.name.replace('-v', '_v')}-v{spec.version}"


def _discrete_names(world: str) -> tuple[str, ...] | None:
    """A world's discrete actions (its registration's ``discrete_actions``) and its advance command last."""
    spec = world_spec(world)
    if spec.discrete_actions is None:
        return None
    return (*load_object(spec.discrete_actions), spec.world_class().advance_command)


class BizSimEnv(gymnasium.Env):
    """A registered world as a ``gymnasium.Env`` on the kernel's outside driver.

    Args:
        world: a registered world name.
        preset: a preset name, a ``.toml`` path, or a config object.
        seed: the episode seed of the first ``reset()`` without a seed, which
            also seeds the env's ``np_random``; later unseeded resets draw
            their seeds from it, so two envs built alike play alike.
        actions: ``"discrete"`` (worlds whose registration names ``discrete_actions``;
            their default) or ``"text"`` (command lines; every world).
        start: where episodes start: a :class:`~bizsim.agents.start.StartState` (a recorded point, or a policy
            played until a point on the episode's seed) or a snapshot; default, a fresh world.
        window: how long an episode lasts: a :class:`~bizsim.agents.start.Window`, ``N`` agent turns or
            ``{"days": D}``; when it is over, ``step`` returns ``truncated=True``. The rewards of a window sum
            to the metric at its end minus the metric at its start.
        reward: ``"delta"`` (each step's metric change; default), ``"terminal"`` (all of it on the last step) or
            ``"shaped"`` (``delta`` plus ``sum_i w_i x`` each of the world's sub-metrics' change; over a window the
            metric change plus ``sum_i w_i x`` each sub-metric's change); see :mod:`bizsim.runs.rewards`.
        reward_weights: ``"shaped"`` only: weights by sub-metric name over the world's declared defaults.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 - as gymnasium.Env types it

    def __init__(self, world: str = "startup", preset: Any = "default", seed: int = 1, actions: str | None = None,
                 render_mode: str | None = None, start: Any = None, window: Any = None, reward: str = "delta",
                 reward_weights: Any = None) -> None:
        name = world_spec(world).name
        names = _discrete_names(name)
        actions = actions or ("discrete" if names else "text")
        if actions not in ("discrete", "text") or (actions == "discrete" and names is None):
            offered = "'discrete' or 'text'" if names else "'text'"
            raise ConfigError(f"actions(={actions!r}) is not offered by world {name!r}; use {offered}")
        if render_mode not in (None, "ansi"):
            raise ConfigError(f"render_mode(={render_mode!r}) must be None or 'ansi'")
        self.render_mode = render_mode
        self.text = TextEnv(name, preset, seed, start=start, window=window, reward=reward,
                            reward_weights=reward_weights)
        self._first = True
        self._last = ""
        #: The command each discrete action issues (empty for text actions).
        self.action_names: tuple[str, ...] = names if actions == "discrete" and names is not None else ()
        self.observation_space = ObservationText(MAX_OBSERVATION, min_length=0, charset=OBSERVATION_CHARSET)
        if self.action_names:
            self.action_space: spaces.Space = spaces.Discrete(len(self.action_names))
        else:
            self.action_space = spaces.Text(MAX_COMMAND, min_length=0, charset=string.printable)

    @property
    def world(self) -> Any:
        """The live world (after ``reset``)."""
        return self.text.world

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        """Start an episode; the observation is the world's system prompt."""
        if seed is not None:
            seed = check_seed(seed)
        elif self._first:
            seed = self.text.seed  # the constructor's seed, and np_random's: later unseeded resets repeat too
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**31 - 1))
        self._first = False
        self._last = self.text.reset(seed)
        return self._last, {"seed": self.text.seed, "metric": self.text.metric, "status": self.world.status.value}

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict]:
        """Issue one command (a line, or a discrete action's command); ``truncated`` is true once the window is
        over (the registered ids' step limit also sets it)."""
        if self.action_names:
            if not self.action_space.contains(action):
                raise ConfigError(f"action(={action!r}) must be an integer in [0, {len(self.action_names)})")
            line = self.action_names[int(action)]
        else:
            line = action
        obs, reward, _done, info = self.text.step(line)
        self._last = obs
        info["command"] = line
        return obs, reward, self.world.done, info["truncated"], info

    def close(self) -> None:
        """Free the current episode's world (Gymnasium's ``close``); ``reset`` starts another."""
        self.text.close()

    def render(self) -> str | None:
        """The last observation (``render_mode="ansi"``)."""
        return self._last if self.render_mode == "ansi" else None


def register_all() -> list[str]:
    """Register every registered bizsim world with Gymnasium (those not yet registered); return the ids."""
    ids = []
    for name in world_names():
        eid = env_id(name)
        if eid not in gymnasium.registry:
            gymnasium.register(id=eid, entry_point="bizsim.surfaces.gym:BizSimEnv", kwargs={"world": name},
                               max_episode_steps=MAX_EPISODE_STEPS)
        ids.append(eid)
    return ids


register_all()
