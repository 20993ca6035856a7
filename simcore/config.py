"""Frozen configs: validation helpers and TOML round trips."""

from __future__ import annotations

import math
import numbers
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import attrs

if TYPE_CHECKING:
    from attrs import AttrsInstance

from .errors import ConfigError

__all__ = ["config_from_dict", "config_to_dict", "load_toml", "dump_toml", "deep_merge", "in_range", "type_ok",
           "check_types", "check_config"]

#: An attrs class (what nested_config registers).
C = TypeVar("C", bound="AttrsInstance")
#: Any config class: a PresetTable's is generic; config_from_dict checks that it is an attrs class.
T = TypeVar("T")


Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]


def in_range(low: float | None = None, high: float | None = None) -> Validator:
    """An attrs validator: ``low <= value <= high``, with a message naming both."""

    def check(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
        if value is None:
            return
        if not isinstance(value, numbers.Real):  # text or a table where a number belongs: say so, not a TypeError
            raise ConfigError(f"{attribute.name}(={value!r}) must be a number")
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{attribute.name}(={value!r}) must be a finite number")
        # Written so NaN fails: every comparison with NaN is false. A negative zero is below a range starting at 0
        # (numpy's uniform(-x, x) refuses x = -0.0).
        num = cast(float, value)  # a numbers.Real: it compares with floats (typeshed's Real has no __gt__)
        if not ((low is None or num > low or (num == low and math.copysign(1.0, num) >= math.copysign(1.0, low)))
                and (high is None or num <= high)):
            bounds = f"[{low if low is not None else '-inf'}, {high if high is not None else 'inf'}]"
            raise ConfigError(f"{attribute.name}(={value!r}) must lie in {bounds}")

    return check


def check_types(config: Any) -> None:
    """Refuse field values of the wrong type (a float where an int belongs, text for a flag...).

    Ints are accepted where floats belong; ``bool`` is never taken for a number.
    """
    import typing

    hints = typing.get_type_hints(type(config))
    for field in attrs.fields(type(config)):
        value = getattr(config, field.name)
        if not type_ok(value, hints.get(field.name, Any)):
            raise ConfigError(
                f"{field.name}(={value!r}) has type {type(value).__name__}; it must be {_type_name(hints.get(field.name))}"
            )


def check_config(config: Any) -> None:
    """The validation every world's config runs first: each field of the type it declares, and every number in it
    (tuples included) finite. Ranges are each field's own ``in_range`` validator.

    Raises:
        ConfigError: naming the field, the value and the rule.
    """
    check_types(config)
    for field in attrs.fields(type(config)):
        value = getattr(config, field.name)
        for number in _floats(value):
            if not math.isfinite(number):
                raise ConfigError(f"{field.name}(={value!r}) must hold finite numbers only")


def _floats(value: Any) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, tuple):
        return [f for v in value for f in _floats(v)]
    return []


def type_ok(value: Any, hint: Any) -> bool:
    """Whether ``value`` has the type ``hint`` names: ints pass for floats, bools never for numbers, a
    ``Sequence[X]`` or ``list[X]`` is a list or tuple (not text) of ``X``; hints it does not know pass."""
    import collections.abc
    import types
    import typing

    if hint is Any:
        return True
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(type_ok(value, h) for h in typing.get_args(hint))
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, tuple):
            return False
        inner = args[0] if args else Any
        return all(type_ok(v, inner) for v in value)
    if origin in (collections.abc.Sequence, list):
        args = typing.get_args(hint)
        inner = args[0] if args else Any
        return isinstance(value, (list, tuple)) and all(type_ok(v, inner) for v in value)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def config_to_dict(config: Any) -> dict[str, Any]:
    """A config as nested plain data (tuples become lists)."""
    return attrs.asdict(config)


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` laid over ``base``, tables merged key by key."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def config_from_dict(cls: type[T], data: Mapping[str, Any]) -> T:
    """Build a frozen attrs config from nested data, refusing unknown keys."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{cls.__name__} needs a table, got {type(data).__name__}")
    attrs_cls: type = cls
    if not attrs.has(attrs_cls):
        raise ConfigError(f"{cls.__name__} is not an attrs config class")
    fields = {f.name: f for f in attrs.fields(attrs_cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(
            f"unknown {cls.__name__} key(s): {', '.join(unknown)}; known keys: {', '.join(sorted(fields))}"
        )
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        ftype = fields[name].type
        nested = _attrs_class(ftype)
        if nested is not None and isinstance(value, Mapping):
            value = config_from_dict(nested, value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[name] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ConfigError(f"{cls.__name__}: {exc}") from None


def _attrs_class(ftype: Any) -> type[AttrsInstance] | None:
    if isinstance(ftype, type) and attrs.has(ftype):
        return ftype
    if isinstance(ftype, str):
        return _REGISTRY.get(ftype)
    return None


_REGISTRY: dict[str, type[AttrsInstance]] = {}


def nested_config(cls: type[C]) -> type[C]:
    """Register an attrs class so string annotations can name it as a sub-table."""
    _REGISTRY[cls.__name__] = cls
    return cls


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML file into plain data.

    Raises:
        ConfigError: the file is missing, unreadable, past MAX_CONFIG_FILE_BYTES, not UTF-8 or not TOML.
    """
    from .limits import MAX_CONFIG_FILE_BYTES, read_text_file

    p = Path(path)
    if not p.exists():
        raise ConfigError(f"config file {str(p)!r} does not exist")
    text = read_text_file(p, "config file", MAX_CONFIG_FILE_BYTES)  # no further than the limit (/dev/zero)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {str(p)!r} is not valid TOML: {exc}") from None
    except RecursionError:  # arrays or inline tables nested thousands deep: tomllib recurses per level
        raise ConfigError(f"config file {str(p)!r} nests arrays or tables too deeply to read") from None


def dump_toml(data: Mapping[str, Any]) -> str:
    """Plain data as TOML text (``None`` values are left out)."""
    import tomli_w

    return tomli_w.dumps(_drop_none(data))


def _drop_none(data: Any) -> Any:
    if isinstance(data, Mapping):
        return {k: _drop_none(v) for k, v in data.items() if v is not None}
    if isinstance(data, (list, tuple)):
        return [_drop_none(v) for v in data if v is not None]
    return data
