"""Simulated time: exact microsecond clock, business hours, month boundaries.

Time inside a world is an integer count of microseconds since the episode
start, so that equal instants compare equal and nothing drifts. SimPy's
``env.now`` carries the same instant in hours (float) for users.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

__all__ = ["Calendar", "US_PER_HOUR", "US_PER_DAY"]

US_PER_SECOND = 1_000_000
US_PER_HOUR = 3_600 * US_PER_SECOND
US_PER_DAY = 24 * US_PER_HOUR
_ONE_US = timedelta(microseconds=1)
_SECONDS_PER_HOUR = Decimal("3600")
_MONDAY = datetime(1970, 1, 5)


class Calendar:
    """Maps the microsecond clock to dates and does business-hours arithmetic.

    Business hours are ``open_hour``..``close_hour`` on Monday to Friday, with
    no holidays.

    >>> cal = Calendar(datetime(2025, 1, 1, 9))
    >>> cal.to_datetime(cal.add_business_hours(0, Decimal("9.5"))).isoformat()
    '2025-01-02T09:30:00'
    """

    __slots__ = ("start", "open_hour", "close_hour", "_base", "_open_us", "_close_us", "_full_day", "_spans", "_isos")

    def __init__(self, start: datetime, open_hour: int = 9, close_hour: int = 18) -> None:
        if start.tzinfo is not None:
            start = start.replace(tzinfo=None)
        if not 0 <= open_hour < close_hour <= 24:
            raise ValueError(f"business hours {open_hour}-{close_hour} must satisfy 0 <= open < close <= 24")
        self.start = start
        self.open_hour = open_hour
        self.close_hour = close_hour
        self._base = (start - _MONDAY) // _ONE_US
        self._open_us = open_hour * US_PER_HOUR
        self._close_us = close_hour * US_PER_HOUR
        self._full_day = Decimal(str((close_hour - open_hour) * 3600.0)) / _SECONDS_PER_HOUR
        # Hours of a segment depend only on its length; whole days repeat, so remember them.
        self._spans: dict[int, Decimal] = {}
        # Reports print the same few instants again and again (now, deadlines).
        self._isos: dict[int, str] = {}

    # conversions ---------------------------------------------------------
    def to_datetime(self, t_us: int) -> datetime:
        """The naive UTC datetime of an instant."""
        return self.start + timedelta(microseconds=t_us)

    def to_us(self, dt: datetime) -> int:
        """The instant of a datetime (naive, or aware and then taken as UTC)."""
        if dt.tzinfo is not None:
            dt = dt.replace(tzinfo=None)
        return (dt - self.start) // _ONE_US

    def iso(self, t_us: int) -> str:
        """ISO-8601 text of an instant, as the reference prints read-back times."""
        text = self._isos.get(t_us)
        if text is None:
            if len(self._isos) > 4096:
                self._isos.clear()
            text = self._isos[t_us] = (self.start + timedelta(microseconds=t_us)).isoformat()
        return text

    @staticmethod
    def hours(t_us: int) -> float:
        """An instant or duration in hours."""
        return t_us / US_PER_HOUR

    # business time --------------------------------------------------------
    # Instants are handled as microseconds since a Monday midnight, so weekday
    # and time of day are integer arithmetic; only the steps where the
    # reference converts through float seconds and Decimal do the same here.
    def _abs(self, t_us: int) -> int:
        return self._base + t_us

    def _next_open(self, a: int) -> int:
        """The next business instant at or after absolute instant ``a``."""
        day, tod = divmod(a, US_PER_DAY)
        wd = day % 7
        if wd >= 5:
            return (day + 7 - wd) * US_PER_DAY + self._open_us
        if tod < self._open_us:
            return day * US_PER_DAY + self._open_us
        if tod >= self._close_us:
            day += 3 if wd == 4 else 1
            return day * US_PER_DAY + self._open_us
        return a

    def _add_weekdays(self, a: int, days: int) -> int:
        """The same time of day ``days`` weekdays after weekday instant ``a``."""
        day, tod = divmod(a, US_PER_DAY)
        weeks, extra = divmod(days, 5)
        day += 7 * weeks
        wd = day % 7
        day += extra + (2 if wd + extra >= 5 else 0)
        return day * US_PER_DAY + tod

    def next_business_instant(self, dt: datetime) -> datetime:
        """``dt`` if it is inside business hours, else the next opening."""
        return self.to_datetime(self._next_open(self._abs(self.to_us(dt))) - self._base)

    def add_business_hours(self, t_us: int, hours: Decimal) -> int:
        """The instant after ``hours`` of business time from ``t_us``.

        An amount that exactly fills a day ends at that day's closing time.
        The arithmetic (Decimal hours, a final float-seconds step rounded to
        the microsecond) matches the reference so deadlines agree exactly.
        """
        if hours < 0:
            raise ValueError(f"hours(={hours}) must be >= 0")
        cur = self._next_open(self._abs(t_us))
        remaining = Decimal(hours)
        full = self._full_day
        if remaining > full and cur % US_PER_DAY != self._open_us:
            closing = (cur // US_PER_DAY) * US_PER_DAY + self._close_us
            remaining -= self._span_hours(closing - cur)
            cur = self._next_open(closing)
        if remaining > full:
            # Whole days cost exactly `full` each (an exact Decimal), so they can
            # be skipped at once without changing the result.
            whole, rest = divmod(remaining, full)
            days = int(whole) - 1 if rest == 0 else int(whole)
            if days > 0:
                remaining -= days * full
                cur = self._add_weekdays(cur, days)
        while remaining > 0:
            closing = (cur // US_PER_DAY) * US_PER_DAY + self._close_us
            available = self._span_hours(closing - cur)
            if remaining <= available:
                step = timedelta(seconds=float(remaining * _SECONDS_PER_HOUR)) // _ONE_US
                return cur + step - self._base
            remaining -= available
            cur = self._next_open(closing)
        return cur - self._base

    def business_hours_between(self, t0_us: int, t1_us: int) -> Decimal:
        """Business hours elapsed in ``[t0, t1]``, open to close on weekdays."""
        return self._between(t0_us, t1_us, stretch_to_midnight=False)

    def flush_hours_between(self, t0_us: int, t1_us: int) -> Decimal:
        """The reference's progress-flush count: days cut at midnight count to 24:00.

        A full weekday inside the interval counts ``24 - open_hour`` hours; only
        the last, same-day segment is clipped at closing time.
        """
        return self._between(t0_us, t1_us, stretch_to_midnight=True)

    def _between(self, t0_us: int, t1_us: int, *, stretch_to_midnight: bool) -> Decimal:
        if t1_us <= t0_us:
            return Decimal(0)
        cur, end = self._abs(t0_us), self._abs(t1_us)
        total = Decimal(0)
        while cur < end:
            day = cur // US_PER_DAY
            if cur == day * US_PER_DAY and end // US_PER_DAY - day > 1:
                total = self._whole_days(total, day, end // US_PER_DAY - day, stretch_to_midnight)
                cur = (end // US_PER_DAY) * US_PER_DAY
                continue
            midnight = (day + 1) * US_PER_DAY
            seg_end = min(midnight, end)
            if day % 7 < 5:
                lo = max(cur, day * US_PER_DAY + self._open_us)
                # A segment that ends at midnight takes its closing time from the next date.
                close_day = (seg_end // US_PER_DAY) if stretch_to_midnight else day
                hi = min(seg_end, close_day * US_PER_DAY + self._close_us)
                if hi > lo:
                    total += self._span_hours(hi - lo)
            cur = seg_end
        return total

    def _span_hours(self, span_us: int) -> Decimal:
        """Business hours of a same-day segment, through float seconds as the reference converts them."""
        hours = self._spans.get(span_us)
        if hours is None:
            if len(self._spans) > 65536:  # segment lengths are nearly all distinct; keep the memo bounded
                self._spans.clear()
            hours = self._spans[span_us] = Decimal(str(span_us / US_PER_SECOND)) / _SECONDS_PER_HOUR
        return hours

    def _whole_days(self, total: Decimal, day: int, n: int, stretch_to_midnight: bool) -> Decimal:
        """``total`` plus the hours of ``n`` whole days from ``day``.

        Every whole weekday adds the same span, so only the additions remain of
        the day-by-day loop; they stay one at a time because a 28-digit total
        rounds differently than one multiplied sum would.
        """
        weeks, extra = divmod(n, 7)
        weekday = day % 7
        weekdays = 5 * weeks + sum(1 for i in range(extra) if (weekday + i) % 7 < 5)
        hours = self._span_hours((US_PER_DAY if stretch_to_midnight else self._close_us) - self._open_us)
        for _ in range(weekdays):
            total += hours
        return total

    # month boundaries -----------------------------------------------------
    def first_business_day_of_month(self, year: int, month: int) -> datetime:
        """Opening time of the first weekday of a month."""
        day = datetime(year, month, 1, self.open_hour)
        while day.weekday() >= 5:
            day += timedelta(days=1)
        return day

    def month_starts(self, t0_us: int, t1_us: int) -> list[int]:
        """First-business-day openings ``b`` with ``t0 < b <= t1``.

        Months are visited from ``t0``'s month while the 1st of the month is
        before ``t1``, so a boundary falling exactly on ``t1`` at the 1st is
        not produced (the reference's payroll iterator).
        """
        if t1_us <= t0_us:
            return []
        start, end = self.to_datetime(t0_us), self.to_datetime(t1_us)
        year, month = start.year, start.month
        out = []
        while datetime(year, month, 1, self.open_hour) < end:
            boundary = self.first_business_day_of_month(year, month)
            if start < boundary <= end:
                out.append(self.to_us(boundary))
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        return out

    def next_month_start(self, t_us: int) -> datetime:
        """First business day of the month after the one holding ``t_us``."""
        dt = self.to_datetime(t_us)
        year, month = (dt.year + 1, 1) if dt.month == 12 else (dt.year, dt.month + 1)
        return self.first_business_day_of_month(year, month)
