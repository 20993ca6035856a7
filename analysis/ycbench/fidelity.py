"""The fidelity report of an import: what the reference run recorded against what bizsim's replay gave.

Compared: turns, terminal reason, final funds, task successes and failures,
the funds and time each turn began with, and every command's result (the
first 500 characters the rollout keeps, ids masked). The first command whose
result differs is shown with both results. Same-instant task completions
are taken in a random order by the reference (its event ids), so a
difference at or after a resume that completed several tasks at once is
flagged as possibly explained by that order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from bizsim.analysis.ycbench.rollout import RESULT_CHARS, Rollout, Turn

__all__ = ["fidelity_report", "format_report", "recorded_outcome"]

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME = re.compile(r"(?i)current[ _]time\**:\**\s*([0-9T:.\-]+)")
# Bounded digit runs: a hostile rollout's 5,000-digit number must not reach int() (which refuses it with a
# ValueError, not a RolloutError).
_FUNDS = re.compile(r"(?i)funds\**:\**\s*(-?)\$(-?)([\d,]{1,40}\.\d\d)(?:\s*\((-?\d{1,30}) cents\))?")
_DELTA = re.compile(r'\\"balance_delta\\": (-?\d{1,30})')
_DONE = re.compile(r'\\"type\\": \\"task_completed\\".{0,400}?\\"success\\": (true|false)', re.S)
_RESUME = "yc-bench sim resume"
_SAID = re.compile(r"^- .*: (SUCCESS|FAILED)\b", re.M)


def _header(text: str | None) -> tuple[str | None, int | None]:
    """``(time, funds in cents)`` a turn's status message shows."""
    if not text:
        return None, None
    t = _TIME.search(text)
    f = _FUNDS.search(text)
    funds = None
    if f:
        if f.group(4) is not None:
            funds = int(f.group(4))
        else:
            cents = int(f.group(3).replace(",", "").replace(".", ""))
            funds = -cents if (f.group(1) or f.group(2)) else cents
    return (t.group(1) if t else None), funds


_USAGE = '{"ok": false, "exit_code": 2, "stdout": "", "stderr": '
#: Lists the reference reads from its database in no fixed order (its rows hang on random ids): not compared.
_UNORDERED = re.compile(r'(\\"(?:total_assigned|assigned_employees|newly_assigned|active_tasks|assignments)\\": \[)'
                        r"[^\]]*(\]|$)")


def _mask(text: str) -> str:
    """A result as compared: ids masked; a usage error (exit 2) compared by its exit code alone, since bizsim
    words the command-line parser's usage text its own way (a documented difference of preset ``reference``)."""
    if text.startswith(_USAGE):
        return _USAGE
    return _UNORDERED.sub(r"\1<unordered>\2", _UUID.sub("<id>", text))


def _outcomes(texts: Sequence[str]) -> tuple[int, int]:
    ok = bad = 0
    for text in texts:
        for m in _DONE.finditer(text):
            ok, bad = (ok + 1, bad) if m.group(1) == "true" else (ok, bad + 1)
    return ok, bad


def recorded_outcome(rollout: Rollout) -> dict[str, Any]:
    """The outcome the rollout records (or lets one derive), with where each figure comes from."""
    turns = [t for e in rollout.episodes for t in e.turns]
    texts = [c.recorded or "" for t in turns for c in t.calls if c.command.startswith(_RESUME)]
    clipped = sum(1 for t in turns for c in t.calls if c.recorded is not None and len(c.recorded) >= RESULT_CHARS)
    ok, bad = _outcomes(texts)
    said = [m.group(1) for t in turns for m in _SAID.finditer(t.user_input or "")]
    ok, bad = max(ok, said.count("SUCCESS")), max(bad, said.count("FAILED"))
    final, source = None, "not recorded"
    last = turns[-1] if turns else None
    if last is not None and last.funds_cents is not None:
        final, source = last.funds_cents, "the transcript's funds after the last turn"
    elif last is not None:
        _, start = _header(last.user_input)
        deltas = [int(m.group(1)) for c in last.calls if c.command.startswith(_RESUME)
                  for m in [_DELTA.search(c.recorded or "")] if m]
        if start is not None and (deltas or not any(c.command.startswith(_RESUME) for c in last.calls)):
            final = start + sum(deltas)
            source = "funds at the start of the last turn plus its resumes' balance_delta"
    counted = (f"the {len(texts)} recorded resume results and the event lines of the turn messages "
               f"({clipped} command results are cut at {RESULT_CHARS} characters: lower bounds)")
    month_end, month_note = None, "the rollout records funds only at turn starts, not at month ends"
    if rollout.funds_series:  # later versions record every change of funds (last episode)
        final, source = rollout.funds_series[-1][1], "the recorded funds series (time_series.funds)"
        month_end = _month_ends(rollout.funds_series)
        month_note = "from the recorded funds series"
    if rollout.task_statuses is not None:
        ok = rollout.task_statuses.count("completed_success")
        bad = rollout.task_statuses.count("completed_fail")
        counted = "the recorded task list (time_series.tasks): exact"
    return {
        "turns": len(turns), "episodes": len(rollout.episodes), "terminal_reason": rollout.terminal_reason,
        "final_funds_cents": final, "final_funds_source": source,
        "tasks_succeeded": ok, "tasks_failed": bad, "tasks_counted_from": counted,
        "month_end_funds_cents": month_end, "month_end_note": month_note,
    }


def _month_ends(series: Sequence[tuple[str, int]]) -> dict[str, int]:
    """Funds at the end of each month the series spans (the last value recorded in it, or the month before's)."""
    out: dict[str, int] = {}
    for time, cents in series:
        out[time[:7]] = cents
    months = sorted(out)
    if not months:
        return out
    year, month = map(int, months[0].split("-"))
    last = out[months[0]]
    filled: dict[str, int] = {}
    while f"{year:04d}-{month:02d}" <= months[-1]:
        key = f"{year:04d}-{month:02d}"
        last = out.get(key, last)
        filled[key] = last
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return filled


def fidelity_report(rollout: Rollout, served: Sequence[tuple[int, Turn, str, list[str | None] | None]],
                    result: dict[str, Any], unused: dict[int, int], world_note: str | None) -> dict[str, Any]:
    """Compare a rollout with its replay (``served``: what the replay client saw per call)."""
    recorded = recorded_outcome(rollout)
    replay = {
        "turns": len(served), "episodes": len(result.get("episodes") or [result]),
        "terminal_reason": result.get("terminal_reason"), "terminal_detail": result.get("terminal_detail"),
        "final_funds_cents": result.get("final_funds_cents"),
        "tasks_succeeded": result.get("tasks_succeeded"), "tasks_failed": result.get("tasks_failed"),
        "month_end_funds_cents": result.get("month_end_funds_cents"),
    }
    first_status = None
    for ep, turn, user, _ in served:
        want, got = _header(turn.user_input), _header(user)
        if turn.user_input is not None and want != got:
            first_status = {"episode": ep, "turn": turn.number, "recorded": {"time": want[0], "funds_cents": want[1]},
                            "replayed": {"time": got[0], "funds_cents": got[1]}}
            break
    diffs, ties = _differences(served)
    first = diffs[0] if diffs else None
    funds_match = recorded["final_funds_cents"] is not None and recorded["final_funds_cents"] == replay["final_funds_cents"]
    months = recorded["month_end_funds_cents"]
    replayed_months = replay["month_end_funds_cents"] if isinstance(replay["month_end_funds_cents"], dict) else {}
    month_match = None if months is None else months == {k: v for k, v in replayed_months.items() if k in months}
    report = {
        "source": rollout.source, "model": rollout.model, "seed": rollout.seed,
        "config": rollout.config or ("(the recorded settings)" if rollout.recorded_config else None),
        "world_note": world_note, "recorded": recorded, "replay": replay,
        "final_funds_match": funds_match if recorded["final_funds_cents"] is not None else None,
        "month_end_funds_match": month_match,
        "tasks_match": (None if rollout.task_statuses is None else
                        (recorded["tasks_succeeded"], recorded["tasks_failed"]) == (replay["tasks_succeeded"],
                                                                                   replay["tasks_failed"])),
        "first_status_difference": first_status, "first_command_difference": first,
        "unused_recorded_turns": {str(k): v for k, v in unused.items()},
        "same_instant_completions_before_difference": ties,
        "differing_commands": len(diffs), "differing_commands_not_explained_by_ties": sum(not d["tie"] for d in diffs),
        "differences": diffs[:20],
    }
    report["verdict"] = _verdict(report)
    return report


def _differences(served: Sequence[tuple[int, Turn, str, list[str | None] | None]]) -> tuple[list[dict], list[dict]]:
    """Every command whose recorded result differs from the replay's, and the replay's ties before the first.

    A difference is flagged ``tie`` when the order of same-instant completions can explain it: it is a resume
    that completed several tasks at once, or it names a task of the last such resume.
    """
    ties: list[dict] = []
    diffs: list[dict] = []
    last_tie: list[str] = []
    for ep, turn, _, texts in served:
        for i, call in enumerate(turn.calls):
            ours = texts[i] if texts is not None and i < len(texts) else None
            tied_here = False
            if ours is not None and call.command.startswith(_RESUME):
                done = _completions(ours)
                if len(done) >= 2:
                    tied_here, last_tie = True, done
                    if not diffs:
                        ties.append({"episode": ep, "turn": turn.number, "tasks": done})
            if call.recorded is None or ours is None or _mask(call.recorded) == _mask(ours[:RESULT_CHARS]):
                continue
            mine = ours[:RESULT_CHARS]
            tie = tied_here or any(t in call.recorded or t in mine for t in last_tie)
            diffs.append({"episode": ep, "turn": turn.number, "call": i + 1, "command": call.command,
                          "recorded": call.recorded, "replayed": mine, "tie": tie})
    return diffs, ties


def _completions(text: str) -> list[str]:
    """Titles (or ids) of the tasks one replayed resume completed."""
    try:
        stdout = json.loads(json.loads(text)["stdout"])
        events = stdout.get("wake_events") or []
    except (ValueError, KeyError, TypeError, AttributeError):
        return []
    return [str(e.get("task_title") or e.get("task_id")) for e in events
            if isinstance(e, dict) and e.get("type") == "task_completed"]


def _verdict(report: dict[str, Any]) -> str:
    if not report["recorded"]["turns"]:
        return (f"nothing to compare: the rollout has no turns (the reference run ended with "
                f"{report['recorded']['terminal_reason']!r} before its first turn completed)")
    if report["world_note"]:
        return "different world: " + report["world_note"]
    first = report["first_command_difference"]
    if first is None and (report["final_funds_match"] is not False and report["month_end_funds_match"] is not False
                          and report["tasks_match"] is not False and not report["unused_recorded_turns"]):
        return "match: every recorded result, the final funds and what else the rollout records agree"
    outcome_ok = (report["final_funds_match"] is not False and report["month_end_funds_match"] is not False
                  and report["tasks_match"] is not False and not report["unused_recorded_turns"])
    if first is not None and first["tie"]:
        if not report["differing_commands_not_explained_by_ties"] and outcome_ok:
            return (f"tie: {report['differing_commands']} recorded results differ, only in the order of task "
                    "completions at one instant (the reference takes them in random order); everything else agrees")
        return (f"tie: the runs part at task completions at one instant (turn {first['turn']}); the reference takes "
                "them in random order")
    return "differs: see the first difference"


def format_report(report: dict[str, Any]) -> str:
    """The report as a few lines of text."""
    rec, rep = report["recorded"], report["replay"]
    lines = [
        f"{report['source']}  (model {report['model']}, config {report['config']}, seed {report['seed']})",
        f"  verdict: {report['verdict']}",
        f"  turns: recorded {rec['turns']}, replayed {rep['turns']}",
        f"  terminal reason: recorded {rec['terminal_reason']}, replayed {rep['terminal_reason']}",
        f"  final funds (cents): recorded {rec['final_funds_cents']} ({rec['final_funds_source']}), "
        f"replayed {rep['final_funds_cents']}; match: {report['final_funds_match']}",
        f"  tasks succeeded/failed: recorded {rec['tasks_succeeded']}/{rec['tasks_failed']} (from "
        f"{rec['tasks_counted_from']}), replayed {rep['tasks_succeeded']}/{rep['tasks_failed']}",
        f"  month-end funds: recorded {rec['month_end_funds_cents']} ({rec['month_end_note']}), replayed "
        f"{rep['month_end_funds_cents']}; match: {report['month_end_funds_match']}",
    ]
    status = report["first_status_difference"]
    if status:
        lines.append(f"  first turn whose status differs: turn {status['turn']}: recorded {status['recorded']}, "
                     f"replayed {status['replayed']}")
    first = report["first_command_difference"]
    if first:
        lines += [f"  first differing command: turn {first['turn']} call {first['call']}: {first['command'][:200]}",
                  f"    recorded: {first['recorded'][:300]}", f"    replayed: {first['replayed'][:300]}"]
    if report["differing_commands"] > 1:
        lines.append(f"  recorded results that differ: {report['differing_commands']} "
                     f"({report['differing_commands_not_explained_by_ties']} not explained by ties)")
    if report["unused_recorded_turns"]:
        lines.append(f"  recorded turns the replay never reached (by episode): {report['unused_recorded_turns']}")
    return "\n".join(lines)
