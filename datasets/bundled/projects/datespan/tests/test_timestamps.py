from datetime import datetime, timedelta, timezone

import pytest

from datespan import format_offset, format_timestamp, parse_timestamp, to_utc


@pytest.mark.parametrize(
    "text, offset",
    [
        ("2024-03-10T12:00:00Z", timedelta(0)),
        ("2024-03-10T12:00:00+05:30", timedelta(hours=5, minutes=30)),
        ("2024-03-10T12:00:00-08:00", timedelta(hours=-8)),
        ("2024-03-10T12:00:00-0800", timedelta(hours=-8)),
        ("2024-03-10T12:00:00+0545", timedelta(hours=5, minutes=45)),
        ("2024-03-10 12:00z", timedelta(0)),
    ],
    ids=["utc", "india", "pacific", "compact", "nepal", "space-lowercase-z"],
)
def test_parse_timestamp_offsets(text, offset):
    moment = parse_timestamp(text)
    assert moment.utcoffset() == offset
    assert (moment.hour, moment.minute) == (12, 0)


def test_parse_timestamp_without_offset_is_naive():
    moment = parse_timestamp("2024-03-10T08:15:30.25")
    assert moment == datetime(2024, 3, 10, 8, 15, 30, 250000)
    assert moment.tzinfo is None


@pytest.mark.parametrize("text", ["2024-03-10", "2024-03-10T25:00:00", "yesterday", "2024-03-10T12:00:00+24:00"])
def test_parse_timestamp_rejects(text):
    with pytest.raises(ValueError):
        parse_timestamp(text)


def test_to_utc():
    assert to_utc(parse_timestamp("2024-03-10T12:00:00+05:30")) == datetime(2024, 3, 10, 6, 30, tzinfo=timezone.utc)
    assert to_utc(parse_timestamp("2024-03-10T20:00:00-08:00")) == datetime(2024, 3, 11, 4, 0, tzinfo=timezone.utc)
    with pytest.raises(ValueError, match="naive"):
        to_utc(datetime(2024, 1, 1))


def test_negative_offsets_with_minutes():
    newfoundland = parse_timestamp("2024-01-15T10:00:00-03:30")
    assert newfoundland.utcoffset() == -timedelta(hours=3, minutes=30)
    assert to_utc(newfoundland) == datetime(2024, 1, 15, 13, 30, tzinfo=timezone.utc)
    marquesas = parse_timestamp("2024-01-15T10:00:00-0930")
    assert to_utc(marquesas).hour == 19 and to_utc(marquesas).minute == 30


@pytest.mark.parametrize(
    "offset, text",
    [
        (timedelta(0), "+00:00"),
        (timedelta(hours=5, minutes=30), "+05:30"),
        (timedelta(hours=-8), "-08:00"),
        (timedelta(hours=12, minutes=45), "+12:45"),
    ],
)
def test_format_offset(offset, text):
    assert format_offset(offset) == text


def test_format_negative_offset_with_minutes():
    assert format_offset(-timedelta(hours=3, minutes=30)) == "-03:30"
    assert format_offset(-timedelta(minutes=30)) == "-00:30"
    assert format_timestamp(datetime(2024, 1, 15, 10, 0, tzinfo=timezone(-timedelta(hours=9, minutes=30)))) == (
        "2024-01-15T10:00:00-09:30"
    )


def test_format_timestamp():
    assert format_timestamp(datetime(2024, 3, 10, 12, 0, tzinfo=timezone.utc)) == "2024-03-10T12:00:00Z"
    assert format_timestamp(datetime(2024, 3, 10, 12, 0, tzinfo=timezone.utc), utc_as_z=False) == (
        "2024-03-10T12:00:00+00:00"
    )
    assert format_timestamp(datetime(2024, 3, 10, 12, 0, 5, 120000)) == "2024-03-10T12:00:05.120000"


@pytest.mark.parametrize(
    "text",
    ["2024-03-10T12:00:00Z", "2024-03-10T12:00:00+05:30", "2024-07-01T00:00:00-04:00", "2024-07-01T23:59:59.500000+01:00"],
)
def test_round_trip(text):
    assert format_timestamp(parse_timestamp(text)) == text
