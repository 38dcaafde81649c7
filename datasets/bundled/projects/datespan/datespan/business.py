"""Working days: Monday to Friday, minus the holidays a caller supplies."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Iterable


def is_business_day(day: date, holidays: Iterable[date] = ()) -> bool:
    return day.weekday() < 5 and day not in set(holidays)


def business_days_between(start: date, end: date, holidays: Iterable[date] = ()) -> int:
    """Working days in ``[start, end)``; negative when ``end`` is before ``start``.

    Counts whole weeks arithmetically, so spans of decades cost no more than
    a week. Each holiday counts once, and only when it falls on a weekday.
    """
    if end < start:
        return -business_days_between(end, start, holidays)
    weeks, rest = divmod((end - start).days, 7)
    count = weeks * 5
    for offset in range(rest):
        if (start + timedelta(days=offset)).weekday() < 5:
            count += 1
    count -= sum(1 for h in set(holidays) if start <= h < end and h.weekday() < 5)
    return count


def add_business_days(day: date, n: int, holidays: Iterable[date] = ()) -> date:
    """The date ``n`` working days after ``day`` (before, for negative ``n``).

    ``n = 0`` returns ``day`` itself when it is a working day, else the next one.
    """
    closed = set(holidays)
    step = timedelta(days=1 if n >= 0 else -1)
    if n == 0:
        while not is_business_day(day, closed):
            day += step
        return day
    remaining = abs(n)
    while remaining:
        day += step
        if is_business_day(day, closed):
            remaining -= 1
    return day
