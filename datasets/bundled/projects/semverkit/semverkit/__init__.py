"""semverkit: Semantic Versioning 2.0.0 versions and npm-style ranges."""

from .ops import diff, max_satisfying, min_satisfying, sort_versions
from .ranges import Comparator, InvalidRange, Range
from .version import InvalidVersion, Version, coerce

__all__ = [
    "Comparator",
    "InvalidRange",
    "InvalidVersion",
    "Range",
    "Version",
    "coerce",
    "diff",
    "max_satisfying",
    "min_satisfying",
    "satisfies",
    "sort_versions",
]

__version__ = "3.0.1"


def satisfies(version, range_text: str, *, include_prerelease: bool = False) -> bool:
    """Whether ``version`` (text or :class:`Version`) is in the range."""
    return Range(range_text, include_prerelease=include_prerelease).test(version)
