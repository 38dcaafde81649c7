"""ISO 8601 timestamps with fixed UTC offsets (no time-zone database needed)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

_TIMESTAMP = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)"
    r"(?:(?P<utc>Z)|(?P<sign>[+-])(?P<hours>\d{2}):?(?P<minutes>\d{2}))?$",
    re.IGNORECASE,
)


def parse_offset(sign: str, hours: str, minutes: str) -> timezone:
    if int(hours) > 23 or int(minutes) > 59:
        raise ValueError(f"UTC offset out of range: {sign}{hours}:{minutes}")
    offset = timedelta(hours=int(hours), minutes=int(minutes))
    return timezone(-offset if sign == "-" else offset)


def parse_timestamp(text: str) -> datetime:
    """``2024-03-10T12:00:00+05:30``, ``...Z``, ``...-0800`` or no offset (naive).

    Seconds and up to six fraction digits are optional; a space may replace
    the ``T``.
    """
    match = _TIMESTAMP.match(text.strip())
    if not match:
        raise ValueError(f"not an ISO 8601 timestamp: {text!r}")
    naive = datetime.fromisoformat(f"{match['date']}T{match['time']}")
    if match["utc"]:
        return naive.replace(tzinfo=timezone.utc)
    if match["sign"]:
        return naive.replace(tzinfo=parse_offset(match["sign"], match["hours"], match["minutes"]))
    return naive


def to_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"cannot convert naive {moment.isoformat()} to UTC: its offset is unknown")
    return moment.astimezone(timezone.utc)
