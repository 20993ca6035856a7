"""The operation world's formulas, pinned on hand-computed cases (spec §4.2–4.4), and its presets."""

from __future__ import annotations

import doctest
import math

import attrs
import pytest

import bizsim.models.operation.dynamics
from bizsim.models.operation import PRESETS, OperationConfig, OperationWorld, config_from_toml, config_to_toml
from bizsim.models.operation.dynamics import action_noise, natural_growth, retention_rate, transition
from bizsim.simcore import RandomStreams, Status
from bizsim.simcore.errors import ConfigError

QUIET = OperationConfig(noise=False)


def quiet_world(**changes) -> OperationWorld:
    """A noise-free operation world (preset ``default`` values otherwise)."""
    return OperationWorld(attrs.evolve(QUIET, **changes), 1)


def end_day(world: OperationWorld) -> dict:
    """``task_done`` and run to the report."""
    ev = world.advance()
    world.env.run(until=ev)
    return ev.value


def test_doctests():
    """The examples in the dynamics module run."""
    failed, tried = doctest.testmod(bizsim.models.operation.dynamics)
    assert (0, True) == (failed, tried > 0)


def test_noise_free_day_from_the_initial_state():
    """Day 0, no action, no noise: every formula of §4.3 by hand."""
    # R = 0.80 + 0.20*log10(100/10) + 0.20*0.5 + 0.25*0 = 1.10 -> capped at 0.95
    # kept = int(1000 * 0.95) = 950; new = 5 + int(60*0.5) + int(60*0.5) = 65
    # Vol = 100 + int(30*0.5*(1 + 0.5*0.5)) - int(0.05*100) = 100 + 18 - 5 = 113
    # Q = 0.5 - 0.05*(0.5 - 0) - 0.03*0 = 0.475; A = 0.5 - 0.05*0.5 = 0.475; E = max(0, 0 - 0.08) = 0
    w = quiet_world()
    report = end_day(w)
    assert {"dau": 1015, "dau_change": 15, "retained_users": 950, "new_users": 65, "churned_users": 50,
            "retention_rate": 0.95, "content_created": 18, "content_decayed": 5} == report["events"]
    assert {"dau": 1015, "content_volume": 113, "content_quality": 0.475, "creator_activity": 0.475,
            "engagement_level": 0.0} == report["current_state"]
    assert (1, "success", "Day 1: DAU=1015, Change=+15, Retention Rate=95.0%") == (
        report["current_day"], report["status"], report["summary"])
    assert (1015, 113, 0.475, 0.475, 0.0) == (w.dau, w.content_volume, w.content_quality, w.creator_activity,
                                              w.engagement_level)


def test_noise_free_day_with_low_quality_and_engagement():
    """Below the quality threshold: the penalty, an unclamped retention, engagement dragging quality."""
    # R = 0.80 + 0.20*log10(10/10) + 0.20*0.2 + 0.25*0.4 - 0.5*(0.3 - 0.2) = 0.80 + 0 + 0.04 + 0.10 - 0.05 = 0.89
    # kept = int(500 * 0.89) = 445; new = 5 + int(12.0) + int(18.0) = 35 -> DAU 480
    # Vol = 10 + int(30*0.3*1.1) - int(0.5) = 10 + 9 - 0 = 19
    # Q = 0.2 - 0.05*0.2 - 0.03*0.4 = 0.178; E = 0.4 - 0.08 = 0.32; A = 0.3 - 0.05*0.3 = 0.285
    t = transition(QUIET, 500, 10, 0.2, 0.3, 0.4)
    assert 0.89 == pytest.approx(t.retention, abs=1e-12)
    assert (445, 35, 55, 480, 9, 0, 19) == (t.retained, t.new, t.churned, t.dau, t.created, t.decayed, t.volume)
    assert (0.178, 0.32, 0.285) == pytest.approx((t.quality, t.engagement, t.activity), abs=1e-12)


def test_floors_hold_after_the_transition():
    """Quality and activity never fall below 0.1, content below 10, engagement below 0."""
    t = transition(QUIET, 200, 10, 0.1, 0.1, 0.0)
    # Vol = 10 + int(30*0.1*1.05) - int(0.5) = 13; Q = max(0.1, 0.095); A = max(0.1, 0.095)
    assert (13, 0.1, 0.1, 0.0) == (t.volume, t.quality, t.activity, t.engagement)
    assert 10 == transition(QUIET, 200, 5, 0.5, 0.0, 0.0).volume


def test_retention_clamps_both_ways():
    """Retention is clamped to [0.30, 0.95]; noise is added before the clamp."""
    assert 0.95 == retention_rate(QUIET, 1000, 1.0, 1.0)
    assert 0.30 == retention_rate(attrs.evolve(QUIET, base_retention=0.0), 10, 0.0, 0.0)
    assert 0.92 == pytest.approx(retention_rate(QUIET, 10, 0.5, 0.0, noise=0.02), abs=1e-12)


def test_growth_noise_multiplies_then_truncates():
    """``int((5 + int(60Q) + int(60A)) * (1 + u))``, never negative."""
    assert 65 == natural_growth(QUIET, 0.5, 0.5)
    assert int(65 * 1.2) == natural_growth(QUIET, 0.5, 0.5, 0.2) == 78
    assert 0 == natural_growth(attrs.evolve(QUIET, base_growth=0), 0.0, 0.0, -0.25)


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        # E = min(1, 0 + 0.25); Q = max(0, 0.5 - 0.05)
        ("engagement_tune", {"engagement_level": 0.25, "content_quality": 0.45}),
        # A = 0.5 + 0.25*(1 - 0.5)**1.1 = 0.616631; content += int(50*0.616631) = 30
        ("creator_incentive", {"creator_activity": 0.617, "activity_boost_applied": 0.1166, "content_added": 30,
                               "total_content": 130}),
        # Q = 0.5 + 0.30*(0.5)**1.1 = 0.639955; removed int(0.10*100) = 10; A = 0.5 - 0.07*(1 + 1.1*0.5) = 0.3915
        # (reported to 3 places as the reference does: the float 0.3915 is just below the half, so 0.391)
        ("moderation_tighten", {"content_quality": 0.64, "quality_boost_applied": 0.14, "content_removed": 10,
                                "remaining_content": 90, "creator_activity": 0.391, "creator_penalty_applied": 0.1085}),
        # 20 + int(20*0.5*1.1) = 31 users
        ("acquisition_boost", {"new_users_acquired": 31}),
    ],
)
def test_noise_free_action_vectors(action, expected):
    """§4.4's noise-free vectors from the initial state."""
    w = quiet_world()
    out = w.call(action)
    assert {"status": "success", "action": action, **expected} == out


def test_noise_free_action_state():
    """The unrounded state after each noise-free action."""
    w = quiet_world()
    w.call("creator_incentive")
    assert (pytest.approx(0.5 + 0.25 * 0.5 ** 1.1), 130) == (w.creator_activity, w.content_volume)
    w = quiet_world()
    w.call("moderation_tighten")
    assert (pytest.approx(0.639955, abs=1e-6), 90, pytest.approx(0.3915)) == (
        w.content_quality, w.content_volume, w.creator_activity)


def test_acquisition_adds_users_by_default_and_nothing_in_reference():
    """Preset ``default`` adds the campaign's users at once; ``reference`` computes and drops them."""
    w = quiet_world()
    w.call("acquisition_boost")
    assert 1031 == w.dau
    ref = OperationWorld(attrs.evolve(PRESETS["reference"], noise=False), 1)
    assert 31 == ref.call("acquisition_boost")["new_users_acquired"]
    assert 1000 == ref.dau
    assert end_day(ref)["events"] == end_day(quiet_world())["events"]


def test_reference_acquisition_equals_doing_nothing_with_noise():
    """With noise, always-acquisition on ``reference`` follows the idle trajectory (only action draws differ)."""
    busy, idle = OperationWorld("reference", 5), OperationWorld("reference", 5)
    for _ in range(30):
        busy.call("acquisition_boost")
        end_day(busy)
        end_day(idle)
    assert idle.dau_history == busy.dau_history


def test_action_noise_helper():
    """``max(0, x + x*U(-f, f) + x*a*U(-1, 1))`` with the draws given."""
    assert 0.25 * (1 + 0.1 + 0.5 * -0.2) == pytest.approx(action_noise(0.25, 0.5, 0.1, -0.2))
    assert 0.0 == action_noise(1.0, 0.55, -0.6, -1.0)


def test_action_noise_draws_two_uniforms_from_the_actions_stream():
    """A noisy creator boost uses U(-0.60, 0.60) then U(-1, 1) from stream ``actions``."""
    w = OperationWorld("default", 11)
    u1, u2 = RandomStreams(11).get("actions").random(2).tolist()
    base = 0.25 * 0.5 ** 1.1
    expected = max(0.0, base + base * (-0.6 + 1.2 * u1) + base * 0.55 * (-1.0 + 2.0 * u2))
    w.call("creator_incentive")
    assert 0.5 + expected == pytest.approx(w.creator_activity, abs=1e-15)


def test_day_noise_comes_from_the_retention_and_growth_streams():
    """Day d uses the d-th draw of ``retention`` (±0.03) and of ``growth`` (±0.25)."""
    seed = 8
    r = RandomStreams(seed).get("retention").uniform(-0.03, 0.03, 365).tolist()
    g = RandomStreams(seed).get("growth").uniform(-0.25, 0.25, 365).tolist()
    w = OperationWorld("default", seed)
    end_day(w)
    expected = transition(PRESETS["default"], 1000, 100, 0.5, 0.5, 0.0, r[0], g[0])
    assert (expected.dau, expected.volume) == (w.dau, w.content_volume)
    snapshot = (w.dau, w.content_volume, w.content_quality, w.creator_activity, w.engagement_level)
    expected = transition(PRESETS["default"], *snapshot, r[1], g[1])
    end_day(w)
    assert expected.dau == w.dau


def test_collapse_below_threshold():
    """DAU below ``collapse_dau`` after a transition ends the episode as collapsed."""
    w = quiet_world(initial_dau=100, base_retention=0.0, base_growth=0, quality_growth=0, creator_growth=0)
    report = end_day(w)
    assert report["events"]["dau"] < 100
    assert Status.COLLAPSED is w.status and w.done
    assert "error" in w.execute("creator_incentive", driven=True)


def test_horizon_is_365_transitions():
    """The default episode is 365 days; the metric averages the post-transition DAU."""
    w = quiet_world(horizon_days=3)
    for _ in range(3):
        end_day(w)
    assert Status.HORIZON is w.status
    s = w.summary()
    assert 3 == s["days"] == len(s["daily_dau"])
    assert sum(s["daily_dau"]) / 3 == s["metric_value"] == s["mean_dau"]
    assert "mean_dau" == s["metric"]
    assert 365 == PRESETS["default"].horizon_days


def test_presets_differ_as_documented():
    """``reference`` drops acquisitions, counts as EcoGym's harness and rounds its summary as the reference; ``easy`` and ``hard`` change decay, noise
    and the collapse threshold."""
    d, r, e, h = (PRESETS[n] for n in ("default", "reference", "easy", "hard"))
    assert d.acquisition_adds_users and not r.acquisition_adds_users
    assert r.reference_harness and not d.reference_harness
    assert r.reference_outputs and not d.reference_outputs
    assert attrs.evolve(r, acquisition_adds_users=True, reference_harness=False, reference_outputs=False) == d
    assert e.quality_decay < d.quality_decay < h.quality_decay
    assert e.collapse_dau < d.collapse_dau < h.collapse_dau
    assert h.base_retention < d.base_retention


def test_toml_round_trip(tmp_path):
    """A preset dumped to TOML loads back equal; ``extends`` lays a file over a preset."""
    path = tmp_path / "op.toml"
    path.write_text(config_to_toml(PRESETS["hard"]))
    assert PRESETS["hard"] == config_from_toml(path)
    path.write_text('extends = "reference"\ncollapse_dau = 7\ncreator_noise = [0.1, 0.2]\n')
    cfg = config_from_toml(path)
    assert (7, (0.1, 0.2), False) == (cfg.collapse_dau, cfg.creator_noise, cfg.acquisition_adds_users)
    assert cfg == OperationWorld(str(path), 1).config


@pytest.mark.parametrize("bad", [dict(min_retention=0.9, max_retention=0.5), dict(initial_content_quality=1.5),
                                 dict(creator_noise=(0.1,)), dict(start_date="01/01/2025"), dict(horizon_days=0)])
def test_config_validation(bad):
    """Bad values are refused with a ConfigError naming them."""
    with pytest.raises(ConfigError):
        OperationConfig(**bad)


def test_unknown_preset_lists_the_known_ones():
    """An unknown preset name is a ConfigError listing the presets."""
    with pytest.raises(ConfigError, match="default, reference, easy, hard"):
        OperationWorld("nightmare", 1)


def test_float_expressions_match_the_reference_order():
    """Content uses ln(x)/ln(10) as the reference does (not log10), to the last bit."""
    cfg = attrs.evolve(QUIET, min_retention=0.0, max_retention=1.0, base_retention=0.0, quality_weight=0.0)
    for volume in (11, 137, 999, 12345):
        assert 0.20 * math.log(volume / 10) / math.log(10) == retention_rate(cfg, volume, 0.5, 0.0)
