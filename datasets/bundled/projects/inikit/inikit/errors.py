"""Exceptions raised by inikit. All of them derive from :class:`InikitError`."""

from __future__ import annotations


class InikitError(Exception):
    """Base class of every error inikit raises on purpose."""


class ParseError(InikitError):
    """The text is not valid inikit syntax.

    ``lineno`` is 1-based, as editors show it, so the message can be pasted
    straight into a "go to line" prompt.
    """

    def __init__(self, message: str, source: str, lineno: int, line: str) -> None:
        super().__init__(f"{source}:{lineno}: {message}: {line.strip()!r}")
        self.message = message
        self.source = source
        self.lineno = lineno
        self.line = line


class NoSectionError(InikitError, LookupError):
    def __init__(self, section: str) -> None:
        super().__init__(f"no section [{section}]")
        self.section = section


class NoOptionError(InikitError, LookupError):
    def __init__(self, section: str, key: str) -> None:
        super().__init__(f"no key {key!r} in section [{section}]")
        self.section = section
        self.key = key


class DuplicateSectionError(InikitError):
    def __init__(self, section: str) -> None:
        super().__init__(f"section [{section}] already exists")
        self.section = section


class InterpolationError(InikitError):
    """A ``${...}`` reference could not be resolved (unknown key or a cycle)."""

    def __init__(self, section: str, key: str, message: str) -> None:
        super().__init__(f"[{section}] {key}: {message}")
        self.section = section
        self.key = key


class ConversionError(InikitError, ValueError):
    """A value could not be converted by one of the typed getters."""

    def __init__(self, section: str, key: str, expected: str, value: str) -> None:
        super().__init__(f"[{section}] {key}: expected {expected}, got {value!r}")
        self.section = section
        self.key = key
        self.value = value
