"""A world's commands as Inspect tools, their schemas taken from the command declarations.

Every visible command becomes one tool (``task accept`` -> ``task_accept``), its
parameters the declaration's JSON schema; a world played by the YC-Bench protocol
on a preset that asks for the reference's outputs offers that harness's single
``run_command`` tool instead. A tool finds its sample's episode through Inspect's
per-sample store, so one tool list serves every sample of a task.
"""

from __future__ import annotations

from typing import Any, cast

from bizsim.simcore.commands import CommandSpec, Param
from bizsim.simcore.world import World
from inspect_ai.tool import ToolDef, ToolParam, ToolParams

from bizsim.runs.live import EXIT_USAGE, Episode
from bizsim.surfaces.inspect_eval.sample import current_episode

__all__ = ["command_tools", "reference_protocol", "reference_tool_message", "run_command_tool", "tools_for"]

#: Parameter keys an Inspect tool parameter takes as they are (the bounds go into the description).
_KEPT = ("type", "description", "enum", "default", "maxLength")


def _param(p: Param) -> ToolParam:
    schema = p.json_schema()
    bounds = [f">= {p.minimum:g}" if p.minimum is not None else "", f"<= {p.maximum:g}" if p.maximum is not None else ""]
    shown = " and ".join(b for b in bounds if b)
    if shown:
        schema["description"] = f"{schema['description']} (a value {shown})"
    return ToolParam(**{k: v for k, v in schema.items() if k in _KEPT})


def _command_tool(spec: CommandSpec) -> ToolDef:
    name = spec.tool_name

    async def execute(**kwargs: Any) -> str:
        return current_episode().call_tool(name, kwargs).text()

    params = ToolParams(properties={p.name: _param(p) for p in spec.params},
                        required=[p.name for p in spec.params if p.required])
    return ToolDef(execute, name=name, description=spec.help, parameters=params)


def command_tools(world: World) -> list[ToolDef]:
    """One Inspect tool per command ``world`` tells an agent about."""
    return [_command_tool(spec) for spec in world.commands.visible()]


def run_command_tool() -> ToolDef:
    """YC-Bench's ``run_command`` tool, as its reference harness declares and answers it."""
    from bizsim.agents.llm.protocols.yc_bench_wire import REFERENCE_RUN_COMMAND_TOOL

    declared = cast("dict[str, Any]", REFERENCE_RUN_COMMAND_TOOL["function"])  # a literal of mixed values

    async def execute(**kwargs: Any) -> str:
        return reference_tool_message(current_episode(), kwargs.get("command"))

    prop = declared["parameters"]["properties"]["command"]
    params = ToolParams(properties={"command": ToolParam(type="string", description=prop["description"])},
                        required=["command"])
    return ToolDef(execute, name=declared["name"], description=declared["description"], parameters=params)


def reference_tool_message(episode: Episode, command: Any) -> str:
    """Run ``command`` on ``episode`` and answer as YC-Bench's harness does: its executor's result object as JSON
    text (exit code 0, 1 for a refused command, 2 for a line its parser rejects or a call not run)."""
    from bizsim.agents.llm.protocols import yc_bench_wire as wire

    refused = wire.refusal(command)
    if refused is not None:
        return wire.tool_message(command, exit_code=2, stderr=refused)
    outcome = episode.call_line(command)
    result = outcome.result
    if outcome.ok and outcome.command is None and "help" in result:  # its parser prints help and exits 0
        return wire.tool_message(command, exit_code=0, stdout=str(result["help"]) + "\n")
    if outcome.status == EXIT_USAGE:
        return wire.tool_message(command, exit_code=2, stderr=f"Error: {result.get('error')}\n")
    return wire.tool_message(command, result, exit_code=outcome.status)


def reference_protocol(world: World, protocol: str) -> bool:
    """Whether ``world`` is played as YC-Bench's reference harness plays it: one ``run_command`` tool."""
    return protocol == "yc-bench" and bool(getattr(world.config, "reference_outputs", False))


def tools_for(world: World, protocol: str) -> list[ToolDef]:
    """The tools a sample of this world and preset offers."""
    return [run_command_tool()] if reference_protocol(world, protocol) else command_tools(world)
