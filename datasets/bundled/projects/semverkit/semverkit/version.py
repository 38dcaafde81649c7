"""Versions as defined by Semantic Versioning 2.0.0 (https://semver.org)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Optional, Tuple, Union

Identifier = Union[int, str]

_NUMBER = r"0|[1-9]\d*"
_IDENTIFIERS = r"[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*"
_VERSION = re.compile(
    rf"v?(?P<major>{_NUMBER})\.(?P<minor>{_NUMBER})\.(?P<patch>{_NUMBER})"
    rf"(?:-(?P<prerelease>{_IDENTIFIERS}))?(?:\+(?P<build>{_IDENTIFIERS}))?"
)
BUMPS = ("major", "minor", "patch", "prerelease")


class InvalidVersion(ValueError):
    pass


def parse_prerelease(text: str) -> Tuple[Identifier, ...]:
    """``"rc.1"`` → ``("rc", 1)``. Numeric identifiers become ints and may not
    have leading zeros."""
    identifiers = []
    for part in text.split("."):
        if part.isdigit():
            if len(part) > 1 and part[0] == "0":
                raise InvalidVersion(f"numeric identifier {part!r} has a leading zero")
            identifiers.append(int(part))
        else:
            identifiers.append(part)
    return tuple(identifiers)


@functools.total_ordering
@dataclass(frozen=True)
class Version:
    """An immutable version. Equality and ordering follow SemVer precedence:
    build metadata is ignored, a prerelease sorts before its release, and
    prerelease identifiers compare numerically when numeric, lexically
    otherwise, numeric before alphanumeric, a shorter list first."""

    major: int
    minor: int
    patch: int
    prerelease: Tuple[Identifier, ...] = ()
    build: Tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Version:
        """Parses ``1.2.3``, ``v1.2.3``, ``1.2.3-rc.1+build.5``; surrounding
        whitespace is ignored."""
        match = _VERSION.fullmatch(text.strip())
        if not match:
            raise InvalidVersion(f"not a semantic version: {text!r}")
        prerelease = parse_prerelease(match["prerelease"]) if match["prerelease"] else ()
        build = tuple(match["build"].split(".")) if match["build"] else ()
        return cls(int(match["major"]), int(match["minor"]), int(match["patch"]), prerelease, build)

    @property
    def release(self) -> Tuple[int, int, int]:
        return (self.major, self.minor, self.patch)

    @property
    def is_prerelease(self) -> bool:
        return bool(self.prerelease)

    def precedence_key(self) -> Tuple[Any, ...]:
        # A release sorts after all of its prereleases; within a prerelease,
        # (0, n) for numbers sorts before (1, text) for words.
        identifiers = tuple((0, part, "") if isinstance(part, int) else (1, 0, part) for part in self.prerelease)
        return (*self.release, 0 if self.prerelease else 1, identifiers)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.precedence_key() == other.precedence_key()

    def __lt__(self, other: Version) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.precedence_key() < other.precedence_key()

    def __hash__(self) -> int:
        return hash(self.precedence_key())

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += "-" + ".".join(str(part) for part in self.prerelease)
        if self.build:
            text += "+" + ".".join(self.build)
        return text

    def bump(self, part: str, token: Optional[str] = None) -> Version:
        """The next version, as ``npm version <part>`` computes it.

        A prerelease bumps to its own release when that is the requested
        level: ``1.2.3-rc.1`` → patch → ``1.2.3``, ``2.0.0-rc.1`` → major →
        ``2.0.0``. ``prerelease`` increments the last numeric identifier
        (``rc.1`` → ``rc.2``), or starts ``<token>.0`` on the next patch.
        """
        if part not in BUMPS:
            raise ValueError(f"part must be one of {', '.join(BUMPS)}, got {part!r}")
        major, minor, patch = self.release
        if part == "major":
            if self.prerelease and minor == 0 and patch == 0:
                return Version(major, 0, 0)
            return Version(major + 1, 0, 0)
        if part == "minor":
            if self.prerelease and patch == 0:
                return Version(major, minor, 0)
            return Version(major, minor + 1, 0)
        if part == "patch":
            return Version(major, minor, patch if self.prerelease else patch + 1)
        return self._bump_prerelease(token)

    def _bump_prerelease(self, token: Optional[str]) -> Version:
        if not self.prerelease:
            return Version(self.major, self.minor, self.patch + 1, (token, 0) if token else (0,))
        identifiers = list(self.prerelease)
        if token and identifiers[0] != token:
            return Version(*self.release, (token, 0))
        for index in range(len(identifiers) - 1, -1, -1):
            if isinstance(identifiers[index], int):
                identifiers[index] += 1
                return Version(*self.release, tuple(identifiers))
        return Version(*self.release, (*identifiers, 0))


def coerce(text: str) -> Optional[Version]:
    """The first ``major[.minor[.patch]]`` in ``text``, zero-filled: ``"v2"``
    → 2.0.0, ``"release 1.4 final"`` → 1.4.0; None when there is none."""
    match = re.search(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?", text)
    if not match:
        return None
    return Version(*(int(group or 0) for group in match.groups()))
