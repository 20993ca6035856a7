"""Set-up errors of an LLM run: one line of ours, before litellm is imported."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest
from bizsim.agents.llm.setup_check import check_endpoint, check_setup
from bizsim.cli.main import main
from bizsim.simcore.errors import ConfigError

from .llm_server import LoopbackLLMServer, require_litellm


def _cli_in_fresh_process(*args: str, env: dict | None = None) -> tuple[int, str, bool]:
    """Exit code, stderr and whether litellm got imported, for ``bizsim ARGS`` in a fresh interpreter."""
    code = (
        "import sys; from bizsim.cli.main import main; rc = main(sys.argv[1:]); "
        "print('LITELLM_IMPORTED' if 'litellm' in sys.modules else 'NO_LITELLM'); sys.exit(rc)"
    )
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, env=env)
    return done.returncode, done.stderr, "LITELLM_IMPORTED" in done.stdout


def test_an_unset_key_variable_is_named_before_litellm_is_imported(tmp_path, monkeypatch):
    """`--api-key-env UNSET_VAR` fails with "UNSET_VAR is not set" in one line, exit 2, litellm never imported,
    and no run directory is left behind."""
    monkeypatch.delenv("BIZSIM_TEST_UNSET_VAR", raising=False)
    rc, err, imported = _cli_in_fresh_process(
        "run", "startup", "--agent", "llm", "--model", "openai/gpt-4o-mini", "--api-key-env", "BIZSIM_TEST_UNSET_VAR",
        "--out", str(tmp_path / "run"),
    )
    assert (2, False) == (rc, imported)
    assert err.startswith("bizsim: error: BIZSIM_TEST_UNSET_VAR is not set") and 1 == len(err.strip().splitlines())
    assert not (tmp_path / "run").exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed when the block ends: nothing listens there


@pytest.mark.parametrize(("flags", "said"), [
    (["--model", "openai/gpt-4o-mini"], "OPENAI_API_KEY is not set"),
    (["--model", "nosuchprovider/x"], "names no provider litellm knows"),
    (["--model", "openai/gpt-4o-mini", "--api-base", "PORT"], "nothing accepts connections at"),
    (["--model", "hosted_vllm/x", "--api-base", "PORT"], "nothing accepts connections at"),
])
def test_a_set_up_mistake_of_bizsim_run_is_named_before_litellm_is_imported(flags, said, tmp_path):
    """A missing provider key, an unknown provider and an address where nothing listens each fail `bizsim run` in
    one line, exit 2, before litellm is imported (its import takes seconds), leaving no run directory."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    if "--api-base" in flags:
        env["OPENAI_API_KEY"] = "sk-test"
        flags = [f"http://127.0.0.1:{_closed_port()}/v1" if f == "PORT" else f for f in flags]
    rc, err, imported = _cli_in_fresh_process("run", "startup", "--agent", "llm", *flags, "--seed", "1",
                                              "--out", str(tmp_path / "run"), env=env)
    assert (2, False) == (rc, imported), err
    assert err.startswith("bizsim: error: ") and said in err and 1 == len(err.strip().splitlines())
    assert not (tmp_path / "run").exists()


def test_a_set_up_mistake_of_bizsim_sweep_is_named_before_litellm_is_imported(tmp_path):
    """`bizsim sweep` of LLM runs: a missing key and an unknown provider fail in one line, exit 2, before litellm
    is imported and before the sweep directory is made."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    for model, said in (("openai/gpt-4o-mini", "OPENAI_API_KEY is not set"), ("nosuchprovider/x", "no provider")):
        rc, err, imported = _cli_in_fresh_process("sweep", "--world", "startup", "--agent", "llm", "--agent-opt",
                                                  f"model={model}", "--out", str(tmp_path / "sweep"), env=env)
        assert (2, False) == (rc, imported), err
        assert said in err and 1 == len(err.strip().splitlines())
        assert not (tmp_path / "sweep").exists()


def test_the_providers_read_from_litellms_files_are_the_ones_it_knows():
    """The provider prefixes read without importing litellm are litellm's own, and the fast check agrees with
    litellm's get_llm_provider on names it places and names it cannot."""
    from bizsim.agents.llm.setup_check import check_provider, known_providers

    litellm = require_litellm()
    from litellm.llms.openai_like.json_loader import JSONProviderRegistry

    JSONProviderRegistry.load()
    listed = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    known = known_providers()
    assert known is not None and listed <= known  # every provider litellm lists
    assert all(JSONProviderRegistry.exists(p) for p in known - listed)  # the rest: its JSON-configured providers
    for model, api_base in [("hosted_vllm/qwen", "http://127.0.0.1:8000/v1"), ("openrouter/a/b", None),
                            ("nosuchprovider/x", None), ("nosuchprovider/x", "http://127.0.0.1:8000/v1"),
                            ("meta-llama/Llama-3.1-8B", None)]:
        try:
            litellm.get_llm_provider(model, api_base=api_base)
            placed = True
        except Exception:  # noqa: BLE001 - litellm's way of saying it cannot place the name
            placed = False
        try:
            check_provider(model, api_base)
            passed = True
        except ConfigError:
            passed = False
        assert placed == passed, model


def test_openai_prefix_without_a_key_at_a_local_server_points_to_hosted_vllm(monkeypatch):
    """An openai/ model at a local address with no key says that openai/ needs one and hosted_vllm/ does not."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"needs an API key even at a local server.*--model hosted_vllm/qwen"):
        check_setup("openai/qwen", api_base="http://127.0.0.1:8000/v1")


def test_a_provider_key_that_is_missing_is_named(monkeypatch):
    """A hosted provider's model with its usual variable unset names that variable and --api-key-env."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"ANTHROPIC_API_KEY is not set: export ANTHROPIC_API_KEY=.*--api-key-env"):
        check_setup("anthropic/claude-sonnet-4-5")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    check_setup("anthropic/claude-sonnet-4-5")
    check_setup("hosted_vllm/qwen", api_base="http://127.0.0.1:8000/v1")  # no key needed


def test_an_endpoint_that_refuses_is_named():
    """A port where nothing listens is named as refusing connections, with the flag to fix."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    with pytest.raises(ConfigError, match=rf"nothing accepts connections at http://127.0.0.1:{port}/v1 .*--api-base"):
        check_endpoint(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ConfigError, match="must be an http"):
        check_endpoint("file:///etc/passwd")


def test_a_model_litellm_cannot_place_is_named(monkeypatch):
    """A model name without a provider litellm knows fails before the run with the PROVIDER/MODEL fix."""
    require_litellm()
    from bizsim.agents.llm import LLMAgent

    with pytest.raises(ConfigError, match=r"names no provider litellm knows.*hosted_vllm/qwen"):
        LLMAgent(model="qwen", api_base="http://127.0.0.1:8000/v1")


def test_hosted_vllm_needs_no_key(tmp_path, monkeypatch):
    """hosted_vllm/MODEL at a key-less local server plays through the CLI with no key anywhere."""
    require_litellm()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with LoopbackLLMServer(lambda m, t: {"content": None, "tool_calls": [
            {"name": "run_command", "arguments": {"command": "yc-bench company status"}}]}) as server:
        rc = main(["run", "startup", "--agent", "llm", "--model", "hosted_vllm/qwen", "--api-base", server.url,
                   "--max-turns", "2", "--out", str(tmp_path / "run"), "--json", "--no-progress"])
    assert 0 == rc  # the turn cap ends the run with status error, as any cap does; a stop asked for exits 0
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert ("max_turns", 2) == (result["terminal_detail"], result["llm"]["turns"])
    assert all(h in ("", "Bearer fake-api-key") for h in server.auth_headers)


def test_a_sweep_names_an_unset_key_variable_before_any_run(tmp_path, monkeypatch):
    """A sweep whose LLM runs name an unset variable fails at once, in one line, with nothing run."""
    from bizsim.runs import RunSpec, sweep

    monkeypatch.delenv("BIZSIM_TEST_UNSET_VAR", raising=False)
    spec = RunSpec("startup", "default", "llm", 1, agent_options={
        "model": "openai/gpt-4o-mini", "api_key_env": "BIZSIM_TEST_UNSET_VAR"})
    with pytest.raises(ConfigError, match="BIZSIM_TEST_UNSET_VAR is not set"):
        sweep([spec], tmp_path, backend="serial", progress=False, preflight=False)
    results = tmp_path / "results.jsonl"
    assert not results.exists() or "" == results.read_text()


def test_a_missing_llm_extra_is_named_with_its_install_line(monkeypatch):
    """Without litellm installed, the run says which extra to install (checked without importing anything)."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "litellm" else real(name, *a))
    with pytest.raises(ConfigError, match=r'needs litellm, which is not installed: pip install -e "\.\[llm\]" \(in the bizsim checkout'):
        check_setup("hosted_vllm/qwen", api_base="http://127.0.0.1:8000/v1")
