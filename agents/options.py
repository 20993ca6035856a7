"""Agent options checked before a run starts: a bad value is a clear ``ConfigError``, not a crash mid-episode."""

from __future__ import annotations

import functools
import inspect
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bizsim.simcore.config import type_ok
from bizsim.simcore.errors import ConfigError

__all__ = ["check_agent_options"]


def check_agent_options(name: str, fn: Callable, options: Mapping[str, Any],
                        check: Callable[..., None] | None = None) -> None:
    """Check the options' names against the agent function's parameters, each value against its annotation,
    then the values together with ``check``.

    ``check``, when given, is called with every option (defaults filled in)
    and raises ``ValueError`` on a value out of range.

    Raises:
        ConfigError: naming the agent, the option, the value and what it must be.
    """
    try:
        shape = _shape(fn)
    except TypeError:  # an unhashable callable: not cached
        shape = _shape.__wrapped__(fn)
    if shape is None:  # a callable without a signature: its options are its own business
        return
    accepted, hints = shape
    if accepted is not None:
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise ConfigError(
                f"agent {name!r} has no option(s) {', '.join(unknown)}; its options: {', '.join(accepted) or 'none'}"
            )
    for key, value in options.items():
        hint = hints.get(key)
        if hint is not None and not _fits(value, hint):
            raise ConfigError(f"agent {name!r}: option {key}={value!r} must be {_describe(hint)}")
    if check is not None:
        bound = inspect.signature(fn).bind_partial(None, **options)
        bound.apply_defaults()
        try:
            check(**dict(list(bound.arguments.items())[1:]))  # every option, defaults filled in; not the world
        except ValueError as exc:
            raise ConfigError(f"agent {name!r}: {exc}") from None


@functools.lru_cache(maxsize=256)
def _shape(fn: Callable) -> tuple[tuple[str, ...] | None, dict[str, Any]] | None:
    """The option names an agent function accepts (``None``: any, it takes ``**options``) and their annotations."""
    try:
        params = list(inspect.signature(fn).parameters.values())[1:]  # the first takes the world
    except (TypeError, ValueError):
        return None
    accepted = None if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params) else tuple(p.name for p in params)
    try:
        hints = typing.get_type_hints(fn)
    except (NameError, TypeError):  # an annotation this module cannot resolve: leave the value to the agent
        hints = {}
    return accepted, hints


def _fits(value: Any, hint: Any) -> bool:
    # Options arrive as JSON-like data: NaN and infinity pass no numeric option.
    return type_ok(value, hint) and not (isinstance(value, float) and not math.isfinite(value))


_NAMES = {bool: "true or false", int: "an integer", float: "a finite number", str: "a string", type(None): "null"}


def _describe(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(h) for h in typing.get_args(hint))
    if origin in (Sequence, list, tuple) and typing.get_args(hint):
        return f"a list of {_describe(typing.get_args(hint)[0]).removeprefix('a ').removeprefix('an ')}s"
    return _NAMES.get(hint, getattr(hint, "__name__", str(hint)))
