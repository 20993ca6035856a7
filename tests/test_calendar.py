"""simcore.calendar.Calendar: business hours, the reference's flush count, month starts."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bizsim.simcore.calendar import US_PER_DAY, US_PER_HOUR, Calendar

START = datetime(2025, 1, 1, 9)  # a Wednesday, the reference's start


@pytest.fixture
def cal() -> Calendar:
    """The reference's calendar: 09:00-18:00, Monday to Friday, from 2025-01-01 09:00."""
    return Calendar(START)


def us(cal: Calendar, *args: int) -> int:
    """The instant of a datetime given as (year, month, day, hour, minute, second)."""
    return cal.to_us(datetime(*args))


def iso(cal: Calendar, t_us: int) -> str:
    """ISO text of an instant."""
    return cal.iso(t_us)


# ---------------------------------------------------------------------------
# spec §5.2: adding business hours


@pytest.mark.parametrize(
    ("start", "hours", "expected"),
    [
        ((2025, 1, 1, 9), "9", "2025-01-01T18:00:00"),
        ((2025, 1, 1, 9), "9.5", "2025-01-02T09:30:00"),
        ((2025, 1, 1, 9), "63", "2025-01-09T18:00:00"),
        ((2025, 1, 4, 12), "0", "2025-01-06T09:00:00"),
        ((2025, 1, 17, 11, 13, 55), "63", "2025-01-28T11:13:55"),
        ((2025, 1, 1, 9), "0", "2025-01-01T09:00:00"),
        ((2025, 1, 1, 7), "1", "2025-01-01T10:00:00"),
        ((2025, 1, 1, 18), "1", "2025-01-02T10:00:00"),
        ((2025, 1, 3, 17), "2", "2025-01-06T10:00:00"),
        ((2025, 1, 3, 17), "1", "2025-01-03T18:00:00"),
    ],
)
def test_add_business_hours_examples(cal, start, hours, expected):
    """Adding business hours snaps to the next opening, fills days, and lands at 18:00 when a day is exactly filled."""
    assert expected == iso(cal, cal.add_business_hours(us(cal, *start), Decimal(hours)))


def test_add_business_hours_refuses_negative(cal):
    """A negative amount of work is refused with a message naming the value."""
    with pytest.raises(ValueError, match=r"hours\(=-1\) must be >= 0"):
        cal.add_business_hours(0, Decimal(-1))


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        (datetime(2025, 1, 1, 12), datetime(2025, 1, 1, 12)),
        (datetime(2025, 1, 1, 8, 59), datetime(2025, 1, 1, 9)),
        (datetime(2025, 1, 1, 18), datetime(2025, 1, 2, 9)),
        (datetime(2025, 1, 3, 18, 30), datetime(2025, 1, 6, 9)),
        (datetime(2025, 1, 5, 23, 59), datetime(2025, 1, 6, 9)),
    ],
)
def test_next_business_instant(cal, when, expected):
    """Inside business hours an instant stays; otherwise it moves to the next weekday opening."""
    assert expected == cal.next_business_instant(when)


# ---------------------------------------------------------------------------
# spec §5.3: counting business hours, and the reference's flush quirk


@pytest.mark.parametrize(
    ("t0", "t1", "correct", "flush"),
    [
        ((2025, 1, 1, 9), (2025, 1, 2, 9), "9", "15"),
        ((2025, 1, 1, 9), (2025, 1, 8, 9), "45", "75"),
        ((2025, 1, 1, 9), (2025, 2, 3, 9), "207", "345"),
        ((2025, 1, 3, 17), (2025, 1, 6, 9), "1", "7"),
        ((2025, 1, 1, 9), (2025, 1, 1, 18), "9", "9"),
        ((2025, 1, 1, 10), (2025, 1, 1, 12, 30), "2.5", "2.5"),
        ((2025, 1, 4, 9), (2025, 1, 6, 0), "0", "0"),
    ],
)
def test_hours_between_correct_and_flush(cal, t0, t1, correct, flush):
    """A correct count gives 9 h per weekday; the reference's flush counts 09:00-24:00 for days cut at midnight."""
    a, b = us(cal, *t0), us(cal, *t1)
    assert Decimal(correct) == cal.business_hours_between(a, b)
    assert Decimal(flush) == cal.flush_hours_between(a, b)


def test_hours_between_empty_or_reversed_interval(cal):
    """An empty or reversed interval holds no business hours."""
    a = us(cal, 2025, 1, 2, 12)
    assert Decimal(0) == cal.business_hours_between(a, a)
    assert Decimal(0) == cal.business_hours_between(a, a - US_PER_HOUR)
    assert Decimal(0) == cal.flush_hours_between(a, a - US_PER_HOUR)


# ---------------------------------------------------------------------------
# spec §5.4: payroll dates


def test_month_starts_of_the_reference_year(cal):
    """The first weekday of each month at 09:00, strictly after the start and before the horizon: 11 dates."""
    horizon = us(cal, 2026, 1, 1, 9)
    expected = [
        "2025-02-03T09:00:00", "2025-03-03T09:00:00", "2025-04-01T09:00:00", "2025-05-01T09:00:00",
        "2025-06-02T09:00:00", "2025-07-01T09:00:00", "2025-08-01T09:00:00", "2025-09-01T09:00:00",
        "2025-10-01T09:00:00", "2025-11-03T09:00:00", "2025-12-01T09:00:00",
    ]
    assert expected == [iso(cal, t) for t in cal.month_starts(0, horizon)]


def test_month_starts_includes_the_end_instant_when_not_on_the_first(cal):
    """A boundary equal to the end instant is included unless it is the 1st of the month at opening."""
    feb3 = us(cal, 2025, 2, 3, 9)
    assert ["2025-02-03T09:00:00"] == [iso(cal, t) for t in cal.month_starts(0, feb3)]
    assert [] == cal.month_starts(0, feb3 - 1)
    assert [] == cal.month_starts(feb3, feb3)


def test_next_month_start(cal):
    """The next payroll shown by company status is the first weekday of the next month."""
    assert datetime(2025, 2, 3, 9) == cal.next_month_start(0)
    assert datetime(2026, 1, 1, 9) == cal.next_month_start(us(cal, 2025, 12, 15, 9))


def test_conversions_round_trip(cal):
    """Datetimes, microsecond instants and hours convert exactly; aware datetimes are read as UTC."""
    from datetime import timezone

    t = us(cal, 2025, 3, 4, 5, 6, 7)
    assert datetime(2025, 3, 4, 5, 6, 7) == cal.to_datetime(t)
    assert t == cal.to_us(datetime(2025, 3, 4, 5, 6, 7, tzinfo=timezone.utc))
    assert 24.0 == Calendar.hours(US_PER_DAY)


def test_calendar_refuses_bad_business_hours():
    """Opening must come before closing, inside the day."""
    with pytest.raises(ValueError, match="must satisfy"):
        Calendar(START, open_hour=18, close_hour=9)


# ---------------------------------------------------------------------------
# properties

YEAR_US = 400 * US_PER_DAY


def _spread(days: int) -> st.SearchStrategy[int]:
    """Instants or spans up to ``days`` days, as whole days plus a time of day.

    Hypothesis draws small integers from wide ranges most of the time, which
    would leave multi-day spans almost untested.
    """
    return st.builds(lambda d, us: d * US_PER_DAY + us, st.integers(0, days), st.integers(0, US_PER_DAY - 1))


instants = _spread(400)
work = st.decimals(min_value=0, max_value=2000, places=6, allow_nan=False, allow_infinity=False)


@given(a=instants, h=work)
def test_counting_inverts_adding(a, h):
    """Counting the business hours up to ``a + h`` business hours gives back ``h``."""
    cal = Calendar(START)
    b = cal.add_business_hours(a, h)
    assert abs(h - cal.business_hours_between(a, b)) <= Decimal("1e-6")


@given(a=instants, h1=work, h2=work)
def test_adding_is_monotone(a, h1, h2):
    """More work never ends earlier, and never ends before the start."""
    cal = Calendar(START)
    lo, hi = sorted((h1, h2))
    assert a <= cal.add_business_hours(a, lo) <= cal.add_business_hours(a, hi)


@given(a=instants, d1=_spread(30), d2=_spread(30))
def test_counting_is_monotone_and_bounded(a, d1, d2):
    """A longer interval holds at least as many business hours, at most 9 per calendar day (15 for the flush)."""
    cal = Calendar(START)
    short, long = sorted((d1, d2))
    assert cal.business_hours_between(a, a + short) <= cal.business_hours_between(a, a + long)
    assert cal.flush_hours_between(a, a + short) <= cal.flush_hours_between(a, a + long)
    days = Decimal(long) / Decimal(US_PER_DAY)
    assert cal.business_hours_between(a, a + long) <= 9 * (days + 1)
    assert cal.business_hours_between(a, a + long) <= cal.flush_hours_between(a, a + long)


def _day_by_day(cal: Calendar, t0: int, t1: int, stretch: bool) -> Decimal:
    """The reference's count, one calendar day at a time, each segment through float seconds."""
    total, cur = Decimal(0), t0
    while cur < t1:
        midnight = cal.to_us(datetime.combine(cal.to_datetime(cur).date() + timedelta(days=1), datetime.min.time()))
        end = min(midnight, t1)
        day = cal.to_datetime(cur)
        if day.weekday() < 5:
            close_day = cal.to_datetime(end).date() if stretch else day.date()
            opening = cal.to_us(datetime.combine(day.date(), datetime.min.time()) + timedelta(hours=cal.open_hour))
            closing = cal.to_us(datetime.combine(close_day, datetime.min.time()) + timedelta(hours=cal.close_hour))
            lo, hi = max(cur, opening), min(end, closing)
            if hi > lo:
                total += Decimal(str((hi - lo) / 1_000_000)) / Decimal(3600)
        cur = end
    return total


@given(a=instants, d=_spread(60), hours=st.sampled_from([(9, 18), (0, 24), (8, 17), (23, 24)]))
def test_counting_equals_the_day_by_day_sum_digit_for_digit(a, d, hours):
    """Whole weekdays are skipped at once, yet every Decimal (digits and exponent) is the day-by-day loop's."""
    cal = Calendar(START.replace(hour=hours[0]), *hours)
    for stretch, count in ((False, cal.business_hours_between), (True, cal.flush_hours_between)):
        assert str(_day_by_day(cal, a, a + d, stretch)) == str(count(a, a + d))


@given(a=instants, d=_spread(30), m=_spread(30))
def test_counting_is_additive(a, d, m):
    """Business hours of [a, c] split at any b are the sum of the two parts."""
    cal = Calendar(START)
    b, c = a + min(d, m), a + max(d, m)
    whole = cal.business_hours_between(a, c)
    assert abs(whole - cal.business_hours_between(a, b) - cal.business_hours_between(b, c)) <= Decimal("1e-9")


@given(week=st.integers(0, 50), x=st.integers(0, 2 * US_PER_DAY), y=st.integers(0, 2 * US_PER_DAY))
def test_no_business_hours_on_weekends(week, x, y):
    """An interval inside a weekend (Saturday 00:00 to Monday 00:00) holds no business or flush hours."""
    cal = Calendar(START)
    saturday = us(cal, 2025, 1, 4) + week * 7 * US_PER_DAY
    a, b = saturday + min(x, y), saturday + max(x, y)
    assert Decimal(0) == cal.business_hours_between(a, b)
    assert Decimal(0) == cal.flush_hours_between(a, b)


@given(day=st.integers(0, 364), x=st.integers(0, 15 * US_PER_HOUR), y=st.integers(0, 15 * US_PER_HOUR))
def test_no_business_hours_at_night(day, x, y):
    """An interval between 18:00 and the next 09:00 holds no business hours."""
    cal = Calendar(START)
    evening = us(cal, 2025, 1, 1, 18) + day * US_PER_DAY
    a, b = evening + min(x, y), evening + max(x, y)
    assert Decimal(0) == cal.business_hours_between(a, b)


@given(a=instants, h=work)
def test_added_instants_are_business_instants(a, h):
    """Work ends inside business hours (closing time included) on a weekday."""
    cal = Calendar(START)
    end = cal.to_datetime(cal.add_business_hours(a, h))
    assert end.weekday() < 5
    assert datetime.combine(end.date(), datetime.min.time()) + timedelta(hours=9) <= end
    assert end <= datetime.combine(end.date(), datetime.min.time()) + timedelta(hours=18)
