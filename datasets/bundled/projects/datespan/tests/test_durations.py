from datetime import timedelta

import pytest

from datespan import format_duration, parse_duration


@pytest.mark.parametrize(
    "text, expected",
    [
        ("90s", timedelta(seconds=90)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("2d 4h", timedelta(days=2, hours=4)),
        ("1.5h", timedelta(minutes=90)),
        ("1w", timedelta(weeks=1)),
        ("10M", timedelta(minutes=10)),
        ("-15m", timedelta(minutes=-15)),
    ],
    ids=["seconds", "hours-minutes", "days-hours-spaced", "fraction", "week", "uppercase", "negative"],
)
def test_parse_compact(text, expected):
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("PT1H30M", timedelta(hours=1, minutes=30)),
        ("P1DT2H", timedelta(days=1, hours=2)),
        ("P2W", timedelta(weeks=2)),
        ("PT0.5S", timedelta(milliseconds=500)),
        ("P3D", timedelta(days=3)),
        ("-PT10M", timedelta(minutes=-10)),
    ],
    ids=["time", "date-time", "weeks", "fraction", "days", "negative"],
)
def test_parse_iso(text, expected):
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "abc", "1x", "1h junk", "P", "PT", "P1DT", "h1"],
    ids=["empty", "word", "unit", "trailing-junk", "bare-p", "bare-pt", "dangling-t", "unit-first"],
)
def test_parse_rejects(text):
    with pytest.raises(ValueError, match="not"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["P1Y", "P2M", "P1Y2M3D"])
def test_parse_refuses_years_and_months(text):
    with pytest.raises(ValueError, match="no fixed length"):
        parse_duration(text)


@pytest.mark.parametrize(
    "duration, text",
    [
        (timedelta(0), "0s"),
        (timedelta(seconds=45), "45s"),
        (timedelta(hours=1, minutes=30), "1h 30m"),
        (timedelta(days=1, hours=2, minutes=5, seconds=3), "1d 2h 5m 3s"),
        (timedelta(days=9), "9d"),
        (timedelta(minutes=-90), "-1h 30m"),
        (timedelta(seconds=61.4), "1m 1s"),
    ],
    ids=["zero", "seconds", "hours-minutes", "all-units", "days-only", "negative", "rounds-down"],
)
def test_format_duration(duration, text):
    assert format_duration(duration) == text


@pytest.mark.parametrize(
    "duration, text",
    [
        (timedelta(seconds=59.6), "1m"),
        (timedelta(minutes=1, seconds=59.7), "2m"),
        (timedelta(hours=23, minutes=59, seconds=59.5), "1d"),
        (timedelta(seconds=-59.9), "-1m"),
    ],
    ids=["to-minute", "to-minutes", "to-day", "negative"],
)
def test_format_duration_rounds_before_splitting(duration, text):
    assert format_duration(duration) == text


def test_format_parse_round_trip():
    for seconds in (1, 59, 60, 3599, 3600, 86399, 86400, 90061, 1_000_000):
        duration = timedelta(seconds=seconds)
        assert parse_duration(format_duration(duration).replace(" ", "")) == duration
