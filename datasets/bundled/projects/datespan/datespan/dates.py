"""Month arithmetic and weekday lookups on :class:`datetime.date`."""

from __future__ import annotations

from datetime import date

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_leap_year(year: int) -> bool:
    """Gregorian rule: every 4th year, except centuries not divisible by 400."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year: int, month: int) -> int:
    if not 1 <= month <= 12:
        raise ValueError(f"month must be in 1..12, got {month}")
    if month == 2 and is_leap_year(year):
        return 29
    return _DAYS_IN_MONTH[month - 1]


def add_months(day: date, months: int) -> date:
    """``day`` moved by ``months`` calendar months (negative moves back).

    A day that does not exist in the target month is clamped to its last
    day: January 31 plus one month is February 28 (29 in leap years).
    """
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    return date(year, month, min(day.day, days_in_month(year, month)))


def end_of_month(day: date) -> date:
    return day.replace(day=days_in_month(day.year, day.month))


def parse_weekday(name: str) -> int:
    """``"mon"``/``"Monday"`` → 0 ... ``"sun"``/``"Sunday"`` → 6 (any prefix of three letters or more)."""
    key = name.strip().lower()
    for index, full in enumerate(WEEKDAYS):
        if len(key) >= 3 and full.startswith(key):
            return index
    raise ValueError(f"unknown weekday {name!r}")


def nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The ``n``-th ``weekday`` (0 = Monday) of a month; ``n = -1`` is the last.

    Raises ValueError when the month has no such day (a fifth Monday, say).
    """
    if n == 0 or not -5 <= n <= 5:
        raise ValueError(f"n must be 1..5 or -5..-1, got {n}")
    last_day = days_in_month(year, month)
    if n > 0:
        first = date(year, month, 1)
        day = 1 + (weekday - first.weekday()) % 7 + (n - 1) * 7
    else:
        last = date(year, month, last_day)
        day = last_day - (last.weekday() - weekday) % 7 - (-n - 1) * 7
    if not 1 <= day <= last_day:
        raise ValueError(f"{year}-{month:02d} has no weekday {WEEKDAYS[weekday]} number {n}")
    return date(year, month, day)
