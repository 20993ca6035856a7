"""Declaring an agent: one decorator gives a function its name, its options' types and their check.

>>> from bizsim.agents import agent
>>> @agent(check=lambda patience: None if patience >= 0 else "patience must be >= 0")
... def idle(world, patience: int = 3):
...     '''Do nothing; advance until the end.'''
...     while not world.done:
...         yield world.advance()
>>> idle.name, idle.options
('idle', ('patience',))
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any

from bizsim.simcore.errors import ConfigError

from .options import check_agent_options

if TYPE_CHECKING:
    from bizsim.simcore import World

__all__ = ["CAPABILITIES", "HAS_ROLES", "RECORDS_CALLS", "RUN_OPTIONS", "WAITS_ON_IO", "AgentDef", "agent"]

#: The agent calls a model: its run needs a run directory for the call log (so it resumes), a pre-flight call, and
#: its errors are scrubbed of keys before a sweep's record keeps them.
RECORDS_CALLS = "records_calls"
#: The agent can play a world's roles too (the freelance auditor), through its own model.
HAS_ROLES = "has_roles"
#: Among its options a sweep grid may give the run's own settings (``auditor``, ``max_episodes``).
RUN_OPTIONS = "run_options"
#: The agent spends its run waiting on I/O (a model endpoint), not on a CPU: a sweep runs many of its runs at once
#: on threads of one process, at most ``concurrency`` requests in flight per endpoint, instead of one run per
#: worker process.
WAITS_ON_IO = "waits_on_io"
CAPABILITIES = frozenset({RECORDS_CALLS, HAS_ROLES, RUN_OPTIONS, WAITS_ON_IO})

#: An agent process: a generator of SimPy events (the agent's turns).
Process = Generator[Any, Any, Any]


class AgentDef:
    """A declared agent: calling it with a world (and options) gives its SimPy process.

    Args:
        fn: ``fn(world, **options)`` returning the process generator; its keyword parameters, with their
            annotations, are the agent's options.
        name: the name tables and the CLI show (default: the function's, ``_`` as ``-``).
        check: called with every option (defaults filled in) after the types are checked; returns or raises
            a message (``str``/``ValueError``) when the values together are out of range. With ``make``, called
            with the options given (it checks them without building the agent).
        make: for agents that keep state across the episodes of one run (the LLM agent): ``make(**options)``
            returns the ``world -> process`` callable that serves every episode.
        options: with ``make``, the option names it accepts (its types are its own to check).
        capabilities: what the run pipeline must do for this agent (:data:`RECORDS_CALLS`, :data:`HAS_ROLES`,
            :data:`RUN_OPTIONS`, :data:`WAITS_ON_IO`), declared instead of being special-cased by name.
    """

    def __init__(self, fn: Callable[..., Process], *, name: str | None = None,
                 check: Callable[..., str | None] | None = None, make: Callable[..., Callable[[World], Process]] | None = None,
                 options: tuple[str, ...] | None = None, capabilities: frozenset[str] | set[str] = frozenset()) -> None:
        unknown = sorted(set(capabilities) - CAPABILITIES)
        if unknown:
            raise ConfigError(f"unknown agent capabilities {', '.join(unknown)}; known: {', '.join(sorted(CAPABILITIES))}")
        self.capabilities = frozenset(capabilities)
        self.fn = fn
        self.name = name or fn.__name__.replace("_", "-")
        self.check = check
        self.make = make
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__module__ = fn.__module__
        self.__wrapped__ = fn
        if options is not None:
            self.options = tuple(options)
        else:
            try:
                params = list(inspect.signature(fn).parameters.values())[1:]
            except (TypeError, ValueError):  # a callable without a signature: its options are its own business
                params = []
            self.options = tuple(p.name for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD)

    def __call__(self, world: World, **options: Any) -> Process:
        return self.fn(world, **options)

    def __repr__(self) -> str:
        return f"<agent {self.name} ({self.__module__}.{self.__qualname__})>"

    def bind(self, options: Mapping[str, Any] | None = None, *, label: str | None = None) -> Callable[[World], Process]:
        """The ``world -> process`` factory with ``options`` bound, after checking them.

        Raises:
            ConfigError: an unknown option, a value of the wrong type, or values the agent's check refuses.
        """
        options = dict(options or {})
        self.check_options(options, label=label)
        if self.make is not None:
            return self.make(**options)
        fn = self.fn
        return lambda world: fn(world, **options)

    def check_options(self, options: Mapping[str, Any], *, label: str | None = None) -> None:
        """Check ``options`` as :meth:`bind` does, building nothing (an agent with ``make`` is not made).

        Raises:
            ConfigError: an unknown option, a value of the wrong type, or values the agent's check refuses.
        """
        name = label or self.name
        if self.make is None:
            check_agent_options(name, self.fn, options, check=self._check)
            return
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise ConfigError(f"agent {name!r} has no option(s) {', '.join(unknown)}; "
                              f"its options: {', '.join(self.options)}")
        if self.check is not None:
            try:
                self._check(**options)
            except ConfigError:
                raise
            except ValueError as exc:
                raise ConfigError(f"agent {name!r}: {exc}") from None

    def _check(self, **values: Any) -> None:
        if self.check is None:
            return
        problem = self.check(**values)
        if problem:
            raise ValueError(problem)


def agent(fn: Callable[..., Process] | None = None, *, name: str | None = None,
          check: Callable[..., str | None] | None = None, make: Callable[..., Any] | None = None,
          options: tuple[str, ...] | None = None, capabilities: frozenset[str] | set[str] = frozenset()) -> Any:
    """Declare an agent (see :class:`AgentDef`); usable bare (``@agent``) or with arguments."""
    if fn is not None:
        return AgentDef(fn, name=name, check=check, make=make, options=options, capabilities=capabilities)
    return lambda f: AgentDef(f, name=name, check=check, make=make, options=options, capabilities=capabilities)
