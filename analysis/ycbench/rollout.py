"""Reading a YC-Bench rollout: the reference harness's results JSON or its live ``*.transcript.jsonl``.

A rollout is hostile input: it is read no further than
:data:`~bizsim.simcore.limits.MAX_ROLLOUT_BYTES`, every field is checked for
its type and size, and anything else (a truncated file, a foreign JSON, a
transcript that lost its first turns) is one :class:`RolloutError` naming the
file and what is wrong. Facts about the format (specs/startup.md §14): each
turn records the model's tool calls as ``"<command> -> <result>"``, the
result being the first 500 characters of the harness's executor JSON.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_INT, MAX_LINE_CHARS, MAX_ROLLOUT_BYTES, MAX_ROLLOUT_TURNS, read_text_file, show
from bizsim.simcore.untrusted_json import loads_untrusted

__all__ = ["Call", "Episode", "Rollout", "RolloutError", "Turn", "read_rollout", "split_call"]

#: Characters of a command's result the reference keeps in a transcript.
RESULT_CHARS = 500
#: The longest free text of a turn read (the harness's message, the model's reply).
MAX_TURN_TEXT = 4_000_000
_SEP = ' -> {"ok": '
_RESULTS_NAME = re.compile(r"^yc_bench_result_(?P<rest>.+)\.json$")
_TRANSCRIPT_NAME = re.compile(r"^(?P<config>.+?)_(?P<seed>\d{1,9})_(?P<slug>.+)\.transcript\.jsonl$")
_TERMINAL = ("bankruptcy", "horizon_end", "error")


class RolloutError(ConfigError):
    """A rollout that cannot be imported: malformed, truncated, foreign, or partial."""


@attrs.frozen
class Call:
    """One tool call of a turn: the command line and the recorded start of its result (``None``: none kept)."""

    command: str
    recorded: str | None


@attrs.frozen
class Turn:
    """One model call of the reference harness and what the rollout kept of it."""

    number: int
    agent_output: str
    calls: tuple[Call, ...]
    user_input: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    sim_time: str | None = None       # transcript.jsonl: after the turn
    funds_cents: int | None = None    # transcript.jsonl: after the turn


@attrs.frozen
class Episode:
    """The turns of one episode (a run restarted after a bankruptcy has several)."""

    number: int
    turns: tuple[Turn, ...]
    terminal_reason: str | None
    terminal_detail: str | None


@attrs.frozen
class Rollout:
    """A reference run as its file records it."""

    source: str
    kind: str                     # "results" or "transcript"
    model: str
    seed: int | None
    config: str | None
    horizon_years: int | None
    episodes: tuple[Episode, ...]
    terminal_reason: str | None
    terminal_detail: str | None
    total_cost_usd: float | None
    complete: bool                # every turn of every episode is kept
    missing: str = ""             # which turns are not, when incomplete
    recorded_config: dict[str, Any] | None = None  # the configuration subset a results file records
    funds_series: tuple[tuple[str, int], ...] | None = None  # (time, funds) after each money event, if recorded
    task_statuses: tuple[str, ...] | None = None  # every accepted task's final status, if recorded

    @property
    def turns(self) -> int:
        """Turns kept over all episodes."""
        return sum(len(e.turns) for e in self.episodes)


def split_call(entry: str) -> Call:
    """A ``commands_executed`` entry as a :class:`Call`.

    >>> split_call('yc-bench sim resume -> {"ok": true, "exit_code": 0}')
    Call(command='yc-bench sim resume', recorded='{"ok": true, "exit_code": 0}')
    >>> split_call("yc-bench company status")
    Call(command='yc-bench company status', recorded=None)
    """
    at = entry.find(_SEP)  # a result always starts {"ok": ...}; a command may itself hold " -> "
    if at < 0:
        return Call(entry, None)
    return Call(entry[:at], entry[at + 4:])


def read_rollout(
    path: str | Path, *, config: str | None = None, seed: int | None = None, model: str | None = None,
    allow_partial: bool = False,
) -> Rollout:
    """Read and check a rollout file (``yc_bench_result_*.json`` or ``*.transcript.jsonl``).

    Args:
        config, seed, model: what the file name would otherwise tell (the reference names its files
            ``yc_bench_result_<config>_<seed>_<model>.json`` and ``<config>_<seed>_<model>.transcript.jsonl``).
        allow_partial: read a rollout that lost turns (then :attr:`Rollout.complete` is false) instead of refusing it.

    Raises:
        RolloutError: one line naming the file and the problem.
    """
    p = Path(path)
    text = _read(p)
    if p.name.endswith(".jsonl"):
        out = _from_transcript(p, text, config, seed, model)
    else:
        out = _from_results(p, text, config, seed, model)
    if not out.complete and not allow_partial:
        raise RolloutError(f"{p.name}: the rollout does not keep every turn ({out.missing}); import it as an "
                           "unverifiable record (--partial) or find the run's full transcript")
    return out


def _read(p: Path) -> str:
    """The rollout's text, read as every file bizsim is pointed at is read (bounded, UTF-8), refused when empty."""
    try:
        text = read_text_file(p, p.name, MAX_ROLLOUT_BYTES)
    except ConfigError as exc:
        raise RolloutError(f"{exc}: not a YC-Bench rollout bizsim can import") from None
    if not text.strip():
        raise RolloutError(f"{p.name} is empty: no rollout to import")
    return text


def _json(p: Path, text: str, where: str) -> Any:
    try:
        return loads_untrusted(text)
    except json.JSONDecodeError as exc:
        body = text.strip()
        cut = body[:1] in ("{", "[") and (exc.pos >= len(body) - 1 or not body.endswith(("}", "]")))
        why = "it ends before the JSON does (a truncated file)" if cut else f"invalid JSON ({exc.msg}, char {exc.pos})"
        raise RolloutError(f"{p.name}{where}: {why}") from None
    except RecursionError:
        raise RolloutError(f"{p.name}{where}: nested too deep to be a rollout") from None


def _from_results(p: Path, text: str, config: str | None, seed: int | None, model: str | None) -> Rollout:
    data = _json(p, text, "")
    if not isinstance(data, dict) or not ("transcript" in data or "episodes" in data) or "model" not in data:
        raise RolloutError(f"{p.name} is not a YC-Bench results file: it has no 'model' and 'transcript' "
                           "(or 'episodes') fields")
    got_model = _text(p, data, "model", 1000, "")
    got_seed = _int(p, data.get("seed"), "seed", "")
    if seed is not None and got_seed is not None and seed != got_seed:
        raise RolloutError(f"{p.name} records seed {got_seed}, not the {seed} given")
    if got_seed is None:
        got_seed = seed
    name_config = _config_from_results_name(p.name, got_seed, got_model)
    horizon = _int(p, data.get("horizon_years"), "horizon_years", "")
    terminal_reason = _reason(p, data.get("terminal_reason"), "")
    terminal_detail = _opt_text(p, data.get("terminal_detail"), "terminal_detail", "")
    cost = _num(p, data.get("total_cost_usd"), "total_cost_usd", "")
    if isinstance(data.get("episodes"), list):
        raw_eps = data["episodes"]
        if not raw_eps or not all(isinstance(e, dict) for e in raw_eps):
            raise RolloutError(f"{p.name}: 'episodes' must be a non-empty list of objects")
        episodes = []
        for n, ep in enumerate(raw_eps, 1):
            where = f" episode {n}"
            turns = _turns(p, ep.get("transcript"), where)
            episodes.append(Episode(n, turns, _reason(p, ep.get("terminal_reason"), where),
                                    _opt_text(p, ep.get("terminal_detail"), "terminal_detail", where)))
        declared = [_declared(p, ep.get("turns_completed"), f" episode {n}") for n, ep in enumerate(raw_eps, 1)]
        total = sum(max(d or 0, ep.turns[-1].number if ep.turns else 0) for d, ep in zip(declared, episodes))
        if total > MAX_ROLLOUT_TURNS:
            raise RolloutError(f"{p.name}: its episodes hold {total:,} turns, more than the limit of "
                               f"{MAX_ROLLOUT_TURNS:,}")
    else:
        turns = _turns(p, data.get("transcript"), "")
        episodes = [Episode(1, turns, terminal_reason, terminal_detail)]
        declared = [_declared(p, data.get("turns_completed"), "")]
    missing = _missing(episodes, declared)
    return Rollout(p.name, "results", model or got_model, got_seed, config or name_config, horizon, tuple(episodes),
                   terminal_reason, terminal_detail, cost, not missing, missing, _recorded_config(p, data),
                   *_recorded_series(p, data))


def _recorded_series(p: Path, data: dict) -> tuple[tuple[tuple[str, int], ...] | None, tuple[str, ...] | None]:
    """``time_series.funds`` and the statuses in ``time_series.tasks``, which later reference versions record."""
    series = data.get("time_series")
    if not isinstance(series, dict):
        return None, None
    funds, tasks = series.get("funds"), series.get("tasks")
    out_funds = None
    if isinstance(funds, list):
        rows = []
        for row in funds:
            if not (isinstance(row, dict) and isinstance(row.get("time"), str) and len(row["time"]) <= 64):
                raise RolloutError(f"{p.name}: time_series.funds holds {show(row)}, not a {{time, funds_cents}} entry")
            rows.append((row["time"], _int(p, row.get("funds_cents"), "time_series.funds funds_cents", "", signed=True)))
        out_funds = tuple((t, c) for t, c in rows if c is not None)
    out_tasks = None
    if isinstance(tasks, list):
        out_tasks = tuple(str(t.get("status"))[:64] for t in tasks if isinstance(t, dict))
    return out_funds, out_tasks


def _recorded_config(p: Path, data: dict) -> dict[str, Any] | None:
    """``time_series.config``: the world settings later reference versions record with their results."""
    series = data.get("time_series")
    config = series.get("config") if isinstance(series, dict) else None
    if config is None:
        return None
    if not isinstance(config, dict) or len(config) > 1000:
        raise RolloutError(f"{p.name}: 'time_series.config' must be an object of at most 1,000 settings")
    for key, value in config.items():
        if len(key) > 200 or not (value is None or isinstance(value, (bool, int, float)) or
                                  (isinstance(value, str) and len(value) <= 1000)):
            raise RolloutError(f"{p.name}: time_series.config[{show(key)}] must be a number, a flag or a short "
                               f"string, not {show(value)}")
    return dict(config)


def _from_transcript(p: Path, text: str, config: str | None, seed: int | None, model: str | None) -> Rollout:
    m = _TRANSCRIPT_NAME.match(p.name)
    lines = text.split("\n")
    rows = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if i == len(lines) and not text.endswith("\n"):
            try:
                loads_untrusted(line)
            except (json.JSONDecodeError, RecursionError):
                raise RolloutError(f"{p.name} line {i} is cut off: the transcript is truncated "
                                   "(a run still being written, or a damaged copy)") from None
        row = _json(p, line, f" line {i}")
        if not isinstance(row, dict) or "turn" not in row or "commands_executed" not in row:
            raise RolloutError(f"{p.name} line {i} is not a YC-Bench transcript line (no 'turn' and "
                               "'commands_executed'): not a YC-Bench transcript")
        rows.append(row)
    turns = _turns(p, rows, "")
    missing = _missing([Episode(1, turns, None, None)], [None])
    # A run restarted after a bankruptcy appends its next episode to the same file, numbering its turns on:
    # an episode ends where the funds went below zero.
    cuts = [i + 1 for i, t in enumerate(turns[:-1]) if t.funds_cents is not None and t.funds_cents < 0]
    parts = [turns[a:b] for a, b in zip([0, *cuts], [*cuts, len(turns)])]
    episodes = []
    for n, part in enumerate(parts, 1):
        last = part[-1] if part else None
        reason = None
        for call in last.calls if last is not None else ():
            found = re.search(r'\\"terminal_reason\\": \\"(\w+)\\"', call.recorded or "")
            if found and found.group(1) in _TERMINAL:
                reason = found.group(1)
        if reason is None and last is not None and last.funds_cents is not None and last.funds_cents < 0:
            reason = "bankruptcy"  # the harness ends an episode as soon as funds are below zero
        episodes.append(Episode(n, tuple(part), reason, None))
    reason = episodes[-1].terminal_reason if episodes else None
    return Rollout(p.name, "transcript", model or (m.group("slug") if m else "unknown"),
                   seed if seed is not None else (int(m.group("seed")) if m else None),
                   config or (m.group("config") if m else None), None, tuple(episodes) or (Episode(1, (), None, None),),
                   reason, None, None, not missing, missing)


def _config_from_results_name(name: str, seed: int | None, model: str) -> str | None:
    m = _RESULTS_NAME.match(name)
    if not m or seed is None:
        return None
    tail = f"{seed}_{model.replace('/', '_')}"
    rest = m.group("rest")
    if rest == tail:
        return None  # the first versions named results without their config (any --config): not determinable
    if rest.endswith("_" + tail):
        return rest[: -len(tail) - 1] or None
    return None


def _missing(episodes: list[Episode], declared: list[int | None]) -> str:
    gaps = []
    for ep, want in zip(episodes, declared):
        have = [t.number for t in ep.turns]  # increasing: _turns refuses them out of order
        total = max([*have, want or 0])
        # The gaps are found between the turns kept, never by listing every number up to the declared total.
        absent = [(a + 1, b - 1) for a, b in zip([0, *have], [*have, total + 1]) if b > a + 1]
        if absent:
            where = f"episode {ep.number}: " if len(episodes) > 1 else ""
            gaps.append(f"{where}turns {_ranges(absent)} of {total} are missing")
    return "; ".join(gaps)


def _ranges(spans: list[tuple[int, int]]) -> str:
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _declared(p: Path, value: Any, where: str) -> int | None:
    """A declared ``turns_completed``: a count of turns, so within the limit on turns."""
    count = _int(p, value, "turns_completed", where)
    if count is not None and count > MAX_ROLLOUT_TURNS:
        raise RolloutError(f"{p.name}{where}: 'turns_completed' (={count:,}) is more than the limit of "
                           f"{MAX_ROLLOUT_TURNS:,} turns")
    return count


def _turns(p: Path, raw: Any, where: str) -> tuple[Turn, ...]:
    if raw is None:  # a summary without its transcript: every declared turn is missing
        return ()
    if not isinstance(raw, list):
        raise RolloutError(f"{p.name}{where}: the transcript must be a list of turns, not {type(raw).__name__}")
    if len(raw) > MAX_ROLLOUT_TURNS:
        raise RolloutError(f"{p.name}{where}: {len(raw):,} turns is more than the limit of {MAX_ROLLOUT_TURNS:,}")
    turns: list[Turn] = []
    seen: set[int] = set()
    for i, entry in enumerate(raw, 1):
        at = f"{where} turn entry {i}"
        if not isinstance(entry, dict):
            raise RolloutError(f"{p.name}{at}: a turn must be an object, not {type(entry).__name__}")
        number = _int(p, entry.get("turn"), "turn", at)
        if number is None or not 1 <= number <= MAX_ROLLOUT_TURNS:
            raise RolloutError(f"{p.name}{at}: 'turn' must be a turn number from 1 to the limit of "
                               f"{MAX_ROLLOUT_TURNS:,}, not {show(entry.get('turn'))}")
        if number in seen or (turns and number < turns[-1].number):
            raise RolloutError(f"{p.name}{at}: turn {number} is out of order or repeated")
        seen.add(number)
        commands = entry.get("commands_executed")
        if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
            raise RolloutError(f"{p.name}{at}: 'commands_executed' must be a list of strings")
        calls = []
        for c in commands:
            if len(c) > MAX_LINE_CHARS:
                raise RolloutError(f"{p.name}{at}: a command of {len(c):,} characters is past the limit of "
                                   f"{MAX_LINE_CHARS:,}")
            calls.append(split_call(c))
        turns.append(Turn(
            number=number,
            agent_output=_opt_text(p, entry.get("agent_output"), "agent_output", at) or "",
            calls=tuple(calls),
            user_input=_opt_text(p, entry.get("user_input"), "user_input", at),
            prompt_tokens=_int(p, entry.get("prompt_tokens"), "prompt_tokens", at),
            completion_tokens=_int(p, entry.get("completion_tokens"), "completion_tokens", at),
            cost_usd=_num(p, entry.get("cost_usd"), "cost_usd", at),
            sim_time=_opt_text(p, entry.get("sim_time"), "sim_time", at, 64),
            funds_cents=_int(p, entry.get("funds_cents"), "funds_cents", at, signed=True),
        ))
    return tuple(turns)


def _text(p: Path, data: dict, key: str, limit: int, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise RolloutError(f"{p.name}{where}: '{key}' must be a non-empty string of at most {limit:,} characters, "
                           f"not {show(value)}")
    return value


def _opt_text(p: Path, value: Any, key: str, where: str, limit: int = MAX_TURN_TEXT) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise RolloutError(f"{p.name}{where}: '{key}' must be a string of at most {limit:,} characters, not {show(value)}")
    return value


def _int(p: Path, value: Any, key: str, where: str, *, signed: bool = False) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or abs(value) > MAX_INT or (value < 0 and not signed):
        raise RolloutError(f"{p.name}{where}: '{key}' must be a {'' if signed else 'non-negative '}integer, "
                           f"not {show(value)}")
    return value


def _num(p: Path, value: Any, key: str, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e12:
        raise RolloutError(f"{p.name}{where}: '{key}' must be a non-negative number of dollars, not {show(value)}")
    return float(value)


def _reason(p: Path, value: Any, where: str) -> str | None:
    if value is None:
        return None
    if value not in _TERMINAL:
        raise RolloutError(f"{p.name}{where}: terminal_reason {show(value)} is none of {', '.join(_TERMINAL)}")
    return str(value)
