"""Operations on collections of versions."""

from __future__ import annotations

from typing import Iterable, List, Optional, TypeVar, Union

from .ranges import Range
from .version import Version

V = TypeVar("V", str, Version)


def as_version(item: Union[str, Version]) -> Version:
    return item if isinstance(item, Version) else Version.parse(item)


def sort_versions(items: Iterable[V], *, reverse: bool = False) -> List[V]:
    """The items (strings or versions) in precedence order; items of equal
    precedence keep their order."""
    return sorted(items, key=as_version, reverse=reverse)


def max_satisfying(items: Iterable[V], range_: Union[str, Range], *, include_prerelease: bool = False) -> Optional[V]:
    """The highest item that satisfies ``range_``, returned as given (string
    or version); None when none does."""
    matching = _satisfying(items, range_, include_prerelease)
    return max(matching, key=as_version) if matching else None


def min_satisfying(items: Iterable[V], range_: Union[str, Range], *, include_prerelease: bool = False) -> Optional[V]:
    matching = _satisfying(items, range_, include_prerelease)
    return min(matching, key=as_version) if matching else None


def _satisfying(items: Iterable[V], range_: Union[str, Range], include_prerelease: bool) -> List[V]:
    if isinstance(range_, str):
        range_ = Range(range_, include_prerelease=include_prerelease)
    return [item for item in items if range_.test(as_version(item))]


def diff(a: Union[str, Version], b: Union[str, Version]) -> Optional[str]:
    """The most significant part in which two versions differ: ``"major"``,
    ``"minor"``, ``"patch"`` or ``"prerelease"``; None when they are equal.
    Build metadata is ignored."""
    first, second = as_version(a), as_version(b)
    if first == second:
        return None
    for part in ("major", "minor", "patch"):
        if getattr(first, part) != getattr(second, part):
            return part
    return "prerelease"
