"""datespan: calendar arithmetic, business days, durations, timestamps, intervals and recurrences."""

from .business import add_business_days, business_days_between, is_business_day
from .dates import add_months, days_in_month, end_of_month, is_leap_year, nth_weekday, parse_weekday
from .durations import format_duration, parse_duration
from .formatting import format_offset, format_timestamp
from .intervals import Interval, gaps, merge, total_duration
from .recurrence import Recurrence
from .timestamps import parse_timestamp, to_utc

__all__ = [
    "Interval",
    "Recurrence",
    "add_business_days",
    "add_months",
    "business_days_between",
    "days_in_month",
    "end_of_month",
    "format_duration",
    "format_offset",
    "format_timestamp",
    "gaps",
    "is_business_day",
    "is_leap_year",
    "merge",
    "nth_weekday",
    "parse_duration",
    "parse_timestamp",
    "parse_weekday",
    "to_utc",
    "total_duration",
]

__version__ = "0.9.2"
