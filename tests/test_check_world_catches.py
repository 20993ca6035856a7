"""check_world fails deliberately broken worlds: broken invariants, replay gaps, refusals that change state."""

from __future__ import annotations

import random
import re

import pytest

from bizsim.models.operation import OperationWorld
from bizsim.simcore.check import check_world


def two_days(world):
    """An agent that ends two days and stops."""
    yield world.advance()
    yield world.advance()


class LateRecordWorld(OperationWorld):
    """Records day 0's transition a day late: the history is short at day 1, whole again at day 2."""

    def end_day(self, day: int) -> dict:
        report = super().end_day(day)
        if day == 0:
            self._late = self.dau_history.pop()
        elif day == 1:
            self.dau_history.insert(0, self._late)
        return report


class WelcomeBonusWorld(OperationWorld):
    """Adds content when an agent process starts: a change outside any command, so no log can replay it."""

    def run(self, agent):
        self.content_volume += 10
        return super().run(agent)


class RefusalCostsWorld(OperationWorld):
    """Counts a refused command line against the day's budget."""

    def execute(self, line: str, *, allow_hidden: bool = False, driven: bool = False):
        out = super().execute(line, allow_hidden=allow_hidden, driven=driven)
        if isinstance(out, dict) and "error" in out:
            self.actions_today += 1
        return out


def test_the_unbroken_world_passes_with_the_same_agent():
    """The unbroken operation world passes check_world with the same agent, so each failure below is its bug's."""
    check_world(lambda s: OperationWorld("default", s), two_days, seeds=(1,))


def test_check_world_catches_an_invariant_broken_mid_episode():
    """An invariant broken at a decision point fails check_world even when it holds again at the end."""
    world = LateRecordWorld("default", 1)
    world.run(two_days)
    assert [] == world.invariants()  # only the decision point in between sees the bug
    with pytest.raises(AssertionError, match="invariants broken: .*0 transitions recorded on day 1"):
        check_world(lambda s: LateRecordWorld("default", s), two_days, seeds=(1,))


def test_check_world_catches_state_the_replay_misses():
    """A change made outside the command log fails check_world: replay does not reproduce the final state."""
    with pytest.raises(AssertionError, match="replay does not reproduce the final state"):
        check_world(lambda s: WelcomeBonusWorld("default", s), two_days, seeds=(1,))


def test_check_world_catches_a_refusal_that_changes_state():
    """A refused command that changes the state fails check_world, naming the command line."""
    with pytest.raises(AssertionError, match="refused command '' changed the state"):
        check_world(lambda s: RefusalCostsWorld("default", s), two_days, seeds=(1,))


class UnseededWorld(OperationWorld):
    """Draws each day's new content from an unseeded generator, not from its named streams."""

    _rng = random.Random()

    def end_day(self, day: int) -> dict:
        self.content_volume += self._rng.randrange(1_000_000)
        return super().end_day(day)


def test_check_world_says_where_two_runs_parted_and_what_each_recorded():
    """Two runs of one seed that differ: the message names the record where they parted, both versions of it,
    the command before it, and the rule (randomness from the world's streams)."""
    with pytest.raises(AssertionError) as caught:
        check_world(lambda s: UnseededWorld("default", s), two_days, seeds=(1,))
    message = str(caught.value)
    assert re.search(r"seed 1: two runs of the same seed and agent part at trajectory record \d+", message), message
    first, second = re.search(r"first run:  (.*)\n    second run: (.*)\n", message).groups()
    assert first != second and '"content_volume"' in first and '"content_volume"' in second
    assert "world.streams" in message


def test_check_world_returns_what_it_checked():
    """On success check_world says what passed, per seed, instead of nothing."""
    report = check_world(lambda s: OperationWorld("default", s), two_days, seeds=(1, 2))
    assert ((1, 2), (2, 2), "operation-v1") == (report.seeds, report.turns, report.world)
    text = str(report)
    assert text.startswith("check_world(operation-v1): passed") and "seed 2: 2 decision points" in text
    assert f"{report.refusals} malformed command lines refused" in text and report.refusals > 0


class SharedStateWorld(OperationWorld):
    """Hands out its own list as state and lets a refusal append to it: a kit holding state by reference sees the
    change in its "before" too."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._notes: list[str] = []

    def state(self) -> dict:
        return {"notes": self._notes, **super().state()}

    def execute(self, line: str, *, allow_hidden: bool = False, driven: bool = False):
        out = super().execute(line, allow_hidden=allow_hidden, driven=driven)
        if isinstance(out, dict) and "error" in out:
            self._notes.append(line)
        return out


class NanWorld(OperationWorld):
    """A correct world with a NaN in its state (an undefined ratio): NaN is not equal to itself."""

    def state(self) -> dict:
        return {**super().state(), "ratio": float("nan")}


def test_a_refusal_that_changes_a_state_handed_out_by_reference_is_caught():
    from bizsim.simcore.testing import assert_refusal_changes_nothing

    with pytest.raises(AssertionError, match="changed the world"):
        assert_refusal_changes_nothing(SharedStateWorld("default", 1), "no-such-command")
    with pytest.raises(AssertionError, match="refused command .* changed the state"):
        check_world(lambda s: SharedStateWorld("default", s), two_days, seeds=(1,))


def test_a_nan_in_the_state_does_not_fail_a_correct_world():
    from bizsim.simcore.testing import assert_deterministic, assert_refusal_changes_nothing, assert_replays

    assert_refusal_changes_nothing(NanWorld("default", 1), "no-such-command")
    world = assert_deterministic(lambda: NanWorld("default", 1), two_days)
    assert_replays(lambda: NanWorld("default", 1), world)
    check_world(lambda s: NanWorld("default", s), two_days, seeds=(1,))


class WordyInvariantsWorld(OperationWorld):
    """Reports a broken invariant as a bare string instead of a list of them."""

    def invariants(self):
        return "broken: the books"


class HangingInvariantsWorld(OperationWorld):
    """Never returns from invariants()."""

    def invariants(self):
        while True:
            pass


def test_invariants_that_are_not_a_list_of_strings_are_named_not_cut_to_three_letters():
    from bizsim.simcore.testing import play

    with pytest.raises(AssertionError, match="must return a list of strings.*'broken: the books'"):
        play(WordyInvariantsWorld("default", 1), ["help"])


def test_a_hanging_invariants_check_fails_instead_of_hanging(monkeypatch):
    from bizsim.simcore.testing import _guards, play

    monkeypatch.setattr(_guards, "CHECK_SECONDS", 0.2)
    with pytest.raises(AssertionError, match=r"invariants\(\) did not return within 0.2 s"):
        play(HangingInvariantsWorld("default", 1), ["help"])
    with pytest.raises(AssertionError, match="did not return"):
        check_world(lambda s: HangingInvariantsWorld("default", s), two_days, seeds=(1,))
