"""The :class:`Config` object: layered sources, defaults and typed access."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, TypeVar, Union

from .errors import ConversionError, DuplicateSectionError, NoOptionError, NoSectionError
from .interpolation import interpolate
from .parser import COMMENT_PREFIXES, parse
from .writer import dump

DEFAULT = "DEFAULT"
BOOLEAN_STATES = {
    "1": True, "yes": True, "true": True, "on": True,
    "0": False, "no": False, "false": False, "off": False,
}

T = TypeVar("T")
_MISSING: Any = object()


class Config:
    """Sections of string values, with a ``DEFAULT`` section that every
    section falls back to.

    Reading several sources layers them: a later source adds sections and
    overrides keys of earlier ones. Values may reference other values with
    ``${key}`` (same section) or ``${section:key}``; ``$$`` is a literal
    ``$``.
    """

    def __init__(
        self,
        defaults: Optional[Mapping[str, str]] = None,
        *,
        strict: bool = True,
        interpolation: bool = True,
    ) -> None:
        self._sections: Dict[str, Dict[str, str]] = {DEFAULT: {}}
        for key, value in (defaults or {}).items():
            self._sections[DEFAULT][normalize_key(key)] = str(value)
        self._strict = strict
        self._interpolation = interpolation
        # Interpolated values, keyed by (section, key). Resolving a reference
        # chain is the costly part of get(), and configs are read far more
        # often than they change.
        self._cache: Dict[Tuple[str, str], str] = {}

    # -- reading -----------------------------------------------------------

    def read_string(self, text: str, source: str = "<string>") -> None:
        document = parse(text, source, strict=self._strict)
        for name, section in document.items():
            target = self._sections.setdefault(name, {})
            for key, entry in section.entries.items():
                target[key] = entry.value
        self._cache.clear()

    def read_file(self, path: Union[str, Path], encoding: str = "utf-8") -> None:
        self.read_string(Path(path).read_text(encoding=encoding), source=str(path))

    # -- structure ---------------------------------------------------------

    def sections(self) -> List[str]:
        """Section names in the order they were first seen, without DEFAULT."""
        return [name for name in self._sections if name != DEFAULT]

    def has_section(self, section: str) -> bool:
        return section != DEFAULT and section in self._sections

    def has_option(self, section: str, key: str) -> bool:
        try:
            self._lookup(section, normalize_key(key))
        except LookupError:
            return False
        return True

    def add_section(self, section: str) -> None:
        if section in self._sections:
            raise DuplicateSectionError(section)
        check_section_name(section)
        self._sections[section] = {}

    def remove_section(self, section: str) -> bool:
        if section == DEFAULT:
            raise ValueError("the DEFAULT section cannot be removed")
        removed = self._sections.pop(section, None) is not None
        self._cache.clear()
        return removed

    def defaults(self) -> Dict[str, str]:
        return dict(self._sections[DEFAULT])

    def own_items(self, section: str) -> Dict[str, str]:
        """Raw values set in ``section`` itself, without DEFAULT's."""
        if section not in self._sections:
            raise NoSectionError(section)
        return dict(self._sections[section])

    # -- values ------------------------------------------------------------

    def get(self, section: str, key: str, *, fallback: Any = _MISSING, raw: bool = False) -> str:
        key = normalize_key(key)
        try:
            value = self._lookup(section, key)
        except LookupError:
            if fallback is _MISSING:
                raise
            return fallback
        if raw or not self._interpolation:
            return value
        return self._interpolated(section, key, value)

    def set(self, section: str, key: str, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"values must be strings, got {type(value).__name__} for {key!r}")
        if section not in self._sections:
            raise NoSectionError(section)
        self._sections[section][check_key(normalize_key(key))] = value
        self._cache.clear()

    def remove_option(self, section: str, key: str) -> bool:
        if section not in self._sections:
            raise NoSectionError(section)
        removed = self._sections[section].pop(normalize_key(key), None) is not None
        self._cache.clear()
        return removed

    def items(self, section: str, *, raw: bool = False) -> Dict[str, str]:
        """Every key visible in ``section``: its own and DEFAULT's."""
        if section not in self._sections:
            raise NoSectionError(section)
        merged = {**self._sections[DEFAULT], **self._sections[section]}
        if raw or not self._interpolation:
            return merged
        return {key: self._interpolated(section, key, value) for key, value in merged.items()}

    def to_dict(self, *, raw: bool = False) -> Dict[str, Dict[str, str]]:
        return {name: self.items(name, raw=raw) for name in self.sections()}

    def getint(self, section: str, key: str, *, fallback: Any = _MISSING) -> int:
        return self._typed(section, key, fallback, int, "an integer")

    def getfloat(self, section: str, key: str, *, fallback: Any = _MISSING) -> float:
        return self._typed(section, key, fallback, float, "a number")

    def getbool(self, section: str, key: str, *, fallback: Any = _MISSING) -> bool:
        return self._typed(section, key, fallback, to_bool, "a boolean")

    def getlist(self, section: str, key: str, *, sep: str = ",", fallback: Any = _MISSING) -> List[str]:
        """Items separated by ``sep`` or by line breaks, stripped, empty ones dropped."""
        return self._typed(section, key, fallback, lambda text: to_list(text, sep), "a list")

    def write(self) -> str:
        return dump(self)

    # -- internals ---------------------------------------------------------

    def _lookup(self, section: str, key: str) -> str:
        if section not in self._sections:
            raise NoSectionError(section)
        for values in (self._sections[section], self._sections[DEFAULT]):
            if key in values:
                return values[key]
        raise NoOptionError(section, key)

    def _interpolated(self, section: str, key: str, value: str) -> str:
        cached = self._cache.get((section, key))
        if cached is None:
            cached = self._cache[(section, key)] = interpolate(self, section, key, value)
        return cached

    def _typed(self, section: str, key: str, fallback: Any, convert: Callable[[str], T], expected: str) -> T:
        try:
            value = self.get(section, key)
        except LookupError:
            if fallback is _MISSING:
                raise
            return fallback
        try:
            return convert(value.strip())
        except ValueError:
            raise ConversionError(section, normalize_key(key), expected, value) from None

    def __contains__(self, section: object) -> bool:
        return isinstance(section, str) and self.has_section(section)


def normalize_key(key: str) -> str:
    return key.strip().lower()


def check_key(key: str) -> str:
    if not key or any(ch in key for ch in "=:\n\r") or key.startswith(("[",) + COMMENT_PREFIXES):
        raise ValueError(f"invalid key {key!r}: keys are non-empty and contain no '=', ':' or line breaks")
    return key


def check_section_name(name: str) -> None:
    if not name.strip() or name != name.strip() or any(ch in name for ch in "[]\n\r"):
        raise ValueError(f"invalid section name {name!r}")


def to_bool(text: str) -> bool:
    try:
        return BOOLEAN_STATES[text.lower()]
    except KeyError:
        raise ValueError(text) from None


def to_list(text: str, sep: str) -> List[str]:
    items = [part.strip() for line in text.splitlines() for part in line.split(sep)]
    return [item for item in items if item]
