"""Durations as text: ``1h30m``, ``2d 4h``, ``1.5h``, ``90s`` or ISO 8601 ``P1DT2H30M``."""

from __future__ import annotations

import re
from datetime import timedelta

UNITS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}
_COMPACT_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([wdhms])", re.IGNORECASE)
_ISO = re.compile(
    r"P(?:(?P<w>\d+(?:\.\d+)?)W)?(?:(?P<d>\d+(?:\.\d+)?)D)?"
    r"(?:T(?:(?P<h>\d+(?:\.\d+)?)H)?(?:(?P<m>\d+(?:\.\d+)?)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?",
    re.IGNORECASE,
)


def parse_duration(text: str) -> timedelta:
    """A :class:`~datetime.timedelta` from compact or ISO 8601 text; a leading
    ``-`` negates. Years and months are refused: they have no fixed length."""
    stripped = text.strip()
    negative = stripped.startswith("-")
    body = stripped[1:].strip() if negative else stripped
    seconds = _parse_iso(body) if body[:1].upper() == "P" else _parse_compact(body)
    result = timedelta(seconds=seconds)
    return -result if negative else result


def _parse_iso(body: str) -> float:
    date_part = body.upper().partition("T")[0]
    if "Y" in date_part or "M" in date_part:
        raise ValueError(f"years and months have no fixed length: {body!r}")
    match = _ISO.fullmatch(body)
    if not match or not any(match.groupdict().values()) or body.upper().endswith("T"):
        raise ValueError(f"not an ISO 8601 duration: {body!r}")
    return sum(float(value) * UNITS[unit.lower()] for unit, value in match.groupdict().items() if value)


def _parse_compact(body: str) -> float:
    position = 0
    total = 0.0
    for match in _COMPACT_PART.finditer(body):
        if body[position : match.start()].strip():
            break
        total += float(match[1]) * UNITS[match[2].lower()]
        position = match.end()
    if position == 0 or body[position:].strip():
        raise ValueError(f"not a duration: {body!r} (try 1h30m, 90s or PT1H30M)")
    return total


def format_duration(duration: timedelta) -> str:
    """``1d 2h 5m 3s``, largest unit days, rounded to whole seconds; ``0s``
    for zero and a leading ``-`` for negative durations."""
    total = round(duration.total_seconds())
    if total == 0:
        return "0s"
    sign = "-" if total < 0 else ""
    remaining = abs(total)
    parts = []
    for unit in ("d", "h", "m", "s"):
        amount, remaining = divmod(remaining, UNITS[unit])
        if amount:
            parts.append(f"{amount}{unit}")
    return sign + " ".join(parts)
