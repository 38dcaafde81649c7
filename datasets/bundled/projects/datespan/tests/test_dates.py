from datetime import date

import pytest

from datespan import add_months, days_in_month, end_of_month, is_leap_year, nth_weekday, parse_weekday


@pytest.mark.parametrize(
    "year, leap",
    [(2024, True), (2023, False), (1996, True), (2000, True), (1900, False), (2100, False), (2400, True)],
)
def test_is_leap_year(year, leap):
    assert is_leap_year(year) is leap


@pytest.mark.parametrize(
    "year, month, days",
    [(2023, 1, 31), (2023, 2, 28), (2024, 2, 29), (2023, 4, 30), (2023, 12, 31)],
)
def test_days_in_month(year, month, days):
    assert days_in_month(year, month) == days


def test_days_in_month_rejects_bad_month():
    with pytest.raises(ValueError, match="month must be in 1..12, got 13"):
        days_in_month(2024, 13)


@pytest.mark.parametrize(
    "start, months, expected",
    [
        (date(2024, 1, 15), 1, date(2024, 2, 15)),
        (date(2024, 1, 31), 1, date(2024, 2, 29)),
        (date(2023, 1, 31), 1, date(2023, 2, 28)),
        (date(2024, 3, 31), 1, date(2024, 4, 30)),
        (date(2024, 5, 31), -3, date(2024, 2, 29)),
        (date(2024, 12, 15), 1, date(2025, 1, 15)),
        (date(2024, 2, 10), -3, date(2023, 11, 10)),
        (date(2024, 6, 30), 19, date(2026, 1, 30)),
        (date(2024, 8, 8), 0, date(2024, 8, 8)),
    ],
    ids=["simple", "clamp-leap", "clamp", "clamp-30", "back-clamp", "year-forward", "year-back", "many", "zero"],
)
def test_add_months(start, months, expected):
    assert add_months(start, months) == expected


@pytest.mark.parametrize(
    "start, months, expected",
    [
        (date(2024, 11, 15), 1, date(2024, 12, 15)),
        (date(2025, 1, 31), -1, date(2024, 12, 31)),
        (date(2024, 3, 31), 9, date(2024, 12, 31)),
        (date(2023, 12, 1), 12, date(2024, 12, 1)),
    ],
    ids=["forward", "back-across-year", "clamp-free", "whole-year"],
)
def test_add_months_into_december(start, months, expected):
    assert add_months(start, months) == expected


def test_add_months_round_trip_when_no_clamping():
    start = date(2023, 5, 17)
    for months in range(-30, 31, 7):
        assert add_months(add_months(start, months), -months) == start


def test_end_of_month():
    assert end_of_month(date(2024, 2, 3)) == date(2024, 2, 29)
    assert end_of_month(date(2023, 9, 30)) == date(2023, 9, 30)


@pytest.mark.parametrize("name, index", [("mon", 0), ("Monday", 0), ("wed", 2), ("THURS", 3), ("sun", 6)])
def test_parse_weekday(name, index):
    assert parse_weekday(name) == index


@pytest.mark.parametrize("name", ["mo", "funday", "", "mondays"])
def test_parse_weekday_rejects(name):
    with pytest.raises(ValueError, match="unknown weekday"):
        parse_weekday(name)


@pytest.mark.parametrize(
    "year, month, weekday, n, expected",
    [
        (2024, 5, 0, 1, date(2024, 5, 6)),
        (2024, 11, 3, 4, date(2024, 11, 28)),
        (2024, 5, 0, -1, date(2024, 5, 27)),
        (2024, 6, 6, -1, date(2024, 6, 30)),
        (2024, 6, 5, 1, date(2024, 6, 1)),
        (2024, 9, 0, -2, date(2024, 9, 23)),
    ],
    ids=["first-monday", "thanksgiving", "memorial-day", "last-is-month-end", "first-is-first", "second-last"],
)
def test_nth_weekday(year, month, weekday, n, expected):
    assert nth_weekday(year, month, weekday, n) == expected


def test_nth_weekday_missing_fifth():
    with pytest.raises(ValueError, match="has no weekday"):
        nth_weekday(2024, 2, 0, 5)
    with pytest.raises(ValueError, match="n must be"):
        nth_weekday(2024, 2, 0, 0)
