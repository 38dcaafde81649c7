from datetime import date

import pytest

from datespan import Recurrence


def test_daily_with_count_and_interval():
    rule = Recurrence("daily", date(2024, 2, 27), interval=2, count=4)
    assert list(rule) == [date(2024, 2, 27), date(2024, 2, 29), date(2024, 3, 2), date(2024, 3, 4)]
    assert list(Recurrence("daily", date(2024, 1, 1), count=0)) == []


def test_weekly_on_named_days():
    rule = Recurrence("weekly", date(2024, 5, 8), byweekday=["mon", "Wednesday", "fri"], count=5)
    assert list(rule) == [date(2024, 5, 8), date(2024, 5, 10), date(2024, 5, 13), date(2024, 5, 15), date(2024, 5, 17)]


def test_every_other_week():
    rule = Recurrence("weekly", date(2024, 4, 2), interval=2, byweekday=[1, 3], count=4)
    assert list(rule) == [date(2024, 4, 2), date(2024, 4, 4), date(2024, 4, 16), date(2024, 4, 18)]


def test_monthly_keeps_day_of_month():
    rule = Recurrence("monthly", date(2024, 1, 15), count=4)
    assert list(rule) == [date(2024, 1, 15), date(2024, 2, 15), date(2024, 3, 15), date(2024, 4, 15)]


def test_monthly_from_the_31st_returns_to_month_end():
    rule = Recurrence("monthly", date(2024, 1, 31), count=5)
    assert list(rule) == [date(2024, 1, 31), date(2024, 2, 29), date(2024, 3, 31), date(2024, 4, 30), date(2024, 5, 31)]


def test_yearly_from_leap_day():
    rule = Recurrence("yearly", date(2024, 2, 29), count=5)
    assert list(rule)[1:] == [date(2025, 2, 28), date(2026, 2, 28), date(2027, 2, 28), date(2028, 2, 29)]


def test_quarterly():
    rule = Recurrence("monthly", date(2024, 1, 10), interval=3, count=3)
    assert list(rule) == [date(2024, 1, 10), date(2024, 4, 10), date(2024, 7, 10)]


def test_until_is_inclusive():
    rule = Recurrence("daily", date(2024, 1, 29), until=date(2024, 1, 31))
    assert list(rule) == [date(2024, 1, 29), date(2024, 1, 30), date(2024, 1, 31)]
    weekly = Recurrence("weekly", date(2024, 1, 1), until=date(2024, 1, 15))
    assert list(weekly)[-1] == date(2024, 1, 15)


def test_until_between_occurrences():
    rule = Recurrence("weekly", date(2024, 1, 1), until=date(2024, 1, 20))
    assert list(rule) == [date(2024, 1, 1), date(2024, 1, 8), date(2024, 1, 15)]


def test_exdates_are_skipped_but_count():
    rule = Recurrence("daily", date(2024, 3, 1), count=4, exdates=[date(2024, 3, 2)])
    assert list(rule) == [date(2024, 3, 1), date(2024, 3, 3), date(2024, 3, 4)]
    rule.exclude(date(2024, 3, 4))
    assert list(rule) == [date(2024, 3, 1), date(2024, 3, 3)]


def test_rules_do_not_share_exdates():
    first = Recurrence("daily", date(2024, 3, 1), count=3)
    first.exclude(date(2024, 3, 2))
    second = Recurrence("daily", date(2024, 3, 1), count=3)
    assert list(second) == [date(2024, 3, 1), date(2024, 3, 2), date(2024, 3, 3)]


def test_exdates_argument_is_not_modified():
    holidays = [date(2024, 12, 25)]
    rule = Recurrence("daily", date(2024, 12, 24), count=3, exdates=holidays)
    rule.exclude(date(2024, 12, 26))
    assert holidays == [date(2024, 12, 25)]


def test_between_and_first_on_endless_rules():
    rule = Recurrence("weekly", date(2024, 1, 3))
    assert rule.between(date(2024, 1, 3), date(2024, 1, 31)) == [date(2024, 1, 10), date(2024, 1, 17), date(2024, 1, 24)]
    assert rule.between(date(2024, 1, 3), date(2024, 1, 31), inclusive=True)[0] == date(2024, 1, 3)
    assert rule.first(2) == [date(2024, 1, 3), date(2024, 1, 10)]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"freq": "hourly"}, "freq must be one of"),
        ({"freq": "daily", "interval": 0}, "interval must be at least 1"),
        ({"freq": "daily", "count": 2, "until": date(2024, 2, 1)}, "cannot be combined"),
        ({"freq": "monthly", "byweekday": ["mon"]}, "only supported for weekly"),
        ({"freq": "weekly", "byweekday": ["someday"]}, "unknown weekday"),
    ],
    ids=["freq", "interval", "count-until", "byweekday-monthly", "bad-weekday"],
)
def test_invalid_rules(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Recurrence(start=date(2024, 1, 1), **kwargs)
