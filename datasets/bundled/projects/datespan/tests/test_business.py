from datetime import date, timedelta

import pytest

from datespan import add_business_days, business_days_between, is_business_day

MON = date(2024, 3, 4)


def test_is_business_day():
    assert is_business_day(MON)
    assert not is_business_day(date(2024, 3, 9))
    assert not is_business_day(MON, holidays=[MON])


@pytest.mark.parametrize(
    "start, end, expected",
    [
        (MON, MON, 0),
        (MON, MON + timedelta(days=1), 1),
        (MON, MON + timedelta(days=7), 5),
        (MON, MON + timedelta(days=5), 5),
        (MON + timedelta(days=4), MON + timedelta(days=7), 1),
        (date(2024, 3, 9), date(2024, 3, 11), 0),
        (MON, MON + timedelta(days=365), 261),
        (date(2024, 3, 6), date(2024, 3, 20), 10),
    ],
    ids=["empty", "one-day", "week", "mon-to-sat", "over-weekend", "weekend-only", "year", "wed-to-wed"],
)
def test_business_days_between(start, end, expected):
    assert business_days_between(start, end) == expected


def test_business_days_between_matches_day_by_day_count():
    start = date(2023, 12, 27)
    for length in range(0, 40):
        end = start + timedelta(days=length)
        slow = sum(1 for i in range(length) if (start + timedelta(days=i)).weekday() < 5)
        assert business_days_between(start, end) == slow


def test_business_days_between_reversed_is_negative():
    assert business_days_between(MON + timedelta(days=7), MON) == -5


def test_business_days_between_with_holidays():
    holidays = [date(2024, 3, 6), date(2024, 4, 1)]
    assert business_days_between(MON, MON + timedelta(days=7), holidays) == 4


def test_weekend_and_duplicate_holidays_count_once():
    christmas_on_saturday = date(2027, 12, 25)
    start, end = date(2027, 12, 20), date(2028, 1, 3)
    assert business_days_between(start, end) == 10
    assert business_days_between(start, end, [christmas_on_saturday]) == 10
    assert business_days_between(start, end, [date(2027, 12, 24), date(2027, 12, 24)]) == 9


@pytest.mark.parametrize(
    "start, n, expected",
    [
        (date(2024, 3, 8), 1, date(2024, 3, 11)),
        (date(2024, 3, 4), 5, date(2024, 3, 11)),
        (date(2024, 3, 11), -1, date(2024, 3, 8)),
        (date(2024, 3, 9), 0, date(2024, 3, 11)),
        (date(2024, 3, 6), 0, date(2024, 3, 6)),
    ],
    ids=["friday-plus-one", "a-week", "back-over-weekend", "zero-on-saturday", "zero-on-weekday"],
)
def test_add_business_days(start, n, expected):
    assert add_business_days(start, n) == expected


def test_add_business_days_skips_holidays():
    assert add_business_days(date(2024, 12, 24), 1, holidays=[date(2024, 12, 25), date(2024, 12, 26)]) == date(
        2024, 12, 27
    )
