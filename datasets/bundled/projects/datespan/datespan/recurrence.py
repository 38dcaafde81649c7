"""Repeating dates, after RFC 5545's RRULE (a practical subset)."""

from __future__ import annotations

from datetime import date, timedelta
from itertools import count as counter
from typing import Iterable, Iterator, List, Optional, Union

from .dates import add_months, parse_weekday

FREQUENCIES = ("daily", "weekly", "monthly", "yearly")


class Recurrence:
    """Dates from ``start`` every ``interval`` days, weeks, months or years.

    * ``byweekday`` (weekly rules only) lists the weekdays of each week, as
      numbers (0 = Monday) or names; by default the start's weekday.
    * The rule ends after ``count`` occurrences or on ``until``, which is
      included when it is an occurrence (as in RFC 5545). Without either it
      never ends: use :meth:`between` or :meth:`first`.
    * Monthly and yearly rules keep the start's day of month, clamped to
      shorter months: from January 31 they give February 29 (or 28), then
      March 31.
    * ``exdates`` are left out; as in RFC 5545 they still count towards
      ``count``.
    """

    def __init__(
        self,
        freq: str,
        start: date,
        *,
        interval: int = 1,
        count: Optional[int] = None,
        until: Optional[date] = None,
        byweekday: Optional[Iterable[Union[int, str]]] = None,
        exdates: Optional[Iterable[date]] = None,
    ) -> None:
        if freq not in FREQUENCIES:
            raise ValueError(f"freq must be one of {', '.join(FREQUENCIES)}, got {freq!r}")
        if interval < 1:
            raise ValueError(f"interval must be at least 1, got {interval}")
        if count is not None and until is not None:
            raise ValueError("count and until cannot be combined")
        if count is not None and count < 0:
            raise ValueError(f"count must not be negative, got {count}")
        if byweekday is not None and freq != "weekly":
            raise ValueError("byweekday is only supported for weekly rules")
        self.freq = freq
        self.start = start
        self.interval = interval
        self.count = count
        self.until = until
        days = byweekday if byweekday is not None else [start.weekday()]
        self.byweekday = sorted({parse_weekday(d) if isinstance(d, str) else d for d in days})
        self.exdates = set(exdates or ())

    def exclude(self, day: date) -> None:
        """Leave ``day`` out of the occurrences (an EXDATE)."""
        self.exdates.add(day)

    def __iter__(self) -> Iterator[date]:
        for number, day in enumerate(self._candidates(), start=1):
            if self.until is not None and day > self.until:
                return
            if self.count is not None and number > self.count:
                return
            if day not in self.exdates:
                yield day

    def first(self, n: int) -> List[date]:
        result = []
        for day in self:
            if len(result) == n:
                break
            result.append(day)
        return result

    def between(self, after: date, before: date, *, inclusive: bool = False) -> List[date]:
        """Occurrences strictly between the two dates, or including them."""
        result = []
        for day in self:
            if day > before or (day == before and not inclusive):
                break
            if day > after or (inclusive and day == after):
                result.append(day)
        return result

    def _candidates(self) -> Iterator[date]:
        """Every date the rule generates, before ``until``, ``count`` and
        ``exdates`` apply; strictly increasing and endless."""
        if self.freq == "daily":
            for k in counter():
                yield self.start + timedelta(days=k * self.interval)
        elif self.freq == "weekly":
            monday = self.start - timedelta(days=self.start.weekday())
            for k in counter():
                week = monday + timedelta(weeks=k * self.interval)
                for weekday in self.byweekday:
                    day = week + timedelta(days=weekday)
                    if day >= self.start:
                        yield day
        else:
            months = self.interval * (12 if self.freq == "yearly" else 1)
            for k in counter():
                yield add_months(self.start, k * months)
