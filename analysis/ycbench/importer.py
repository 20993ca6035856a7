"""``bizsim import yc-bench``: a reference run replayed through preset ``reference`` into a bizsim run directory.

The model's recorded commands are played, turn by turn, by a model client
(:class:`~.replay_client.RolloutClient`) through bizsim's own YC-Bench
harness, so the directory is an ordinary LLM run: ``verify``, ``load``, the
viewer and ``fork`` work on it, and ``llm_calls.jsonl`` keeps the model's
calls with the rollout's tokens and costs. Everything is written to a
temporary directory beside ``out`` and renamed at the end: a failure leaves
nothing behind.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import attrs
from bizsim.simcore.errors import ConfigError

from bizsim.analysis.ycbench.fidelity import _header, fidelity_report, recorded_outcome
from bizsim.analysis.ycbench.rollout import MAX_TURN_TEXT, Rollout, RolloutError, read_rollout
from bizsim.runs.recorder import RunDirRecorder
from bizsim.runs.rundir import RunDir

__all__ = ["REFERENCE_CONFIG", "REFERENCE_VERSION", "ImportResult", "import_rollout"]

#: The reference's configuration that bizsim's preset ``reference`` reproduces, and the version it was checked at.
REFERENCE_CONFIG = "default"
REFERENCE_VERSION = "collinear-ai/yc-bench 6b33452"


@attrs.frozen
class ImportResult:
    """Where the run went (``None`` for a dry run) and its fidelity report."""

    run_dir: Path | None
    report: dict[str, Any]


def import_rollout(
    path: str | Path, out: str | Path | None, *, config: str | None = None, seed: int | None = None,
    model: str | None = None, partial: bool = False, other_world: bool = False,
) -> ImportResult:
    """Import a YC-Bench rollout into the run directory ``out`` (``None``: replay and report, write nothing).

    Args:
        config, seed, model: what the rollout's file name would tell, for a file renamed since.
        partial: a rollout that lost turns is written as an unverifiable record (``imported.json`` only).
        other_world: replay a rollout whose world is not preset ``reference``'s (another configuration or an
            older reference version) anyway; its report then says so.

    Raises:
        RolloutError: the rollout is malformed, truncated, foreign, partial (without ``partial``), or its world
            cannot be determined or is not preset ``reference``'s (without ``other_world``).
        ConfigError: ``out`` exists and is not an empty directory.
    """
    target = None if out is None else Path(out)
    if target is not None:
        _check_free(target)
    rollout = read_rollout(path, config=config, seed=seed, model=model, allow_partial=partial)
    if not rollout.complete:
        record = {"kind": "yc-bench rollout (unverifiable: turns missing)", "source": rollout.source,
                  "missing": rollout.missing, "model": rollout.model, "seed": rollout.seed, "config": rollout.config,
                  "recorded": recorded_outcome(rollout), "rollout": _rollout_record(rollout)}
        if target is not None:
            _write_dir(target, lambda tmp: RunDirRecorder(tmp).note_import(record))
        return ImportResult(target, record)
    world_note = _world_note(rollout, other_world)
    if target is None:
        return _replay(rollout, None, world_note)
    box: list[ImportResult] = []
    _write_dir(target, lambda tmp: box.append(_replay(rollout, tmp, world_note)))
    return attrs.evolve(box[0], run_dir=target)


def _check_free(target: Path) -> None:
    if target.is_symlink() or (target.exists() and (not target.is_dir() or any(target.iterdir()))):
        raise ConfigError(f"{str(target)!r} already exists and is not an empty directory; choose another --out")


def _write_dir(target: Path, fill: Any) -> None:
    """Fill a fresh temporary directory beside ``target``, then rename it to ``target``; on failure remove it."""
    parent = target.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot write to {str(target)!r}: {exc.strerror or exc}") from None
    tmp = parent / f".{target.name}.importing-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir()
        fill(tmp)
        if target.exists():
            target.rmdir()  # empty (checked before): the rename needs it gone
        tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _world_note(rollout: Rollout, other_world: bool) -> str | None:
    """Why the rollout's world is not preset ``reference``'s (``None``: it is); refuse unless ``other_world``."""
    if rollout.seed is None:
        raise RolloutError(f"{rollout.source}: the seed is not recorded and the file name does not tell it; pass --seed")
    from bizsim.models.startup import StartupWorld
    from bizsim.simcore.config import config_to_dict

    world = StartupWorld("reference", rollout.seed)
    reasons = []
    if rollout.recorded_config is not None:
        ours = config_to_dict(world.config)
        for key, value in sorted(rollout.recorded_config.items()):
            if key not in ours:
                reasons.append(f"it records setting {key!r}, which preset reference does not have")
            elif ours[key] != value or type(ours[key]) is not type(value):
                reasons.append(f"it records {key}={value!r}, preset reference has {ours[key]!r}")
    if rollout.config is None and rollout.recorded_config is None:
        raise RolloutError(f"{rollout.source}: cannot tell which configuration the run used (the file name is not the "
                           "reference's <config>_<seed>_<model>, and the file records no configuration); pass --config")
    obs = world.observation()
    if rollout.config is not None and rollout.config != REFERENCE_CONFIG:
        reasons.append(f"it ran config {rollout.config!r}, and preset reference is the reference's "
                       f"{REFERENCE_CONFIG!r} ({REFERENCE_VERSION})")
    first = next((t for e in rollout.episodes for t in e.turns), None)
    start = first.user_input if first is not None else None
    if start:
        _, funds = _header(start)
        payroll = re.fullmatch(r"\$([\d,]{1,30})\.(\d\d)", _field(start, "monthly_payroll") or "")
        theirs = (funds, _field(start, "horizon_end"), _field(start, "employees"),
                  int(payroll.group(1).replace(",", "") + payroll.group(2)) if payroll else None)
        mine = (obs["funds_cents"], str(obs["horizon_end"]), str(obs["employees"]), obs["monthly_payroll_cents"])
        if theirs != mine:
            reasons.append(f"its first turn shows funds {theirs[0]} cents, horizon end {theirs[1]}, {theirs[2]} "
                           f"employees, payroll {theirs[3]} cents a month; preset reference at seed {rollout.seed} "
                           f"starts with {mine[0]} cents, {mine[1]}, {mine[2]} employees, {mine[3]} cents a month")
    if not reasons:
        return None
    note = "; ".join(reasons)
    if not other_world:
        raise RolloutError(f"{rollout.source}: not the world of preset reference: {note}. Replay it there anyway "
                           "with --other-world")
    return note


def _field(text: str, name: str) -> str | None:
    m = re.search(rf"(?i)-\s*\**{name.replace('_', '[ _]')}\**:\**\s*(\$?[\d,.:T\-]+)", text)
    return m.group(1) if m else None


def _replay(rollout: Rollout, tmp: Path | None, world_note: str | None) -> ImportResult:
    from bizsim.agents.llm import LLMAgentConfig
    from bizsim.runs.llm_run import run_llm
    from bizsim.runs.runspec import RunSpec
    from bizsim.simcore.limits import MAX_LINE_CHARS

    from bizsim.analysis.ycbench.replay_client import RolloutClient, served_turns

    client = RolloutClient(rollout.episodes, rollout.model)
    # Stop where the recorded run stopped (a longer replay is reported; its client fails past the record).
    longest = max((len(e.turns) for e in rollout.episodes), default=0)
    agent = LLMAgentConfig(model=rollout.model, max_turns=longest or None, max_stalled_turns=None, max_tool_calls_per_turn=1_000_000,
                           max_command_chars=MAX_LINE_CHARS, max_reply_chars=MAX_TURN_TEXT, max_api_failures=1,
                           log_raw=False)
    scratch = None
    if tmp is None:
        import tempfile

        scratch = tempfile.mkdtemp(prefix="bizsim-import-")
        run_dir = Path(scratch) / "run"
    else:
        run_dir = tmp
    try:
        spec = RunSpec("startup", "reference", "llm", int(rollout.seed or 0), agent_options=agent,
                       max_episodes=len(rollout.episodes))
        result = run_llm(spec, out=run_dir, client=client).to_dict()
        client.finish()
        served = served_turns(client)
        if served and served[-1][3] is None:
            served[-1] = (*served[-1][:3], _last_turn_texts(run_dir, served[-1][0], served[-1][1],
                                                                    seed=int(rollout.seed or 0)))
        report = fidelity_report(rollout, served, result, client.unused, world_note)
        if tmp is not None:
            RunDirRecorder(tmp).note_import({"kind": "yc-bench rollout", "source": rollout.source, "format": rollout.kind,
                                   "model": rollout.model, "seed": rollout.seed, "config": rollout.config,
                                   "horizon_years": rollout.horizon_years, "total_cost_usd": rollout.total_cost_usd,
                                   "report": report, "rollout": _rollout_record(rollout)})
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    return ImportResult(tmp, report)


def _last_turn_texts(run_dir: Path, episode: int, turn: Any = None, preset: str = "reference",
                     seed: int = 1) -> list[str | None]:
    """The tool messages of the run's last turn, rebuilt from ``agent_commands.jsonl`` (no request followed it),
    exit codes as the reference's harness gives them; a call with no logged command is ``None`` (not compared)."""
    from bizsim.agents.llm.protocols import yc_bench_wire as wire
    from bizsim.models.startup import StartupWorld
    from bizsim.simcore.errors import CommandError

    rows = [r for r in RunDir(run_dir).read_agent_commands() if r.get("episode") == episode and r.get("source") == "model"]
    if not rows:
        return []
    last = [r for r in rows if r.get("turn") == rows[-1].get("turn")]
    commands = StartupWorld(preset, seed).commands  # how a line parses depends on the preset (reference_cli)
    lines = [c.command for c in turn.calls] if turn is not None else [str(r.get("line")) for r in last]
    out: list[str | None] = []
    for line in lines:
        refused = wire.refusal(line)
        if refused is not None:
            out.append(wire.tool_message(line, exit_code=2, stderr=refused))
            continue
        row = next((r for r in last if r.get("line") == line), None)
        if row is None:
            out.append(None)
            continue
        last.remove(row)
        result = row.get("result")
        try:
            commands.parse(line)
        except CommandError as exc:
            out.append(wire.tool_message(line, exit_code=2, stderr=f"Error: {exc.message}\n"))
            continue
        failed = isinstance(result, dict) and "error" in result
        out.append(wire.tool_message(line, result, exit_code=1 if failed else 0))
    return out


def _rollout_record(rollout: Rollout) -> list[dict]:
    """The harness's side of every turn, as the rollout kept it (the model's side is in ``llm_calls.jsonl``)."""
    return [{"episode": e.number, "turn": t.number, "user_input": t.user_input, "agent_output": t.agent_output,
             "calls": [{"command": c.command, "recorded": c.recorded} for c in t.calls],
             "prompt_tokens": t.prompt_tokens, "completion_tokens": t.completion_tokens, "cost_usd": t.cost_usd,
             "sim_time": t.sim_time, "funds_cents": t.funds_cents}
            for e in rollout.episodes for t in e.turns]
