"""Names of figures in words, and money in dollars: shared by the viewer and the report."""

from __future__ import annotations

import math

__all__ = ["ASKED_STOPS", "CAP_STOPS", "FINAL_STOPS", "FAILED_COLOR", "KIND_COLORS", "KIND_FALLBACK_COLORS", "KIND_WORDS", "dollars", "ending_words", "human_number", "is_money", "kind_color",
           "kind_key", "kind_words", "stop_name", "stopped_early", "words"]

_PREFIXES = {"final_": "final ", "mean_": "mean ", "horizon_": "", "daily_": "daily ", "month_end_": "month-end ",
             "month_": "monthly "}
_ABBREVIATIONS = {"dau": "daily active users", "llm": "model", "usd": "dollars", "ci": "confidence interval"}


def is_money(name: object) -> bool:
    """Whether a figure's name says it is in cents (``*_cents``) or dollars (``*_usd``)."""
    return isinstance(name, str) and name.endswith(("_cents", "_usd"))


def words(name: str) -> str:
    """A figure's name as words, its money unit named: ``month_end_funds_cents`` -> ``Month-end funds (dollars)``.

    >>> words("month_end_funds_cents"), words("mean_dau"), words("llm_cost_usd"), words("daily_dau")
    ('Month-end funds (dollars)', 'Mean daily active users', 'Model cost (dollars)', 'Daily active users')
    """
    text = str(name)
    unit = ""
    for suffix in ("_cents", "_usd"):
        if text.endswith(suffix):
            text, unit = text[: -len(suffix)], " (dollars)"
    for prefix, said in _PREFIXES.items():
        if text.startswith(prefix) and len(text) > len(prefix):
            text = said + text[len(prefix):]
            break
    parts = [_ABBREVIATIONS.get(p, p) for p in text.replace("-", " - ").replace("_", " ").split(" ")]
    text = " ".join(parts).replace(" - ", "-").replace("daily daily ", "daily ").strip() or str(name)
    return text[0].upper() + text[1:] + unit


def human_number(x: float | int | None, digits: int = 3) -> str:
    """A number as a person writes it: thousands separated, no exponent, tiny values as 0.

    >>> human_number(2.776e-17), human_number(1234567.891), human_number(0.0421), human_number(None)
    ('0', '1,234,568', '0.0421', '')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, bool):
        return str(x)
    v = float(x)
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if abs(v) < 1e-9:
        return "0"
    if abs(v) >= 1000 or float(v).is_integer():
        return f"{v:,.0f}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(v))))
    return f"{v:,.{min(decimals, 6)}f}".rstrip("0").rstrip(".") if decimals else f"{v:,.0f}"


def dollars(cents: float | int | None) -> str:
    """Cents as dollars with a sign and separators: ``-123456`` -> ``-$1,234.56``.

    >>> dollars(42029521), dollars(-50), dollars(None)
    ('$420,295.21', '-$0.50', '')
    """
    if cents is None or (isinstance(cents, float) and math.isnan(cents)):
        return ""
    v = float(cents) / 100
    sign = "-" if v < 0 else ""
    return f"{sign}${abs(v):,.2f}"


#: One colour per kind of event or command, whichever page or figure draws it (the run viewer's marks and legends,
#: the two-run and Inspect pages, the report's actions-over-time figures). Kinds are keyed as :func:`kind_key`
#: writes them. Within one world every two kinds, the failures' dark grey and the viewer's run colours (blue
#: #2457c5, red #d1495b) are at least 15 apart in CIEDE2000 (clearly different side by side; tests/test_viewer.py
#: checks every kind of every world); across worlds the same role (the main decision) may share a colour. The
#: startup worlds' set was picked by maximising the smallest difference, then handed out: strong colours to what
#: happens and what the agent decides, pale ones to what it only reads.
KIND_COLORS: dict[str, str] = {
    # the end of a run, any world
    "horizon end": "#444466", "episode end": "#663344", "help": "#ccccbb",
    # an arena: a rival took a market task (startup-arena; far from every startup kind)
    "market task taken": "#000044",
    # startup (both versions): the world's events
    "task completed": "#5c8001", "task half": "#b08900", "monthly payroll": "#7b4fb5",
    # startup-v2: the labour market's and the disruptions' events; signal truth is the record behind its words
    "employee started": "#33aa55", "employee ramp": "#88ddbb", "employee resigned": "#ff55dd",
    "late payment": "#cccc00", "market downturn": "#990011", "client collapsed": "#884400",
    "disruption warning": "#ff6600", "signal truth": "#bbccdd",
    # startup: the agent's decisions (hues far apart: the report stacks them in one figure)
    "task accept": "#2a9d8f", "task cancel": "#dd2200", "task assign": "#ffbb77", "task dispatch": "#227788",
    "task assign-all": "#aa7755", "employee hire": "#2200dd", "employee fire": "#cc00ff",
    # startup: what the agent reads and notes
    "sim resume": "#777777", "company status": "#999966", "market browse": "#005544", "task inspect": "#66ddee",
    "task list": "#bb0077", "employee list": "#ddccff", "client list": "#ffaaaa", "client history": "#997799",
    "finance ledger": "#555533", "report monthly": "#33aaff", "scratchpad read": "#9988ff",
    "scratchpad write": "#005500", "scratchpad append": "#557755", "scratchpad clear": "#bbaaaa",
    "employee candidates": "#bbdd88", "sim init": "#00ee44",
    # vending
    "order place": "#2a9d8f", "price set": "#e9a03b", "deliveries": "#5c8001", "sales": "#7b4fb5",
    "products research": "#884400", "price query": "#33aaff", "task done": "#9aa5b1",
    # freelance
    "solution submit": "#2a9d8f", "energy restore": "#e9a03b", "tasks browse": "#884400", "tasks discover": "#8d6a9f",
    # operation
    "acquisition boost": "#2a9d8f", "engagement tune": "#e9a03b", "creator incentive": "#7b4fb5",
    "moderation tighten": "#884400",
}
#: Every failed attempt is drawn dark, whatever its kind: failures are what a reader looks for.
FAILED_COLOR = "#222222"
#: A kind the table does not know (a third-party world's) takes one of these, picked by a hash of its key, so it
#: too keeps its colour from page to page. The viewer's script computes the same hash (view.js, ``colorOf``).
KIND_FALLBACK_COLORS: tuple[str, ...] = (
    "#1b998b", "#8d6a9f", "#b08900", "#577590", "#c8553d", "#5c8001", "#6a4c93", "#f28f3b", "#4d908e", "#9c6644",
    "#277da1", "#b5838d",
)


def kind_key(name: str) -> str:
    """A kind of event or command as the colour table keys it: words, lower case, no failure suffix.

    >>> kind_key("task_completed (failed)"), kind_key("Task accept")
    ('task completed', 'task accept')
    """
    text = str(name).replace("_", " ").strip().lower()
    if text.endswith(" (failed)"):
        text = text[: -len(" (failed)")].rstrip()
    return text


def _fnv1a(text: str) -> int:
    h = 0x811C9DC5
    for ch in text:
        h = ((h ^ ord(ch)) * 0x01000193) & 0xFFFFFFFF
    return h


def kind_color(name: str) -> str:
    """The colour of a kind of event or command everywhere bizsim draws one (see :data:`KIND_COLORS`).

    >>> kind_color("task accept") == kind_color("task_accept") == KIND_COLORS["task accept"]
    True
    >>> kind_color("task_completed (failed)")
    '#222222'
    >>> kind_color("my_world_event") == kind_color("my world event") in KIND_FALLBACK_COLORS
    True
    """
    if str(name).rstrip().endswith("(failed)"):
        return FAILED_COLOR
    key = kind_key(name)
    return KIND_COLORS.get(key) or KIND_FALLBACK_COLORS[_fnv1a(key) % len(KIND_FALLBACK_COLORS)]


#: Kinds whose recorded name does not say what happened, in words (keys as :func:`kind_key` writes them).
KIND_WORDS: dict[str, str] = {
    # the startup world's progress checkpoint: a task's work reached a milestone (YC-Bench's name for it)
    "task half": "task milestone",
}


def kind_words(name: str) -> str:
    """A kind of event or command in words, as the viewer's legends and marks name it.

    >>> kind_words("task_half"), kind_words("task_completed (failed)")
    ('task milestone', 'task completed (failed)')
    """
    text = str(name).replace("_", " ").strip()
    failed = text.endswith("(failed)")
    said = KIND_WORDS.get(kind_key(text))
    if said is None:
        return text
    return said + (" (failed)" if failed else "")


#: Stops by a limit the run was given: the run is complete up to it, and resuming replays it to the same stop.
CAP_STOPS: dict[str, str] = {
    "max_turns": "its turn cap (max_turns)",
    "max_cost_usd": "its spending cap (max_cost_usd)",
    "max_tokens_total": "its token cap (max_tokens_total)",
    "stalled": "the stall guard: simulated time did not move for max_stalled_turns turns",
}
_OTHER_STOPS = {
    "api_error": "the model's API failing",
    "api_failures": "the model's API failing again and again",
    "context_window": "the model's context window: the next prompt would not fit",
}
#: The stops the user asked for: a run that reaches one ran as told (``bizsim run`` exits 0).
ASKED_STOPS = ("max_turns", "max_cost_usd", "max_tokens_total")
#: Stops after which the same run cannot get further with the same model and settings (a resume would replay it to
#: the same place): the stall guard, a prompt past the model's context window.
FINAL_STOPS = ("stalled", "context_window")
# Endings before the world's own end, as records and the viewer's statuses name them.
_EARLY = frozenset({"bankruptcy", "bankrupt", "collapsed", "error", "agent_stalled", "agent_stopped"})


def stopped_early(reason: object) -> bool:
    """Whether a run that ended this way (its ``terminal_reason``) ended before its world's end: bankrupt,
    collapsed, or stopped by a cap, a guard or its model's API (``error``); what a table's "ended early" counts.

    >>> stopped_early("horizon_end"), stopped_early("bankruptcy"), stopped_early("error")
    (False, True, True)
    """
    return isinstance(reason, str) and reason in _EARLY


#: Short names of the stops, for a table's cell or a group's name.
_STOP_NAMES = {
    "max_turns": "turn cap", "max_cost_usd": "spending cap", "max_tokens_total": "token cap", "stalled": "stall guard",
    "context_window": "context window", "api_error": "API error", "api_failures": "API failures",
}


def stop_name(reason: object, detail: object = None) -> str | None:
    """What stopped a run before its world ended it, in two or three words (``None`` for a run the world ended:
    horizon, bankruptcy, collapse). Tables mark and group stopped runs by it, so that no mean over full runs
    takes in a run cut short.

    >>> stop_name("error", "max_turns"), stop_name("error", "api_failures"), stop_name("bankruptcy", "x")
    ('stopped: turn cap', 'stopped: API failures', None)
    >>> stop_name("agent_stopped")
    'stopped: agent stopped'
    """
    reason = reason if isinstance(reason, str) else ""  # a table's missing cell (NaN, pandas' NA) says nothing
    detail = detail if isinstance(detail, str) and detail else "error"
    if reason == "error":
        said = _STOP_NAMES.get(detail, detail.replace("_", " "))
    elif reason in ("agent_stalled", "agent_stopped"):
        said = reason.replace("_", " ")
    else:
        return None
    return f"stopped: {said[:60]}"


def ending_words(reason: str | None, detail: str | None = None) -> str:
    """How a run ended, in words a reader will not misread: a stop by a cap is not a failure.

    An arena seat whose agent stopped by its cap while rivals played on is retired, not ended: its company ran
    on to the arena's end, which ``reason`` names, and ``detail`` says why its agent stopped.

    >>> ending_words("horizon_end"), ending_words("error", "max_turns"), ending_words("error", "api_error")
    ('horizon end', 'stopped by its turn cap (max_turns), as asked', "stopped by the model's API failing")
    >>> ending_words("horizon_end", "max_turns")
    'horizon end (its agent stopped by its turn cap (max_turns); the company ran on)'
    """
    if reason not in (None, "error", "agent_stopped") and detail in CAP_STOPS:
        return f"{str(reason).replace('_', ' ')} (its agent stopped by {CAP_STOPS[detail]}; the company ran on)"
    if reason == "error" and detail in CAP_STOPS:
        return f"stopped by {CAP_STOPS[detail]}" + (", as asked" if detail != "stalled" else "")
    if reason == "error" and detail:
        return f"stopped by {_OTHER_STOPS.get(detail, str(detail).replace('_', ' '))}"
    return str(reason or "").replace("_", " ")
