"""Set-up errors in one line of ours, found before litellm is imported (importing it takes seconds).

A missing key variable, a missing ``llm`` extra, a provider litellm does not
know, a key-less ``openai/`` model pointed at a local server, an address where
nothing listens: each is named here with its fix, instead of in litellm's words
after its import.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import socket
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from bizsim.simcore.errors import ConfigError

__all__ = ["KEY_VARIABLES", "check_endpoint", "check_provider", "check_setup", "known_providers"]

#: The variables litellm reads a provider's key from, by the provider prefix of a model name. Providers not listed
#: (``hosted_vllm``, ``ollama``, ``bedrock``, ``vertex_ai``, ...) need no key or take other credentials.
KEY_VARIABLES: Mapping[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY", "OR_API_KEY"),
    "groq": ("GROQ_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "moonshot": ("MOONSHOT_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY", "TOGETHER_AI_TOKEN"),
    "fireworks_ai": ("FIREWORKS_API_KEY", "FIREWORKS_AI_API_KEY"),
    "cohere": ("COHERE_API_KEY",),
}

# How long the endpoint check waits for a TCP connection: a local server answers in microseconds.
_CONNECT_TIMEOUT_S = 2.0


def check_setup(model: str, *, api_base: str | None = None, api_key_env: str | None = None,
                api_key: str | None = None, provider_key: bool = True) -> None:
    """Raise :class:`ConfigError` naming what is missing to call ``model``, without importing litellm.

    ``provider_key=False`` leaves out the provider's usual variable (an agent built now may be run once it is
    set); a variable named with ``api_key_env`` must be set either way.

    >>> try:
    ...     check_setup("openai/gpt-4o-mini", api_key_env="BIZSIM_UNSET_VAR")
    ... except ConfigError as exc:
    ...     print(str(exc).split(":")[0])
    BIZSIM_UNSET_VAR is not set
    """
    if api_key_env is not None and not api_key:
        if not os.environ.get(api_key_env):
            raise ConfigError(
                f"{api_key_env} is not set: --api-key-env (api_key_env) names the environment variable holding the "
                f"key; export {api_key_env}=... first, or for a local server that needs no key drop --api-key-env "
                "and use a hosted_vllm/MODEL model name"
            )
    if importlib.util.find_spec("litellm") is None:
        from bizsim.simcore.extras import install_hint

        raise ConfigError(f"the LLM agent needs litellm, which is not installed: {install_hint('llm')}")
    check_provider(model, api_base)
    if api_key or api_key_env is not None or not provider_key:
        return
    provider, _, name = model.partition("/")
    variables = KEY_VARIABLES.get(provider) if name else None
    if not variables or any(os.environ.get(v) for v in variables):
        return
    if provider == "openai" and api_base:
        raise ConfigError(
            f"model {model!r} needs an API key even at a local server ({api_base}): litellm's openai/ client refuses "
            f"to call without one. For a server that needs no key (vLLM, llama.cpp) use --model hosted_vllm/{name}; "
            "for one that does, name its variable with --api-key-env VAR"
        )
    raise ConfigError(
        f"model {model!r} needs an API key and {' or '.join(variables)} is not set: export {variables[0]}=..., "
        "or name the variable holding it with --api-key-env VAR"
    )


def check_provider(model: str, api_base: str | None = None) -> None:
    """Raise :class:`ConfigError` when ``model``'s ``PROVIDER/`` prefix names no provider litellm knows.

    Read from the installed litellm's files, not its import. Only a sure answer refuses: a name without a
    prefix, one litellm's price map lists (litellm places some such names by their model), one at a remote
    ``api_base`` (litellm places some providers by their address), or a litellm whose files do not read as
    expected are left to litellm's own check.
    """
    prefix, slash, name = model.partition("/")
    if not slash or not prefix:
        return
    known = known_providers()
    if known is None or prefix in known or model in _priced_models():
        return
    try:
        host = (urlsplit(api_base).hostname or "") if api_base else ""
    except ValueError:  # not a URL: the endpoint check names that
        host = ""
    if api_base and host not in ("localhost", "::1") and not host.startswith("127."):
        return
    raise ConfigError(
        f"model(={model!r}) names no provider litellm knows: write PROVIDER/MODEL, e.g. openai/{name} or "
        f"anthropic/{name}, or hosted_vllm/{name} with --api-base for a local vLLM or llama.cpp server"
    )


@functools.cache
def known_providers() -> frozenset[str] | None:
    """The provider prefixes the installed litellm knows (its ``LlmProviders`` and its JSON-configured providers),
    read from its source without importing it; ``None`` when that cannot be read (litellm then decides)."""
    root = _litellm_root()
    if root is None:
        return None
    try:
        source = (root / "types" / "utils.py").read_text(encoding="utf-8")
    except OSError:
        return None
    block = re.search(r"^class LlmProviders\(.*?\):\n(.*?)(?=^\S)", source, re.M | re.S)
    names = set(re.findall(r'^\s+[A-Z0-9_]+\s*=\s*"([^"]+)"', block.group(1), re.M)) if block else set()
    if len(names) < 10:  # a layout this reader does not know: leave the answer to litellm
        return None
    try:
        names |= set(json.loads((root / "llms" / "openai_like" / "providers.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        pass
    return frozenset(names)


@functools.cache
def _priced_models() -> frozenset[str]:
    """The model names in litellm's bundled price map (it places some names without a provider prefix by these)."""
    root = _litellm_root()
    if root is None:
        return frozenset()
    try:
        data = json.loads((root / "model_prices_and_context_window_backup.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return frozenset()
    return frozenset(data) if isinstance(data, dict) else frozenset()


def _litellm_root() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]) if locations else None


def check_endpoint(api_base: str | None) -> None:
    """Raise :class:`ConfigError` when nothing accepts a connection at ``api_base`` (one TCP connect, no request).

    ``None`` (the provider's own address) is not checked: the pre-flight call does that.
    """
    if not api_base:
        return
    try:
        parts = urlsplit(api_base)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        host, port = None, 0
    if not host or parts.scheme not in ("http", "https"):
        raise ConfigError(f"api_base(={api_base!r}) must be an http(s) URL, e.g. http://127.0.0.1:8000/v1")
    try:
        with socket.create_connection((host, port), timeout=_CONNECT_TIMEOUT_S):
            pass
    except ConnectionRefusedError:
        raise ConfigError(
            f"nothing accepts connections at {api_base} (connection refused): start the model server there, or fix "
            "--api-base"
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"cannot reach {api_base} ({exc.strerror or type(exc).__name__}): check --api-base and the network"
        ) from None
