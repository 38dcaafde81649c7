"""Text for offsets and timestamps, the inverse of :mod:`datespan.timestamps`."""

from __future__ import annotations

from datetime import datetime, timedelta


def format_offset(offset: timedelta) -> str:
    """``+05:30``, ``-08:00``; ``Z`` is left to :func:`format_timestamp`."""
    total_minutes = int(offset.total_seconds()) // 60
    sign = "-" if total_minutes < 0 else "+"
    hours, minutes = divmod(abs(total_minutes), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def format_timestamp(moment: datetime, *, utc_as_z: bool = True) -> str:
    """ISO 8601 with seconds; fractions only when present; ``Z`` for UTC."""
    text = moment.replace(tzinfo=None).isoformat(timespec="seconds" if not moment.microsecond else "microseconds")
    offset = moment.utcoffset()
    if offset is None:
        return text
    if offset == timedelta(0) and utc_as_z:
        return text + "Z"
    return text + format_offset(offset)
