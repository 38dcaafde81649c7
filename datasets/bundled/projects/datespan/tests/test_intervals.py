from datetime import date, datetime, timedelta

import pytest

from datespan import Interval, gaps, merge, total_duration


def at(hour, minute=0):
    return datetime(2024, 5, 6, hour, minute)


def iv(start, end):
    return Interval(at(start), at(end))


def test_interval_needs_start_before_end():
    with pytest.raises(ValueError, match="start < end"):
        Interval(at(10), at(10))
    with pytest.raises(ValueError):
        Interval(at(11), at(10))


def test_contains_is_half_open():
    meeting = iv(9, 10)
    assert meeting.contains(at(9))
    assert meeting.contains(at(9, 59))
    assert not meeting.contains(at(10))


def test_overlaps_and_intersection():
    assert iv(9, 11).overlaps(iv(10, 12))
    assert iv(9, 11).intersection(iv(10, 12)) == iv(10, 11)
    assert iv(9, 17).intersection(iv(12, 13)) == iv(12, 13)
    assert not iv(9, 10).overlaps(iv(11, 12))
    assert iv(9, 10).intersection(iv(11, 12)) is None


def test_adjacent_intervals_do_not_overlap():
    morning, noon = iv(9, 12), iv(12, 13)
    assert not morning.overlaps(noon)
    assert not noon.overlaps(morning)
    assert morning.intersection(noon) is None
    assert morning.touches(noon)


def test_covers_and_duration():
    day = Interval(date(2024, 5, 1), date(2024, 5, 8))
    assert day.duration == timedelta(days=7)
    assert day.covers(Interval(date(2024, 5, 1), date(2024, 5, 8)))
    assert not day.covers(Interval(date(2024, 4, 30), date(2024, 5, 2)))


def test_shift_and_split():
    assert iv(9, 10).shift(timedelta(hours=2)) == iv(11, 12)
    assert iv(9, 11).split(timedelta(minutes=45)) == [
        Interval(at(9), at(9, 45)),
        Interval(at(9, 45), at(10, 30)),
        Interval(at(10, 30), at(11)),
    ]
    with pytest.raises(ValueError, match="step must be positive"):
        iv(9, 10).split(timedelta(0))


@pytest.mark.parametrize(
    "intervals, expected",
    [
        ([], []),
        ([(9, 10)], [(9, 10)]),
        ([(9, 11), (10, 12)], [(9, 12)]),
        ([(13, 14), (9, 10)], [(9, 10), (13, 14)]),
        ([(9, 10), (10, 11)], [(9, 11)]),
        ([(14, 15), (9, 11), (10, 12), (15, 16)], [(9, 12), (14, 16)]),
    ],
    ids=["empty", "single", "overlapping", "unsorted-disjoint", "touching", "mixed"],
)
def test_merge(intervals, expected):
    assert merge(iv(a, b) for a, b in intervals) == [iv(a, b) for a, b in expected]


def test_merge_keeps_the_longer_end():
    assert merge([iv(9, 17), iv(12, 13)]) == [iv(9, 17)]
    assert merge([iv(9, 17), iv(10, 11), iv(12, 13), iv(16, 18)]) == [iv(9, 18)]


def test_gaps():
    day = iv(9, 17)
    busy = [iv(10, 11), iv(13, 14), iv(13, 15)]
    assert gaps(busy, day) == [iv(9, 10), iv(11, 13), iv(15, 17)]
    assert gaps([], day) == [day]
    assert gaps([iv(8, 18)], day) == []
    assert gaps([iv(7, 8), iv(16, 19)], day) == [iv(9, 16)]


def test_gaps_around_a_long_meeting_with_a_short_one_inside():
    assert gaps([iv(10, 15), iv(11, 12)], iv(9, 17)) == [iv(9, 10), iv(15, 17)]


def test_total_duration_counts_overlaps_once():
    assert total_duration([iv(9, 11), iv(10, 12), iv(14, 15)]) == timedelta(hours=4)
    assert total_duration([iv(9, 17), iv(9, 12)]) == timedelta(hours=8)
    assert total_duration([]) == timedelta(0)
