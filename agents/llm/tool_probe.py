"""The pre-flight's tool probe: does the server render the tools into the prompt, or drop them silently?

llama-server given a chat template that declares no tools (a model file's own, without ``--jinja``) drops the
request's tools without a word: the model sees a bare conversation and never calls a command. The pre-flight
sends one tool with a long schema; a server that rendered it reports a prompt longer than the message alone by
about the schema's size, one that dropped it does not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["PROBE_TOOL", "tools_dropped"]

#: The pre-flight's one tool: its schema is long enough (about 120 tokens) that a server which drops it shows.
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "report_status",
        "description": ("Report the current status of the business simulation: funds, active tasks, employees and "
                        "the date. Call it when you need an overview before you decide what to do next; it changes "
                        "nothing in the simulation and costs no time."),
        "parameters": {
            "type": "object",
            "properties": {
                "section": {"type": "string", "enum": ["funds", "tasks", "employees", "all"],
                            "description": "Which part of the status to report; all reports every part."},
                "verbose": {"type": "boolean", "description": "Whether to include details for every item listed."},
            },
            "required": ["section"],
        },
    },
}


def tools_dropped(prompt_tokens: int, ping: Sequence[dict],
                  count: Callable[[Sequence[dict], Sequence[dict] | None], int]) -> int | None:
    """The probe tool's counted size when a server's ``prompt_tokens`` for ``ping`` with it shows it was dropped,
    else ``None`` (rendered, or nothing to tell: no usage reported).

    Tokenizers and chat templates differ by a few tokens on the ping; the schema is far longer, so half of it
    decides.

    >>> tools_dropped(12, [{"role": "user", "content": "hi"}], lambda m, t: 10 + (100 if t else 0))
    100
    >>> tools_dropped(130, [{"role": "user", "content": "hi"}], lambda m, t: 10 + (100 if t else 0))
    """
    if not prompt_tokens:
        return None
    bare = int(count(ping, None))
    tool = int(count(ping, [PROBE_TOOL])) - bare
    return tool if prompt_tokens < bare + tool // 2 else None
