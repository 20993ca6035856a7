"""Set-up errors in one line of ours, found before litellm is imported (importing it takes seconds).

A missing key variable, a missing ``llm`` extra, a key-less ``openai/`` model
pointed at a local server, an address where nothing listens: each is named
here with its fix, instead of in litellm's words after its import.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Mapping
from urllib.parse import urlsplit

from bizsim.simcore.errors import ConfigError

__all__ = ["KEY_VARIABLES", "check_endpoint", "check_setup"]

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
