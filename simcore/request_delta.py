"""What a model was sent, stored as a delta on the request before it: the ``sent`` field of ``llm_calls.jsonl``.

A year of an LLM run sends the same history thousands of times, so a chat record does not repeat it. Its
``sent`` object says how to rebuild the request from the one the same conversation sent on the turn before:

- ``v``: the format's version (1);
- ``base``: the turn (same episode) whose request this one builds on; absent on a conversation's first request,
  on a world role's call (each stands alone) and wherever the writer chose to start afresh;
- ``parts``: the request's messages in order: ``[a, b]`` is the base's messages ``a`` to ``b - 1``, a number ``n``
  is the next ``n`` added messages;
- ``added``: the added messages, as a compact JSON array (ASCII, ``","`` and ``":"`` separators), deflated in zlib
  format and base64-encoded. The deflate dictionary is the base's messages as compact JSON, one per line, the
  first (the system prompt, which a new one most resembles) moved last, cut to its last 32 KiB: what a new
  message repeats of the ones before it costs a few bytes;
- ``t_us``: the simulated time of the call;
- ``model``, ``params``, ``tools``, ``scratchpad``, ``memory``: present when they differ from the base's (always
  without a base): the model and sampling parameters, the tool schemas, the world's scratchpad and the memory
  modules' state (``{"modules", "notes", "recalls"}``) at the call; ``null`` is "none".

A rebuilt request is checked against the record's ``request`` hash (:mod:`bizsim.simcore.digests`).
:func:`encode` and :func:`decode` are the two sides; neither needs the harness.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Sequence
from typing import Any

import attrs

from .digests import canonical_digest, message_digest, request_digest
from .errors import ConfigError
from .untrusted_json import loads_untrusted

__all__ = ["FORMAT", "MAX_ADDED_BYTES", "MAX_REQUEST_MESSAGES", "Sent", "decode", "encode"]

#: The version of the ``sent`` object this module writes and reads.
FORMAT = 1
#: The most bytes one record's added messages may inflate to (a hostile record could inflate a thousandfold).
MAX_ADDED_BYTES = 64 * 2**20
#: The most messages one rebuilt request may hold.
MAX_REQUEST_MESSAGES = 100_000
_DICT_BYTES = 32 * 1024
#: Carried from the base unless the record names them.
_CARRIED = ("model", "params", "tools", "scratchpad", "memory")


@attrs.define
class Sent:
    """One request as sent: its messages (with their digests and compact JSON texts) and what came with them."""

    messages: list[dict[str, Any]]
    digests: list[str]
    texts: list[bytes]
    model: Any = None
    params: Any = None
    tools: Any = None
    tools_digest: str = ""
    scratchpad: Any = None
    memory: Any = None
    t_us: int | None = None
    #: The request's hash once computed, handed on to a request that repeats this one exactly (a crafted log can
    #: name 100,000 messages again on every line: hashing each again took most of verify's time).
    digest: str | None = attrs.field(default=None, eq=False, repr=False)

    def request_digest(self) -> str:
        """The hash naming this request, as the harness computed it."""
        if self.digest is None:
            self.digest = request_digest(self.model, self.params, self.tools_digest, self.digests)
        return self.digest


def _text(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode("ascii")


def _dictionary(base: Sent) -> bytes:
    """The deflate dictionary a delta on ``base`` is compressed with (see the module docstring)."""
    texts = base.texts
    if not texts:
        return b""
    picked = [texts[0]]
    size = len(texts[0])
    for t in reversed(texts[1:]):  # only the last 32 KiB count: stop once they are covered
        if size >= _DICT_BYTES:
            break
        picked.append(t)
        size += len(t) + 1
    return b"\n".join([*reversed(picked[1:]), picked[0]])[-_DICT_BYTES:]


def encode(
    base: Sent | None, base_turn: int | None, messages: Sequence[dict[str, Any]], digests: Sequence[str], *,
    model: Any, params: Any, tools: Any, tools_digest: str, t_us: int | None,
    scratchpad: Any = None, memory: Any = None,
) -> tuple[dict[str, Any], Sent]:
    """The ``sent`` object of one request, and the request as the next delta's base.

    Args:
        base: the conversation's previous request (``None``: store this one whole).
        base_turn: the turn that sent ``base`` (written as ``base``).
        messages: the request's messages.
        digests: their digests, as hashed into the request.
        model: the model named in the request hash.
        params: the sampling parameters named in the request hash.
        tools: the tool schemas sent.
        tools_digest: their digest, as hashed into the request.
        t_us: the call's simulated time.
        scratchpad: the world's scratchpad at the call (``None``: none).
        memory: the memory modules' state at the call (``None``: none).
    """
    sent: dict[str, Any] = {"v": FORMAT}
    if base is not None:
        sent["base"] = base_turn
    where: dict[str, int] = {}
    if base is not None:
        for i, d in enumerate(base.digests):
            where.setdefault(d, i)
    parts: list[Any] = []
    texts: list[bytes] = []
    added: list[bytes] = []
    run: list[int] | None = None  # the base slice being extended
    for m, d in zip(messages, digests, strict=True):
        if run is not None and base is not None and run[1] < len(base.digests) and base.digests[run[1]] == d:
            texts.append(base.texts[run[1]])
            run[1] += 1
            continue
        j = where.get(d)
        if j is not None and base is not None:
            run = [j, j + 1]
            parts.append(run)
            texts.append(base.texts[j])
            continue
        run = None
        text = _text(m)
        texts.append(text)
        added.append(text)
        if parts and isinstance(parts[-1], int):
            parts[-1] += 1
        else:
            parts.append(1)
    sent["parts"] = parts
    if added:
        dictionary = _dictionary(base) if base is not None else b""
        packer = zlib.compressobj(6, zdict=dictionary) if dictionary else zlib.compressobj(6)
        packed = packer.compress(b"[" + b",".join(added) + b"]") + packer.flush()
        sent["added"] = base64.b64encode(packed).decode("ascii")
    sent["t_us"] = t_us
    now = Sent(list(messages), list(digests), texts, model, params, tools, tools_digest, scratchpad, memory, t_us)
    for name in _CARRIED:
        value = getattr(now, name)
        if base is None or getattr(base, name) != value:
            sent[name] = value
    return sent, now


def decode(base: Sent | None, sent: Any, *, role_digests: bool = False) -> Sent:
    """Rebuild a request from its ``sent`` object and the base it names (``None`` when it names none).

    Args:
        role_digests: hash messages as a world role's calls do (canonical JSON of the whole message).

    Raises:
        ConfigError: the object is not one this format writes, or does not fit its base (a damaged or edited log).
    """
    if not isinstance(sent, dict) or sent.get("v") != FORMAT:
        version = sent.get("v") if isinstance(sent, dict) else type(sent).__name__
        raise ConfigError(f"a sent request of format {version!r} is not one this bizsim reads (format {FORMAT})")
    if ("base" in sent) != (base is not None):
        raise ConfigError("a sent request names a base that is not in the log" if base is None
                          else "a sent request without a base was given one")
    parts = sent.get("parts")
    if not isinstance(parts, list):
        raise ConfigError(f"a sent request's parts must be a list, not {type(parts).__name__}")
    added = _inflate(sent.get("added"), base)
    if len(added) > MAX_REQUEST_MESSAGES:  # before any is hashed: a record may add millions of tiny messages
        raise ConfigError(f"a sent request adds {len(added):,} messages, more than one request may hold "
                          f"({MAX_REQUEST_MESSAGES:,})")
    messages: list[dict[str, Any]] = []
    digests: list[str] = []
    texts: list[bytes] = []
    used = 0
    for part in parts:
        if type(part) is int and 0 < part <= len(added) - used:
            for m in added[used:used + part]:
                messages.append(m)
                digests.append(canonical_digest(m) if role_digests else message_digest(m))
                texts.append(_text(m))
            used += part
        elif (isinstance(part, list) and len(part) == 2 and all(type(x) is int for x in part) and base is not None
              and 0 <= part[0] < part[1] <= len(base.messages)):
            messages.extend(base.messages[part[0]:part[1]])
            digests.extend(base.digests[part[0]:part[1]])
            texts.extend(base.texts[part[0]:part[1]])
        else:
            raise ConfigError(f"a sent request's part {str(part)[:40]!r} is neither a slice of its base's messages "
                              f"nor a count of the {len(added) - used} added messages left")
        if len(messages) > MAX_REQUEST_MESSAGES:
            raise ConfigError(f"a sent request holds more than {MAX_REQUEST_MESSAGES:,} messages")
    if used != len(added):
        raise ConfigError(f"a sent request adds {len(added)} messages but its parts place {used}")
    t_us = sent.get("t_us")
    out = Sent(messages, digests, texts, t_us=t_us if type(t_us) is int else None)
    for name in _CARRIED:
        value = sent[name] if name in sent else (getattr(base, name) if base is not None else None)
        setattr(out, name, value)
    if "tools" in sent or base is None:
        out.tools_digest = canonical_digest(out.tools)
    else:
        out.tools_digest = base.tools_digest
    if (base is not None and base.digest is not None and out.digests == base.digests and out.model == base.model
            and out.params == base.params and out.tools_digest == base.tools_digest):
        out.digest = base.digest  # the same request: the same hash, by definition
    return out


def _inflate(added: Any, base: Sent | None) -> list[dict[str, Any]]:
    """The added messages of a record, inflated no further than :data:`MAX_ADDED_BYTES`."""
    if added is None:
        return []
    if not isinstance(added, str):
        raise ConfigError(f"a sent request's added messages must be base64 text, not {type(added).__name__}")
    try:
        packed = base64.b64decode(added, validate=True)
        dictionary = _dictionary(base) if base is not None else b""
        unpacker = zlib.decompressobj(zdict=dictionary) if dictionary else zlib.decompressobj()
        text = unpacker.decompress(packed, MAX_ADDED_BYTES)
        if unpacker.unconsumed_tail:
            raise ConfigError(f"a sent request's added messages inflate past {MAX_ADDED_BYTES:,} bytes")
        if not unpacker.eof:
            raise zlib.error("the compressed data ends early")
        # Each message holds one "role" key (a quote inside a string is escaped): far more of them than a request
        # may hold is refused before millions of tiny messages are parsed (64 MiB of them took a GB).
        if text.count(b'"role"') > 2 * MAX_REQUEST_MESSAGES:
            raise ConfigError(f"a sent request adds more messages than one request may hold ({MAX_REQUEST_MESSAGES:,})")
        data = loads_untrusted(text.decode("ascii"))
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError) as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"a sent request's added messages cannot be read ({type(exc).__name__}: {str(exc)[:200]})"
                          " : the log was damaged, or the record names the wrong base") from None
    if not isinstance(data, list) or not all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in data):
        raise ConfigError("a sent request's added messages must be a JSON array of messages with a role")
    return data
