"""simcore.commands: one declaration gives the parser, validation, usage and tool schemas."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bizsim.simcore import Arg, CommandError, CommandSet
from bizsim.simcore.limits import MAX_INT

TOY = CommandSet(programs=("toy",))


@TOY.command("item add", "Add an item to the basket.")
def item_add(
    world,
    name: Annotated[str, Arg("Item name")],
    qty: Annotated[int, Arg("How many", minimum=1, maximum=1000)] = 1,
    price: Annotated[float, Arg("Unit price")] = 0.0,
    fragile: Annotated[bool, Arg("Handle with care")] = False,
    colour: Annotated[Literal["red", "green", "blue"] | None, Arg("Colour")] = None,
    note: Annotated[str | None, Arg("A note", max_length=20)] = None,
    count: Annotated[int | None, Arg("Any integer")] = None,
) -> dict:
    return {"name": name}


@TOY.command("item list", "List the basket.")
def item_list(world, size: Annotated[Literal["s", "m", "l"], Arg("Size")]) -> dict:
    return {}


@TOY.command("ping", "Answer pong.")
def ping(world) -> dict:
    return {"pong": True}


@TOY.command("report export csv", "Export a report.")
def report_export_csv(
    world,
    from_date: Annotated[str | None, Arg("Start date", flag="--from")] = None,
    wrap: Annotated[bool, Arg("Wrap lines")] = True,
) -> dict:
    return {}


@TOY.command("secret", "A command agents are not told about.", hidden=True)
def secret(world) -> dict:
    return {}


ALL_COMMANDS = "Commands: item add, item list, ping, report export csv. Try 'help'."
ADD_DEFAULTS = {"qty": 1, "price": 0.0, "fragile": False, "colour": None, "note": None, "count": None}
ADD_USAGE = (
    "Usage: item add --name NAME [--qty QTY] [--price PRICE] [--fragile] [--colour COLOUR] [--note NOTE]"
    " [--count COUNT]"
)


def parse(line: str) -> tuple[str, dict]:
    """Parse a line with the toy command set; (command name, arguments)."""
    spec, kwargs = TOY.parse(line)
    return spec.name, kwargs


def refusal(line: str) -> CommandError:
    """The CommandError a line is refused with."""
    with pytest.raises(CommandError) as info:
        TOY.parse(line)
    return info.value


# ---------------------------------------------------------------------------
# parsing


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("item add --name apple", {"name": "apple"}),
        ("toy item add --name apple", {"name": "apple"}),
        ("item add --name=apple --qty=3", {"name": "apple", "qty": 3}),
        ("item add --qty 3 --name apple", {"name": "apple", "qty": 3}),
        ('item add --name "green apple"', {"name": "green apple"}),
        ("item add --name 'it'\"'\"'s'", {"name": "it's"}),
        ("item add --name ''", {"name": ""}),
        ("item add --name --qty", {"name": "--qty"}),
        ("item add --name a --price 2.5 --fragile", {"name": "a", "price": 2.5, "fragile": True}),
        ("item add --name a --fragile=false", {"name": "a", "fragile": False}),
        ("item add --name a --fragile=YES", {"name": "a", "fragile": True}),
        ("item add --name a --colour green", {"name": "a", "colour": "green"}),
        ("item add --name a --count -7", {"name": "a", "count": -7}),
        ("item add --name a --count 1_000", {"name": "a", "count": 1000}),
        ("  item   add   --name   a  ", {"name": "a"}),
    ],
)
def test_parse_item_add(line, expected):
    """Flags take ``--flag value`` or ``--flag=value`` in any order; quotes follow shell rules; defaults fill in."""
    assert ("item add", ADD_DEFAULTS | expected) == parse(line)


def test_parse_commands_of_one_two_and_three_words():
    """Command names of one, two and three words are found; flags may override the argument name."""
    assert ("ping", {}) == parse("ping")
    assert ("item list", {"size": "m"}) == parse("toy item list --size m")
    expected = ("report export csv", {"from_date": "01/02/2025", "wrap": True})
    assert expected == parse("report export csv --from 01/02/2025")
    assert ("report export csv", {"from_date": None, "wrap": False}) == parse("report export csv --wrap=false")


def test_hidden_commands_parse_but_are_not_listed():
    """Hidden commands run when named but are left out of the visible list, help and tool schemas."""
    assert ("secret", {}) == parse("secret")
    assert "secret" not in [s.name for s in TOY.visible()]
    assert "secret" not in [t["function"]["name"] for t in TOY.tool_schemas()]
    assert "secret" not in TOY.help_text()


@pytest.mark.parametrize(
    ("line", "message", "hint"),
    [
        ("item remove --name a", "Unknown command 'item remove'.", "Commands: item add, item list. Try 'help'."),
        ("yc-bench ping", "Unknown command 'yc-bench ping'.", ALL_COMMANDS),
        ("", "Empty command.", ALL_COMMANDS),
        ("toy", "Empty command.", ALL_COMMANDS),
        ("item add --name a --bogus 1", "No such option --bogus for 'item add'.", ADD_USAGE),
        ("item add --qty 2", "Missing option --name for 'item add'.", ADD_USAGE),
        ("item add --name a --name b", "Option --name of 'item add' was given twice.", ADD_USAGE),
        ("item add --name", "Option --name of 'item add' needs a value.", ADD_USAGE),
        ("item add apple", "Unexpected argument 'apple' for 'item add'.", ADD_USAGE),
        ("item add --name a --fragile true", "Unexpected argument 'true' for 'item add'.", ADD_USAGE),
        ('item add --name "unterminated', "Cannot parse command line: No closing quotation.", "Check the quotes."),
        ("item list", "Missing option --size for 'item list'.", "Usage: item list --size SIZE"),
    ],
)
def test_parse_refusals_have_message_and_hint(line, message, hint):
    """A refused line raises CommandError naming the problem, with a hint (usage or the command list)."""
    err = refusal(line)
    assert (message, hint) == (err.message, err.hint)
    assert {"error": message, "hint": hint} == err.to_dict()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("item add --name a --qty abc", "--qty of 'item add' expects an integer, got 'abc'."),
        ("item add --name a --qty 2.5", "--qty of 'item add' expects an integer, got '2.5'."),
        ("item add --name a --qty=", "--qty of 'item add' expects an integer, got ''."),
        ("item add --name a --price cheap", "--price of 'item add' expects a number, got 'cheap'."),
        ("item add --name a --price nan", "--price of 'item add' expects a number, got 'nan'."),
        ("item add --name a --price inf", "--price of 'item add' expects a number, got 'inf'."),
        ("item add --name a --fragile=maybe", "--fragile of 'item add' expects true or false, got 'maybe'."),
        ("item add --name a --colour purple", "--colour of 'item add' must be one of red, green, blue; got 'purple'."),
        ("item add --name a --qty 0", "--qty of 'item add' must be >= 1; got 0."),
        ("item add --name a --qty 1001", "--qty of 'item add' must be <= 1000; got 1001."),
        ("item add --name a --note " + "x" * 21, "--note of 'item add' is 21 characters long; the limit is 20."),
        ("item list --size xl", "--size of 'item list' must be one of s, m, l; got 'xl'."),
    ],
)
def test_parse_refuses_bad_values(line, message):
    """Values are checked against the declared type, choices, bounds and length, naming the flag and the value."""
    assert message == refusal(line).message


def test_parse_refuses_non_text():
    """Only text is a command line."""
    assert "A command must be text, got int." == refusal(42).message  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# usage, help, lookups


def test_usage_and_help_text():
    """Usage marks optional flags with brackets and bool flags without a value; help lists every argument."""
    spec = TOY["item add"]
    assert ADD_USAGE.removeprefix("Usage: ") == spec.usage()
    lines = spec.help_text().splitlines()
    assert "  Add an item to the basket." == lines[1]
    assert "  --qty: How many (default 1)" == lines[3]
    assert "  --colour: Colour one of red, green, blue." == lines[6]


def test_lookups_and_their_refusals():
    """Commands are found by name and by tool name; unknown ones raise CommandError with suggestions."""
    assert "item add" == TOY.by_tool_name("item_add").name
    assert "report export csv" == TOY.by_tool_name("report_export_csv").name
    assert "item_add" == TOY["item add"].tool_name
    assert "item add" in TOY and "nope" not in TOY
    with pytest.raises(CommandError, match="Unknown tool 'item_drop'."):
        TOY.by_tool_name("item_drop")
    with pytest.raises(CommandError, match="Unknown command 'nope'."):
        TOY["nope"]


def test_declaration_errors():
    """A command declared twice, or with an argument lacking Annotated/Arg or of an unsupported type, is refused."""
    cs = CommandSet()

    def a(world) -> dict:
        return {}

    cs.command("a", "A.")(a)
    with pytest.raises(ValueError, match="declared twice"):
        cs.command("a", "A again.")(a)

    def plain(world, x: int) -> dict:
        return {}

    with pytest.raises(TypeError, match="needs Annotated"):
        cs.command("plain", "P.")(plain)

    def no_arg(world, x: Annotated[int, "just a string"]) -> dict:
        return {}

    with pytest.raises(TypeError, match=r"needs an Arg"):
        cs.command("no arg", "N.")(no_arg)

    def listy(world, x: Annotated[list, Arg("a list")]) -> dict:
        return {}

    with pytest.raises(TypeError, match="unsupported type"):
        cs.command("listy", "L.")(listy)


# ---------------------------------------------------------------------------
# tool schemas and JSON arguments


def test_json_schema_shape():
    """A command's tool schema names the tool, lists required arguments, enums for choices, and forbids extras."""
    schema = TOY["item add"].json_schema()
    fn = schema["function"]
    assert "function" == schema["type"]
    assert "item_add" == fn["name"]
    assert "Add an item to the basket." == fn["description"]
    params = fn["parameters"]
    assert "object" == params["type"]
    assert ["name"] == params["required"]
    assert False is params["additionalProperties"]
    assert ["name", "qty", "price", "fragile", "colour", "note", "count"] == list(params["properties"])
    props = params["properties"]
    assert {"type": "string", "description": "Item name"} == props["name"]
    assert {"type": "integer", "description": "How many", "minimum": 1, "maximum": 1000, "default": 1} == props["qty"]
    assert {"type": "number", "description": "Unit price", "default": 0.0} == props["price"]
    assert {"type": "boolean", "description": "Handle with care", "default": False} == props["fragile"]
    assert {"type": "string", "description": "Colour", "enum": ["red", "green", "blue"]} == props["colour"]
    assert {"type": "string", "description": "A note", "maxLength": 20} == props["note"]
    assert ["size"] == TOY["item list"].json_schema()["function"]["parameters"]["required"]
    assert [] == TOY["ping"].json_schema()["function"]["parameters"]["required"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"name": "a"}, {"name": "a"}),
        ({"name": "a", "qty": "5"}, {"name": "a", "qty": 5}),
        ({"name": "a", "qty": 5.0}, {"name": "a", "qty": 5}),
        ({"name": "a", "price": 3}, {"name": "a", "price": 3.0}),
        ({"name": "a", "price": "2.5"}, {"name": "a", "price": 2.5}),
        ({"name": "a", "fragile": "true"}, {"name": "a", "fragile": True}),
        ({"name": "a", "fragile": "0"}, {"name": "a", "fragile": False}),
        ({"name": 7}, {"name": "7"}),
        ({"name": "a", "qty": None}, {"name": "a"}),
        ({"--name": "a", "--qty": 2}, {"name": "a", "qty": 2}),
        ({"name": "a", "colour": "red"}, {"name": "a", "colour": "red"}),
    ],
)
def test_bind_json_coerces_types(args, expected):
    """Tool-call arguments are coerced to the declared types; None means the default; flag spellings are accepted."""
    assert ADD_DEFAULTS | expected == TOY["item add"].bind_json(args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"name": "a", "bogus": 1, "also": 2}, "Unknown argument(s) also, bogus for 'item add'."),
        ({}, "Missing option --name for 'item add'."),
        (None, "Missing option --name for 'item add'."),
        ({"name": "a", "qty": 5.5}, "--qty of 'item add' expects an integer, got 5.5."),
        ({"name": "a", "qty": True}, "--qty of 'item add' expects an integer, got True."),
        ({"name": "a", "price": False}, "--price of 'item add' expects a number, got False."),
        ({"name": "a", "fragile": 2}, "--fragile of 'item add' expects true or false, got 2."),
        ({"name": ["a"]}, "--name of 'item add' expects text, got ['a']."),
        ({"name": True}, "--name of 'item add' expects text, got True."),
        ({"name": "a", "colour": "pink"}, "--colour of 'item add' must be one of red, green, blue; got 'pink'."),
    ],
)
def test_bind_json_refusals(args, message):
    """Unknown keys, missing required arguments and wrong JSON types are refused with a message naming them."""
    with pytest.raises(CommandError) as info:
        TOY["item add"].bind_json(args)
    assert message == info.value.message


# ---------------------------------------------------------------------------
# canonical lines


def test_to_line_omits_defaults_and_quotes_text():
    """The canonical line leaves defaults out, quotes text, and writes bools as a bare flag or ``=false``."""
    add, export = TOY["item add"], TOY["report export csv"]
    assert "item add --name apple" == add.to_line({"name": "apple"})
    line = add.to_line({"name": "green apple", "qty": 2, "fragile": True})
    assert "item add --name 'green apple' --qty 2 --fragile" == line
    assert "report export csv --wrap=false" == export.to_line({"wrap": False})
    assert "report export csv --from 01/02/2025" == export.to_line({"from_date": "01/02/2025", "wrap": True})


ADD = TOY["item add"]
texts = st.text(st.characters(exclude_categories=("Cs",)) | st.sampled_from("'\" \\\t\n=-"), max_size=30)
add_kwargs = st.fixed_dictionaries(
    {"name": texts},
    optional={
        "qty": st.integers(1, 1000),
        "price": st.floats(allow_nan=False, allow_infinity=False),
        "fragile": st.booleans(),
        "colour": st.sampled_from(["red", "green", "blue"]),
        "note": st.text(st.characters(exclude_categories=("Cs",)) | st.sampled_from("'\" "), max_size=20),
        "count": st.integers(-MAX_INT, MAX_INT),  # past 64 bits both paths refuse (tests/test_hostile_commands.py)
    },
)


@given(kwargs=add_kwargs)
def test_to_line_round_trips(kwargs):
    """Parsing the canonical line of any arguments gives those arguments back (defaults filled in)."""
    spec, parsed = TOY.parse(ADD.to_line(kwargs))
    assert "item add" == spec.name
    assert ADD_DEFAULTS | kwargs == parsed


@given(kwargs=add_kwargs)
def test_to_line_round_trips_with_program_word(kwargs):
    """A canonical line still parses with the program word in front."""
    assert ADD_DEFAULTS | kwargs == TOY.parse("toy " + ADD.to_line(kwargs))[1]


@given(kwargs=add_kwargs)
def test_bind_json_accepts_what_the_parser_returns(kwargs):
    """JSON arguments and the CLI line of the same arguments bind to the same values."""
    assert TOY.parse(ADD.to_line(kwargs))[1] == ADD.bind_json(kwargs)


@given(words=st.lists(st.text(max_size=10), max_size=6))
def test_parse_never_raises_anything_but_command_error(words):
    """Any line is parsed or refused with CommandError; nothing else escapes."""
    line = " ".join(words)
    try:
        spec, kwargs = TOY.parse(line)
    except CommandError as exc:
        assert exc.message.endswith(".")
    else:
        assert spec.name in TOY
        assert set(kwargs) == {p.name for p in spec.params}


@pytest.mark.parametrize("args", ['"name"', "{not json", 5, ["name"], {1: "x"}])
def test_bind_json_refuses_arguments_that_are_not_an_object(args):
    """Tool arguments that are not a JSON object with text keys are refused with CommandError, not a crash."""
    with pytest.raises(CommandError):
        TOY["item add"].bind_json(args)


def test_bind_json_unwraps_an_object_sent_as_json_text():
    """A JSON object sent as text (a common model output) is read as that object."""
    assert TOY["item add"].bind_json({"name": "a"}) == TOY["item add"].bind_json('{"name": "a"}')


def test_a_variant_can_wrap_a_command_keeping_its_arguments():
    """variant(wrap=...) runs the wrapper around the command's function with the same declared arguments; naming a
    command the set lacks is an error."""
    import pytest as _pytest

    from bizsim.models.startup.commands import COMMANDS

    def shout(func):
        return lambda world, **kw: {**func(world, **kw), "wrapped": True}

    wrapped = COMMANDS.variant(wrap={"scratchpad read": shout})
    assert wrapped["scratchpad read"].params == COMMANDS["scratchpad read"].params
    world = type("W", (), {"scratchpad": "x"})()
    assert {"content": "x", "wrapped": True} == wrapped["scratchpad read"].func(world)
    with _pytest.raises(ValueError, match="no such commands to wrap"):
        COMMANDS.variant(wrap={"no such": shout})
