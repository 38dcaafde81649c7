"""Half-open intervals ``[start, end)`` of dates or datetimes, and sets of them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Iterable, List, Optional


@dataclass(frozen=True, order=True)
class Interval:
    """``start`` is inside the interval, ``end`` is not: a meeting from 9:00 to
    10:00 and one from 10:00 to 11:00 touch but do not overlap."""

    start: Any
    end: Any

    def __post_init__(self) -> None:
        if not self.start < self.end:
            raise ValueError(f"an interval needs start < end, got {self.start} .. {self.end}")

    @property
    def duration(self) -> timedelta:
        return self.end - self.start

    def contains(self, moment: Any) -> bool:
        return self.start <= moment < self.end

    def covers(self, other: Interval) -> bool:
        return self.start <= other.start and other.end <= self.end

    def overlaps(self, other: Interval) -> bool:
        return self.start < other.end and other.start < self.end

    def touches(self, other: Interval) -> bool:
        return self.end == other.start or other.end == self.start

    def intersection(self, other: Interval) -> Optional[Interval]:
        if not self.overlaps(other):
            return None
        return Interval(max(self.start, other.start), min(self.end, other.end))

    def shift(self, delta: timedelta) -> Interval:
        return Interval(self.start + delta, self.end + delta)

    def split(self, step: timedelta) -> List[Interval]:
        """Consecutive pieces of length ``step``; the last one may be shorter."""
        if step <= timedelta(0):
            raise ValueError(f"step must be positive, got {step}")
        pieces = []
        cursor = self.start
        while cursor < self.end:
            pieces.append(Interval(cursor, min(cursor + step, self.end)))
            cursor += step
        return pieces


def merge(intervals: Iterable[Interval]) -> List[Interval]:
    """The union as sorted, disjoint intervals; overlapping or touching ones join."""
    merged: List[Interval] = []
    for interval in sorted(intervals):
        if merged and interval.start <= merged[-1].end:
            last = merged[-1]
            merged[-1] = Interval(last.start, max(last.end, interval.end))
        else:
            merged.append(interval)
    return merged


def gaps(intervals: Iterable[Interval], within: Interval) -> List[Interval]:
    """The parts of ``within`` that no interval covers: free slots in a calendar."""
    free = []
    cursor = within.start
    for busy in merge(intervals):
        if busy.start >= within.end:
            break
        if busy.start > cursor:
            free.append(Interval(cursor, busy.start))
        cursor = max(cursor, busy.end)
    if cursor < within.end:
        free.append(Interval(cursor, within.end))
    return free


def total_duration(intervals: Iterable[Interval]) -> timedelta:
    """Time covered by at least one interval; overlaps count once."""
    return sum((interval.duration for interval in merge(intervals)), timedelta(0))
