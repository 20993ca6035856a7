"""Commands, declared once: parser, validation, help text and tool schemas.

A world's command is a plain function ``fn(world, **args) -> dict``
decorated with :meth:`CommandSet.command`. Its typed, ``Annotated``
parameters are the single declaration from which the CLI-string parser, the
JSON argument validation, the help text and the LLM tool schema all come.
"""

from __future__ import annotations

import math
import shlex
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Literal, TypeVar

import attrs

from ._cmdline import split_line
from .errors import CommandError
from .limits import MAX_ARGS_CHARS, MAX_INT, MAX_LINE_CHARS, MAX_TEXT_CHARS, clip, show
from .untrusted_json import loads_untrusted

__all__ = ["Arg", "Param", "CommandSpec", "CommandSet", "HiddenCommandError", "RowField", "split_line"]

_MISSING = attrs.NOTHING
#: A command function, kept with its own signature by the decorators.
F = TypeVar("F", bound=Callable[..., Any])
_TYPE_NAMES = {str: "string", int: "integer", float: "number", bool: "boolean"}


@attrs.frozen
class RowField:
    """One field of the rows a text argument holds as JSON (see :attr:`Arg.rows`)."""

    name: str
    type: type[Any]
    help: str = ""
    minimum: float | None = None


@attrs.frozen
class Arg:
    """Metadata for one command argument, given in ``Annotated[type, Arg(...)]``."""

    help: str
    flag: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None
    #: Text is trimmed and lower-cased before the choices are checked (``"Low "`` is ``low``).
    fold_case: bool = False
    #: The text is a JSON list of objects with these fields (an order's line items): a person's surface offers a
    #: form of rows and writes the JSON. The command still reads and checks the text itself; tool schemas are
    #: unchanged (an agent reads the help).
    rows: tuple[RowField, ...] | None = None
    #: The most rows :attr:`rows` takes (``None``: no limit but the text's length).
    max_rows: int | None = None


class HiddenCommandError(CommandError):
    """A hidden command (a built-in agent's own) named where only visible ones are taken: refused as unknown."""


@attrs.frozen
class Param:
    """One resolved argument of a command."""

    name: str
    flag: str
    type: type[Any]
    help: str
    required: bool
    default: Any = None
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None
    fold_case: bool = False
    #: The rows a text argument holds as JSON, and how many at most (:attr:`Arg.rows`): a form hint only.
    rows: tuple[RowField, ...] | None = attrs.field(default=None, eq=False)
    max_rows: int | None = attrs.field(default=None, eq=False)
    #: A further check of the coerced value that raises :class:`CommandError` (a command set's variant sets it).
    validate: Callable[[Any, str], None] | None = attrs.field(default=None, eq=False)
    # Derived once. A plain slot, not a cached property: attrs serves those
    # through a class ``__getattr__``, which keeps CPython from specialising
    # every attribute read on the class.
    _plain: bool = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        # No choices or bounds: a value of the right type needs no further checks.
        plain = (self.choices is None and self.minimum is None and self.maximum is None and self.max_length is None
                 and not self.fold_case and self.validate is None)
        object.__setattr__(self, "_plain", plain)

    def coerce(self, value: Any, command: str) -> Any:
        """Turn a CLI token or JSON value into this parameter's type, or refuse it."""
        t = self.type
        if type(value) is t and self._plain:
            # Nothing not finite (NaN from tool-call JSON) and no integer or text past the kernel's limits is
            # returned: a value returned here is recorded, and the record must stay writable as JSON.
            if t is str:
                if value.isascii() and len(value) <= MAX_TEXT_CHARS:
                    return value
            elif t is float:
                if value - value == 0.0:
                    return value
            elif t is not int or -MAX_INT <= value <= MAX_INT:
                return value
        where = f"{self.flag} of '{command}'"
        if t is bool:
            if isinstance(value, bool):
                out: Any = value
            elif isinstance(value, str) and value.lower() in ("true", "1", "yes"):
                out = True
            elif isinstance(value, str) and value.lower() in ("false", "0", "no"):
                out = False
            else:
                raise CommandError(f"{where} expects true or false, got {show(value)}.")
        elif t is int:
            out = _to_int(value)
            if out is None:
                raise CommandError(f"{where} expects an integer, got {show(value)}.")
            if not -MAX_INT <= out <= MAX_INT:
                raise CommandError(f"{where} must lie in [-{MAX_INT}, {MAX_INT}]; got {show(out)}.")
        elif t is float:
            out = _to_float(value)
            if out is None:
                # NaN and the infinities too ("nan", "inf", and NaN from tool-call JSON): no rule holds for them.
                raise CommandError(f"{where} expects a number, got {show(value)}.")
        else:
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise CommandError(f"{where} expects text, got {show(value)}.")
            if isinstance(value, float) and not math.isfinite(value):
                raise CommandError(f"{where} expects text, got the non-finite number {value!r}.")
            try:
                out = str(value)
            except ValueError:  # an integer past Python's 4,300-digit limit for conversion to text
                raise CommandError(f"{where} expects text, got {show(value)}.") from None
            try:
                out.encode("utf-8")
            except UnicodeEncodeError:
                raise CommandError(f"{where} must be valid UTF-8 text (it holds a lone surrogate).") from None
            limit = self.max_length if self.max_length is not None else MAX_TEXT_CHARS
            if len(out) > limit:
                raise CommandError(
                    f"{where} is {len(out)} characters long; the limit is {limit}."
                )
        if self.fold_case and isinstance(out, str):
            out = out.strip().lower()
        if self.choices is not None and out not in self.choices:
            raise CommandError(
                f"{where} must be one of {', '.join(map(str, self.choices))}; got {show(value)}."
            )
        if self.minimum is not None and out < self.minimum:
            raise CommandError(f"{where} must be >= {self.minimum:g}; got {show(out)}.")
        if self.maximum is not None and out > self.maximum:
            raise CommandError(f"{where} must be <= {self.maximum:g}; got {show(out)}.")
        if self.validate is not None:
            self.validate(out, where)
        return out

    def json_schema(self) -> dict[str, Any]:
        """This parameter as a JSON-schema property."""
        prop: dict[str, Any] = {"type": _TYPE_NAMES[self.type], "description": self.help}
        if self.choices is not None:
            prop["enum"] = list(self.choices)
        if self.minimum is not None:
            prop["minimum"] = self.minimum
        if self.maximum is not None:
            prop["maximum"] = self.maximum
        if self.max_length is not None:
            prop["maxLength"] = self.max_length
        if not self.required and self.default is not None:
            prop["default"] = self.default
        return prop


def _to_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip().replace("_", ""))
        except ValueError:
            return None
    return None


def _to_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            out = float(value)
        except OverflowError:  # an int past float's range
            return None
    elif isinstance(value, str):
        try:
            out = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return out if math.isfinite(out) else None


@attrs.frozen(cache_hash=True)
class CommandSpec:
    """A declared command: name, help, parameters and implementation."""

    name: str
    help: str
    params: tuple[Param, ...]
    func: Callable[..., Any] = attrs.field(eq=False, repr=False)
    advances: bool = False
    hidden: bool = False
    counted: bool = True
    marked: bool = False
    #: Declared so an agent's tool list matches a reference's, but always refused (startup's ``task assign-all``):
    #: agents see it; a person's surface offers no form for it.
    disabled: bool = False
    _by_name: dict[str, Param] = attrs.field(init=False, eq=False, repr=False, hash=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {p.name: p for p in self.params})

    @property
    def tool_name(self) -> str:
        """The name used for this command as an LLM tool (``task_accept``)."""
        return self.name.replace(" ", "_").replace("-", "_")

    def usage(self) -> str:
        """One-line usage, e.g. ``task accept --task-id TASK_ID``."""
        parts = [self.name]
        for p in self.params:
            meta = "" if p.type is bool else " " + p.name.upper()
            parts.append(f"{p.flag}{meta}" if p.required else f"[{p.flag}{meta}]")
        return " ".join(parts)

    def help_text(self) -> str:
        """Usage, summary and one line per argument."""
        lines = [self.usage(), f"  {self.help}"]
        for p in self.params:
            extra = f" (default {p.default})" if not p.required and p.default is not None else ""
            choices = f" one of {', '.join(map(str, p.choices))}." if p.choices else ""
            lines.append(f"  {p.flag}: {p.help}{extra}{choices}")
        return "\n".join(lines)

    def json_schema(self) -> dict[str, Any]:
        """An OpenAI-style function tool declaration for this command."""
        return {
            "type": "function",
            "function": {
                "name": self.tool_name,
                "description": self.help,
                "parameters": {
                    "type": "object",
                    "properties": {p.name: p.json_schema() for p in self.params},
                    "required": [p.name for p in self.params if p.required],
                    "additionalProperties": False,
                },
            },
        }

    def bind_tokens(self, tokens: list[str], last_wins: bool = False) -> dict[str, Any]:
        """Parse ``--flag value`` tokens into validated keyword arguments.

        An option given twice is refused, or with ``last_wins`` takes its last value (as click does).
        """
        by_flag = {p.flag: p for p in self.params}
        given: dict[str, Any] = {}
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if not tok.startswith("--"):
                raise CommandError(f"Unexpected argument {tok!r} for '{self.name}'.", self._hint())
            flag, eq, inline = tok.partition("=")
            param = by_flag.get(flag)
            if param is None:
                raise CommandError(f"No such option {flag} for '{self.name}'.", self._hint())
            if param.name in given and not last_wins:
                raise CommandError(f"Option {flag} of '{self.name}' was given twice.", self._hint())
            if eq:
                raw: Any = inline
            elif param.type is bool:
                raw = True
            else:
                if i + 1 >= len(tokens):
                    raise CommandError(f"Option {flag} of '{self.name}' needs a value.", self._hint())
                i += 1
                raw = tokens[i]
            given[param.name] = param.coerce(raw, self.name)
            i += 1
        return self._complete(given)

    def bind_json(self, args: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate a JSON argument object (from a tool call) into keyword arguments.

        A JSON text holding an object is accepted too (models often send one).
        """
        if not args and not self.params:
            return {}
        if type(args) is dict and args.keys() <= self._by_name.keys():
            # Python callers and well-formed tool calls: every key known, nothing to rename.
            names = self._by_name
            return self._complete({k: names[k].coerce(v, self.name) for k, v in args.items() if v is not None})
        if isinstance(args, (str, bytes)):
            if len(args) > MAX_ARGS_CHARS:
                raise CommandError(f"Arguments of '{self.name}' are {len(args):,} characters of JSON; the limit is "
                                   f"{MAX_ARGS_CHARS:,}.", self._hint())
            try:
                args = loads_untrusted(args) if args.strip() else {}
            except (ValueError, UnicodeDecodeError):
                raise CommandError(
                    f"Arguments of '{self.name}' are not valid JSON: {str(args)[:200]!r}.", self._hint()
                ) from None
        if args is None:
            args = {}
        if not isinstance(args, Mapping) or not all(isinstance(k, str) for k in args):
            raise CommandError(
                f"Arguments of '{self.name}' must be a JSON object with text keys, got {type(args).__name__}.",
                self._hint(),
            )
        args = dict(args)
        names = self._by_name
        # Tool callers sometimes send flag spellings; accept them.
        for key in [k for k in args if k not in names]:
            alias = str(key).lstrip("-").replace("-", "_")
            if alias in names and alias not in args:
                args[alias] = args.pop(key)
        unknown = sorted(set(args) - set(names))
        if unknown:
            shown = ", ".join(k if len(k) <= 200 else f"{k[:200]}... ({len(k):,} characters)" for k in unknown[:20])
            more = f" and {len(unknown) - 20:,} more" if len(unknown) > 20 else ""
            raise CommandError(f"Unknown argument(s) {shown}{more} for '{self.name}'.", self._hint())
        given = {k: names[k].coerce(v, self.name) for k, v in args.items() if v is not None}
        return self._complete(given)

    def _complete(self, given: dict[str, Any]) -> dict[str, Any]:
        if len(given) == len(self.params):
            return given
        for p in self.params:
            if p.name not in given:
                if p.required:
                    raise CommandError(f"Missing option {p.flag} for '{self.name}'.", self._hint())
                given[p.name] = p.default
        return given

    def to_line(self, kwargs: Mapping[str, Any]) -> str:
        """The canonical command line for these arguments (defaults omitted)."""
        parts = [self.name]
        for p in self.params:
            value = kwargs.get(p.name, p.default)
            if value is None or (not p.required and value == p.default):
                continue
            if p.type is bool:
                parts.append(p.flag if value else f"{p.flag}=false")
            else:
                parts.append(f"{p.flag} {shlex.quote(str(value))}")
        return " ".join(parts)

    def _hint(self) -> str:
        return f"Usage: {self.usage()}"


def _params_from_signature(func: Callable[..., Any], overrides: Mapping[str, Any]) -> tuple[Param, ...]:
    import inspect

    sig = inspect.signature(func)
    params = []
    for i, (name, p) in enumerate(sig.parameters.items()):
        if i == 0:
            continue  # the world
        hint = p.annotation
        if isinstance(hint, str):
            # Resolve this argument's annotation alone: the world's may name a type
            # that is only imported for type checking.
            def probe() -> None: ...

            probe.__annotations__ = {name: hint}
            hint = typing.get_type_hints(probe, globalns=func.__globals__, include_extras=True)[name]
        if typing.get_origin(hint) is not typing.Annotated:
            raise TypeError(f"argument {name!r} of {func.__name__} needs Annotated[type, Arg(...)]")
        base, *meta = typing.get_args(hint)
        arg = next((m for m in meta if isinstance(m, Arg)), None)
        if arg is None:
            raise TypeError(f"argument {name!r} of {func.__name__} needs an Arg(...) in Annotated")
        choices = None
        origin = typing.get_origin(base)
        if origin in (typing.Union, types.UnionType):
            inner = [a for a in typing.get_args(base) if a is not type(None)]
            base = inner[0]
            origin = typing.get_origin(base)
        if origin is Literal:
            choices = typing.get_args(base)
            base = type(choices[0])
        if base not in _TYPE_NAMES:
            raise TypeError(f"argument {name!r} of {func.__name__} has unsupported type {base!r}")
        required = p.default is inspect.Parameter.empty
        params.append(
            Param(
                name=name,
                flag=arg.flag or "--" + name.replace("_", "-"),
                type=base,
                help=arg.help,
                required=required,
                default=None if required else p.default,
                choices=overrides.get(name, choices),
                minimum=arg.minimum,
                maximum=arg.maximum,
                max_length=arg.max_length,
                fold_case=arg.fold_case,
                rows=arg.rows,
                max_rows=arg.max_rows,
            )
        )
    return tuple(params)


class CommandSet:
    """The commands of one world, in declaration order.

    ``programs`` are first words a command line may start with (``yc-bench``)
    and that the parser drops.
    """

    def __init__(self, programs: Iterable[str] = ("bizsim",), *, last_option_wins: bool = False) -> None:
        self.programs = tuple(programs)
        #: An option given twice in a command line takes its last value instead of being refused.
        self.last_option_wins = last_option_wins
        self._specs: dict[str, CommandSpec] = {}
        #: The commands by name (the same dict, read-only by convention): a lookup without a method call.
        self.by_name: Mapping[str, CommandSpec] = self._specs
        self._by_tool: tuple[int, dict[str, CommandSpec]] = (-1, {})  # (commands indexed, tool name -> command)

    def command(
        self,
        name: str,
        help: str,
        *,
        advances: bool = False,
        hidden: bool = False,
        counted: bool = True,
        marked: bool = False,
        disabled: bool = False,
        choices: Mapping[str, tuple[Any, ...]] | None = None,
    ) -> Callable[[F], F]:
        """Declare ``func`` as the command ``name``.

        ``counted`` commands use up a day-based world's daily action budget;
        observation-only or free commands pass ``counted=False``. ``marked``
        commands are the agent's decisions a run's timeline shows when they
        succeed (an accepted task, an order, a submission, an intervention).
        ``disabled`` commands always refuse (see :attr:`CommandSpec.disabled`).
        """

        def register(func: F) -> F:
            if name in self._specs:
                raise ValueError(f"command {name!r} is declared twice")
            spec = CommandSpec(
                name=name,
                help=help,
                params=_params_from_signature(func, choices or {}),
                func=func,
                advances=advances,
                hidden=hidden,
                counted=counted and not advances,
                marked=marked,
                disabled=disabled,
            )
            self._specs[name] = spec
            func.spec = spec  # type: ignore[attr-defined]
            return func

        return register

    def variant(
        self,
        *,
        last_option_wins: bool | None = None,
        params: Mapping[tuple[str, str], Mapping[str, Any]] | None = None,
        drop: Iterable[str] = (),
        wrap: Mapping[str, Callable[[Callable[..., Any]], Callable[..., Any]]] | None = None,
    ) -> CommandSet:
        """A copy of this set with other parsing rules: the same commands, some arguments changed, some dropped.

        For a preset that reproduces another implementation's parser (e.g. the
        startup world's ``reference``) without a second declaration of every command.

        Args:
            last_option_wins: see :attr:`last_option_wins` (``None`` keeps this set's).
            params: ``{(command, argument): {field: value}}``, fields of :class:`Param`
                such as ``minimum`` or ``validate``.
            drop: names of commands the copy does not have.
            wrap: ``{command: wrapper}``: the copy runs ``wrapper(func)`` in place of the command's function, with
                the same arguments (a later version of a world that rewrites some answers).
        """
        out = CommandSet(self.programs, last_option_wins=self.last_option_wins if last_option_wins is None
                         else last_option_wins)
        changes = dict(params or {})
        wrappers = dict(wrap or {})
        dropped = set(drop)
        for name, spec in self._specs.items():
            if name in dropped:
                continue
            mine = {p.name: changes.pop((name, p.name)) for p in spec.params if (name, p.name) in changes}
            if mine:
                spec = attrs.evolve(spec, params=tuple(attrs.evolve(p, **mine[p.name]) if p.name in mine else p
                                                       for p in spec.params))
            if name in wrappers:
                spec = attrs.evolve(spec, func=wrappers.pop(name)(spec.func))
            out._specs[name] = spec
        if changes:
            raise ValueError(f"no such arguments: {sorted(changes)}")
        if wrappers:
            raise ValueError(f"no such commands to wrap: {sorted(wrappers)}")
        return out

    def __getitem__(self, name: str) -> CommandSpec:
        try:
            return self._specs[name]
        except KeyError:
            raise CommandError(f"Unknown command '{clip(name)}'.", self.suggest(name)) from None

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[CommandSpec]:
        return iter(self._specs.values())

    def visible(self) -> list[CommandSpec]:
        """The commands an agent is told about."""
        return [s for s in self._specs.values() if not s.hidden]

    def by_tool_name(self, tool: str) -> CommandSpec:
        """Look a command up by its tool name (``task_accept``)."""
        if isinstance(tool, str) and tool.startswith("functions."):
            tool = tool[len("functions."):]
        # Commands are only ever added, so the index is rebuilt when their number changes.
        count, index = self._by_tool
        if count != len(self._specs):
            index = {spec.tool_name: spec for spec in reversed(self._specs.values())}  # the first declared wins
            self._by_tool = (len(self._specs), index)
        found = index.get(tool) if isinstance(tool, str) else None
        if found is not None:
            return found
        raise CommandError(f"Unknown tool '{clip(tool)}'.", self.suggest(str(tool).replace("_", " ")))

    def parse(self, line: str, *, allow_hidden: bool = True) -> tuple[CommandSpec, dict[str, Any]]:
        """Parse a command line (``yc-bench task accept --task-id Task-42``).

        Without ``allow_hidden`` a hidden command is refused as unknown (:class:`HiddenCommandError`) before its
        arguments are read, so no answer (a missing option's usage) tells an agent it exists.
        """
        if not isinstance(line, str):
            raise CommandError(f"A command must be text, got {type(line).__name__}.")
        if len(line) > MAX_LINE_CHARS:
            raise CommandError(f"The command line is {len(line):,} characters long; the limit is {MAX_LINE_CHARS:,}.",
                               "Send shorter arguments.")
        try:
            tokens = split_line(line)
        except ValueError as exc:
            raise CommandError(f"Cannot parse command line: {exc}.", "Check the quotes.") from None
        if tokens and tokens[0] in self.programs:
            tokens = tokens[1:]
        if not tokens:
            raise CommandError("Empty command.", self.suggest(""))
        for n in (3, 2, 1):
            name = " ".join(tokens[:n])
            spec = self._specs.get(name)
            if spec is not None and len(tokens) >= n:
                if spec.hidden and not allow_hidden:
                    raise HiddenCommandError(f"Unknown command '{spec.name}'.", self.suggest(spec.name))
                return spec, spec.bind_tokens(tokens[n:], self.last_option_wins)
        raise CommandError(f"Unknown command '{clip(' '.join(tokens[:2]))}'.", self.suggest(" ".join(tokens[:2])))

    def suggest(self, name: str) -> str:
        """A hint listing the commands that share a first word with ``name``."""
        head = name.split(" ")[0] if name else ""
        near = [s.name for s in self.visible() if head and s.name.split(" ")[0] == head]
        pool = near or [s.name for s in self.visible()]
        return "Commands: " + ", ".join(pool) + ". Try 'help'."

    def help_text(self, name: str | None = None) -> str:
        """Help for one command, or the list of all."""
        if name:
            spec = self[name]
            if spec.hidden:
                raise CommandError(f"Unknown command '{clip(name)}'.", self.suggest(name))
            return spec.help_text()
        width = max(len(s.name) for s in self.visible())
        return "\n".join(f"{s.name.ljust(width)}  {s.help}" for s in self.visible())

    def help_for(self, line: str) -> str | None:
        """Help text for a line that asks for it with a ``--help`` word (one command's, a group's or the list of
        all), as a command-line program answers ``PROGRAM task accept --help``; ``None`` for any other line.

        >>> # commands.help_for("yc-bench task --help") -> the task commands, one a line
        """
        if not isinstance(line, str) or "--help" not in line:  # the common case, without splitting the line
            return None
        try:
            words = split_line(line)
        except ValueError:
            return None
        if "--help" not in words:
            return None
        words = words[:words.index("--help")]
        if words and words[0] in self.programs:
            words = words[1:]
        visible = self.visible()
        for n in (3, 2, 1):
            name = " ".join(words[:n])
            if len(words) >= n and any(spec.name == name for spec in visible):
                return self.help_text(name)
        group = [spec for spec in visible if words and spec.name.split(" ")[0] == words[0]]
        if group:
            width = max(len(spec.name) for spec in group)
            return "\n".join(f"{spec.name.ljust(width)}  {spec.help}" for spec in group)
        return self.help_text()

    def tool_schemas(self) -> list[dict[str, Any]]:
        """Tool declarations for every visible command."""
        return [s.json_schema() for s in self.visible()]
