"""npm-style version ranges: ``>=1.2.3 <2.0.0``, ``^1.2``, ``~1.2.3``,
``1.x``, ``1.2.3 - 2.3`` and unions with ``||``.

Every range is reduced to sets of primitive comparators (``<``, ``<=``,
``>``, ``>=``, ``=``); a version satisfies the range when it satisfies every
comparator of at least one set. Upper bounds that come from a partial
version exclude that version's prereleases (``<2.0.0-0``), as npm does.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple, Union

from .version import InvalidVersion, Version, parse_prerelease

_OPERATORS: Dict[str, Callable[[Version, Version], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "=": operator.eq,
}
_PART = r"0|[1-9]\d*|[xX*]"
_PARTIAL = re.compile(
    rf"(?P<op><=|>=|<|>|=|\^|~)?v?(?P<major>{_PART})(?:\.(?P<minor>{_PART}))?(?:\.(?P<patch>{_PART}))?"
    r"(?:-(?P<prerelease>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)
ZERO = Version(0, 0, 0)
NOTHING = Version(0, 0, 0, (0,))


class InvalidRange(ValueError):
    pass


@dataclass(frozen=True)
class Comparator:
    op: str
    version: Version

    def test(self, version: Version) -> bool:
        return _OPERATORS[self.op](version, self.version)

    def __str__(self) -> str:
        return f"{'' if self.op == '=' else self.op}{self.version}"


@dataclass(frozen=True)
class Partial:
    """A version whose minor and patch may be missing or wildcards (None)."""

    major: Optional[int]
    minor: Optional[int]
    patch: Optional[int]
    prerelease: Tuple[Union[int, str], ...]

    def floor(self) -> Version:
        return Version(self.major or 0, self.minor or 0, self.patch or 0, self.prerelease)

    def next_up(self) -> Version:
        """The first release above everything this partial matches."""
        if self.minor is None:
            return Version(self.major + 1, 0, 0)
        return Version(self.major, self.minor + 1, 0)


def below(version: Version) -> Version:
    """The lowest prerelease of ``version``: an exclusive upper bound that
    also keeps that version's prereleases out."""
    return Version(*version.release, (0,))


class Range:
    """A parsed range. With ``include_prerelease``, prereleases are matched like
    any other version; by default a prerelease only matches a comparator set
    that itself names a prerelease of the same major.minor.patch."""

    def __init__(self, text: str, *, include_prerelease: bool = False) -> None:
        self.text = text
        self.include_prerelease = include_prerelease
        self.sets: List[List[Comparator]] = [parse_set(part, text) for part in text.split("||")]

    def test(self, version: Union[str, Version]) -> bool:
        if isinstance(version, str):
            version = Version.parse(version)
        return any(self._test_set(comparators, version) for comparators in self.sets)

    def _test_set(self, comparators: List[Comparator], version: Version) -> bool:
        if not all(comparator.test(version) for comparator in comparators):
            return False
        if version.prerelease and not self.include_prerelease:
            return any(c.version.prerelease and c.version.release == version.release for c in comparators)
        return True

    def __contains__(self, version: Union[str, Version]) -> bool:
        return self.test(version)

    def __str__(self) -> str:
        return " || ".join(" ".join(str(c) for c in comparators) for comparators in self.sets)

    def __repr__(self) -> str:
        return f"Range({self.text!r})"


def parse_set(text: str, whole: str) -> List[Comparator]:
    """The comparators of one ``||``-separated part of a range."""
    text = re.sub(r"(<=|>=|<|>|=|\^|~)\s+", r"\1", text.strip())
    hyphen = re.fullmatch(r"(\S+)\s+-\s+(\S+)", text)
    if hyphen:
        return hyphen_range(parse_partial(hyphen[1], whole)[1], parse_partial(hyphen[2], whole)[1])
    comparators: List[Comparator] = []
    for token in text.split():
        op, partial = parse_partial(token, whole)
        comparators.extend(expand(op, partial))
    return comparators or [Comparator(">=", ZERO)]


def parse_partial(token: str, whole: str) -> Tuple[str, Partial]:
    match = _PARTIAL.fullmatch(token)
    if not match:
        raise InvalidRange(f"invalid comparator {token!r} in range {whole!r}")
    major, minor, patch = (_number(match[name]) for name in ("major", "minor", "patch"))
    if major is None:
        minor = patch = None
    elif minor is None:
        patch = None
    try:
        prerelease = parse_prerelease(match["prerelease"]) if match["prerelease"] else ()
    except InvalidVersion as error:
        raise InvalidRange(f"{error} in range {whole!r}") from None
    if prerelease and patch is None:
        raise InvalidRange(f"a prerelease needs a full version: {token!r} in range {whole!r}")
    return match["op"] or "=", Partial(major, minor, patch, prerelease)


def _number(text: Optional[str]) -> Optional[int]:
    return None if text is None or text in "xX*" else int(text)


def expand(op: str, partial: Partial) -> List[Comparator]:
    if op == "^":
        return caret(partial)
    if op == "~":
        return tilde(partial)
    if partial.major is None:
        return [Comparator("<", NOTHING)] if op in ("<", ">") else [Comparator(">=", ZERO)]
    if partial.patch is not None:
        return [Comparator(op, partial.floor())]
    if op == "=":
        return [Comparator(">=", partial.floor()), Comparator("<", below(partial.next_up()))]
    if op == ">":
        return [Comparator(">=", partial.next_up())]
    if op == "<=":
        return [Comparator("<", below(partial.next_up()))]
    if op == "<":
        return [Comparator("<", below(partial.floor()))]
    return [Comparator(">=", partial.floor())]


def caret(partial: Partial) -> List[Comparator]:
    """Changes that do not modify the left-most non-zero part."""
    if partial.major is None:
        return [Comparator(">=", ZERO)]
    lower = Comparator(">=", partial.floor())
    major, minor, patch = partial.major, partial.minor, partial.patch
    if major > 0 or minor is None:
        upper = Version(major + 1, 0, 0)
    elif minor > 0 or patch is None:
        upper = Version(0, minor + 1, 0)
    else:
        upper = Version(0, 0, patch + 1)
    return [lower, Comparator("<", below(upper))]


def tilde(partial: Partial) -> List[Comparator]:
    """Patch-level changes if a minor version is given, else minor-level ones."""
    if partial.major is None:
        return [Comparator(">=", ZERO)]
    return [Comparator(">=", partial.floor()), Comparator("<", below(partial.next_up()))]


def hyphen_range(lower: Partial, upper: Partial) -> List[Comparator]:
    """``A - B``: inclusive; a partial upper bound covers everything it matches."""
    comparators = [Comparator(">=", lower.floor())] if lower.major is not None else []
    if upper.major is None:
        return comparators or [Comparator(">=", ZERO)]
    if upper.patch is None:
        comparators.append(Comparator("<", below(upper.next_up())))
    else:
        comparators.append(Comparator("<=", upper.floor()))
    return comparators
