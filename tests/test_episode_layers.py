"""An episode is a core with layers: each layer alone on a core does its one thing, and the stack names itself."""

from __future__ import annotations

import json

import pytest
from bizsim.agents.start import Window
from bizsim.runs.budgets import Budgets
from bizsim.runs.live import Budgeted, Episode, EpisodeCore, LiveSpec, Rewarded, Windowed
from bizsim.runs.recorder import RunDirRecorder
from bizsim.runs.rewards import reward_rule
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.errors import BizSimError


def _core(world: str = "operation", seed: int = 1, out=None) -> EpisodeCore:
    return EpisodeCore(LiveSpec.of(world, seed=seed), None if out is None else RunDirRecorder(out))


def test_a_core_alone_answers_steps_and_records(tmp_path):
    """Without layers the core plays and records: calls answer, steps reward 0 and are never truncated."""
    with _core(out=tmp_path / "run") as core:
        assert "EpisodeCore(operation-v1 preset default seed 1)" == repr(core)
        assert core is core.unwrapped
        assert 0 == core.call_line("help").status
        rewards = [core.step(core.advance_command)[1] for _ in range(3)]
        _, _, done, info = core.step("help")
        assert ([0.0, 0.0, 0.0], False, False, 3) == (rewards, done, info["truncated"], info["turns"])
        assert not core.truncated
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert (5, {"max_turns": None, "max_tokens_total": None, "max_cost_usd": None, "max_call_chars": 200_000}) == (
        result["live"]["calls"], result["live"]["budgets"])
    assert verify_run_dir(tmp_path / "run").ok


def test_an_episode_without_window_or_budgets_is_its_core_under_the_reward_rule():
    """Nothing to bound: the stack is the core and the reward rule only, and the rule's only layer is Rewarded."""
    episode = Episode("operation", "default", 1)
    assert "Episode(Rewarded(EpisodeCore(operation-v1 preset default seed 1)))" == repr(episode)
    assert isinstance(episode.episode, Rewarded) and episode.episode.episode is episode.unwrapped
    assert isinstance(episode.unwrapped, EpisodeCore)


def test_the_composed_stack_names_itself_innermost_last():
    """Budgets nearest the core, then the window, then the rewards, as Gymnasium's make() stacks its wrappers."""
    episode = Episode("startup", "default", 1, budgets=Budgets(max_turns=9), window=2, reward="terminal")
    assert "Episode(Rewarded(Windowed(Budgeted(EpisodeCore(startup-v1 preset default seed 1)))))" == repr(episode)
    assert (9, "terminal") == (episode.max_turns, episode.reward)  # each layer's own names reach the top
    # A world config's own turn limit is a budget too: the layer is there without budgets=.
    capped = Episode("startup", "default", 1, overrides={"max_turns": 4})
    assert "Budgeted" in repr(capped) and 4 == capped.max_turns


def test_the_window_alone_truncates_steps_not_calls():
    """Windowed on a bare core: the step that ends the window is done and truncated; later steps are refused."""
    layer = Windowed(_core(), Window.of(2))
    assert "Windowed(EpisodeCore(operation-v1 preset default seed 1))" == repr(layer)
    dones = [layer.step(layer.advance_command)[2] for _ in range(2)]
    assert [False, True] == dones and layer.truncated
    with pytest.raises(BizSimError, match="window is over"):
        layer.step("help")
    assert 0 == layer.call_line("help").status  # a call is no step: the window does not bound it
    layer.reset()
    assert (False, 0) == (layer.truncated, layer.turns)
    _, _, done, info = layer.step(layer.advance_command)
    assert (False, False) == (done, info["truncated"])


def test_the_budget_alone_ends_the_episode_and_is_recorded(tmp_path):
    """Budgeted on a begun core: its limits are recorded at once; the call that reaches one ends the episode."""
    core = _core("startup", out=tmp_path / "run")
    layer = Budgeted(core, Budgets(max_turns=2))
    on_disk = json.loads((tmp_path / "run" / "result.json").read_text())
    assert 2 == on_disk["live"]["budgets"]["max_turns"]
    assert not layer.call_line("company status").done
    _, reward, done, info = layer.step("company status")
    assert (0.0, True, "error") == (reward, done, info["status"])  # the step reports the world after its end
    assert ("max_turns", True) == (core.world.terminal_detail, core.done)
    layer.close()
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert ("error", "max_turns", 2) == (result["terminal_reason"], result["terminal_detail"], result["turns"])
    assert verify_run_dir(tmp_path / "run").ok


def test_the_budget_alone_ends_on_reported_usage():
    """Tokens reported past the budget end the episode without a call."""
    layer = Budgeted(_core(), Budgets(max_tokens_total=100))
    layer.report_usage(60, 30)
    assert not layer.done
    layer.report_usage(5, 5)
    assert (True, "max_tokens_total") == (layer.done, layer.world.terminal_detail)


@pytest.mark.parametrize("mode", ["delta", "terminal", "shaped"])
def test_the_reward_rule_alone_rewards_by_its_rule(mode):
    """Rewarded on a bare core: delta steps sum to the metric's change, terminal pays it all on the last step,
    shaped adds the potential's change."""
    weights = {"dau": 2.0} if mode == "shaped" else None
    layer = Rewarded(Windowed(_core(), Window.of(4)), reward_rule("operation", mode, weights))
    rewards, done = [], False
    while not done:
        _, reward, done, _ = layer.step(layer.advance_command)
        rewards.append(reward)
    change = layer.metric - layer.start_metric
    assert 4 == len(rewards) and change != 0
    if mode == "terminal":
        assert [0.0] * (len(rewards) - 1) == rewards[:-1] and pytest.approx(change) == rewards[-1]
    else:
        bonus = layer.potential - layer.start_potential
        assert (mode == "shaped") == (bonus != 0)
        assert pytest.approx(change + bonus) == sum(rewards)
    assert mode == layer.reward


def test_a_layer_forwards_public_names_only():
    """What a layer does not define is the episode's; a private name never crosses a layer."""
    layer = Windowed(_core(), Window.of(1))
    assert layer.world is layer.unwrapped.world and layer.calls == 0
    with pytest.raises(AttributeError, match="_lockfile"):
        _ = layer._lockfile


def test_the_live_package_examples_run():
    """The examples in the module's and Episode's docstrings hold (the composed repr among them)."""
    import doctest

    import bizsim.runs.live

    found = doctest.testmod(bizsim.runs.live)
    assert (0, True) == (found.failed, found.attempted > 1)
