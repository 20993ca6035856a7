"""The protocol plug-in point: how a benchmark talks to the model, per world."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import attrs
import simpy
from bizsim.simcore.errors import ConfigError

from ..types import ModelResponse

if TYPE_CHECKING:
    from bizsim.simcore.world import World

    from ..config import LLMAgentConfig
    from ..session import Session

__all__ = ["PROTOCOLS", "HarnessProtocol", "Request", "make_protocol", "register_protocol"]


@attrs.frozen
class Request:
    """What the next model call sends: messages, tools and their digests (for the request hash)."""

    messages: list[dict]
    message_digests: list[str]
    tools: list[dict]
    tools_digest: str


@runtime_checkable
class HarnessProtocol(Protocol):
    """A benchmark's conversation protocol (YC-Bench, EcoGym, ...).

    The agent loop calls, per episode, :meth:`begin` once, then per turn
    :meth:`before_call` (harness actions that may move time), :meth:`request`
    (the messages of the next call) and :meth:`after_call` (execute the
    answer). ``before_call`` and ``after_call`` are generators run with
    ``yield from`` inside the agent's SimPy process, so they can advance the
    world. A protocol keeps its conversation itself and must be
    deterministic: the same world and answers give the same requests
    (resuming a run depends on it). A protocol may also offer
    ``trimmed(session, drop)``, this turn's request with its ``drop`` oldest
    rounds left out too (``None`` past the last), which
    ``context_overflow='trim'`` uses (:mod:`..context_fit`).
    """

    name: str

    def configure(self, world: World, config: LLMAgentConfig) -> dict:
        """Resolve the knobs for this world (agent config over world config); returns them for the run record."""
        ...

    def max_turns(self) -> int | None:
        """Model calls allowed per episode (``None``: no limit); a protocol with ``steps_used(session)`` counts those."""
        ...

    def begin(self, session: Session) -> None:
        """Start an episode: a fresh conversation."""
        ...

    def before_call(self, session: Session) -> Generator[simpy.Event, Any, None]:
        """Harness actions before the next model call."""
        ...

    def request(self, session: Session) -> Request:
        """The next model call's messages and tools."""
        ...

    def after_call(self, session: Session, response: ModelResponse) -> Generator[simpy.Event, Any, None]:
        """Execute the answer's tool calls in order and record them in the conversation."""
        ...


#: protocol name -> factory
PROTOCOLS: dict[str, Callable[[], HarnessProtocol]] = {}


def register_protocol(name: str, factory: Callable[[], HarnessProtocol]) -> None:
    """Register a protocol under ``name``; a world's registration names the protocol that plays it.

    >>> # register_protocol("ecogym", EcoGymProtocol)
    """
    PROTOCOLS[name] = factory


def make_protocol(world_name: str, override: str | None = None) -> HarnessProtocol:
    """A fresh protocol for a world: the one named by ``override``, else its registration's ``protocol``; a world
    played without registering it (a class built in a test or a notebook) gets ``ecogym``, one tool per command."""
    from bizsim.simcore.registry import registered

    spec = registered().get(world_name)
    name = override or (spec.protocol if spec is not None else "ecogym")
    if name not in PROTOCOLS:
        raise ConfigError(f"unknown protocol {name!r}; choose one of {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]()
