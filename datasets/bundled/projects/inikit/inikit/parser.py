r"""Turns inikit text into sections of raw (not yet interpolated) values.

Syntax, in short:

* ``[name]`` opens a section; keys before the first section are an error.
* ``key = value`` or ``key: value``; keys are case-insensitive and stored
  lower-case, section names keep their case.
* Lines whose first non-blank character is ``#`` or ``;`` are comments. In an
  unquoted value, ``#`` or ``;`` start an inline comment only when whitespace
  precedes them, so ``color = #ff0000`` and ``url = http://h/#top`` keep
  their values.
* A value in double quotes may use the escapes ``\\``, ``\"``, ``\n``,
  ``\r`` and ``\t``; it ends at the closing quote.
* Indented lines right after an unquoted value continue it; the pieces are
  joined with newlines. A blank line ends the value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional

from .errors import ParseError

COMMENT_PREFIXES = ("#", ";")
ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}


@dataclass
class Entry:
    value: str
    lineno: int


@dataclass
class Section:
    lineno: int
    entries: Dict[str, Entry] = field(default_factory=dict)


Document = Dict[str, Section]


def parse(text: str, source: str = "<string>", *, strict: bool = True) -> Document:
    """Parse ``text`` into an ordered mapping of section name to :class:`Section`.

    With ``strict``, a key repeated inside one section, or a section header
    repeated in one source, is a :class:`ParseError`; otherwise the last
    value wins and repeated sections are merged.
    """
    parser = _Parser(source, strict)
    for lineno, line in enumerate(text.splitlines(), start=1):
        parser.feed(lineno, line)
    return parser.document


class _Parser:
    def __init__(self, source: str, strict: bool) -> None:
        self.source = source
        self.strict = strict
        self.document: Document = {}
        self.section: Optional[Section] = None
        # The entry an indented line would continue; None after a blank line,
        # a header or a quoted value.
        self.open_entry: Optional[Entry] = None

    def error(self, message: str, lineno: int, line: str) -> ParseError:
        return ParseError(message, self.source, lineno, line)

    def feed(self, lineno: int, line: str) -> None:
        stripped = line.strip()
        if not stripped:
            self.open_entry = None
            return
        if stripped.startswith(COMMENT_PREFIXES):
            return
        if line[0].isspace() and self.open_entry is not None:
            self.continue_value(self.open_entry, stripped)
            return
        self.open_entry = None
        if stripped.startswith("["):
            self.section_header(lineno, line, stripped)
        else:
            self.key_value(lineno, line, stripped)

    def continue_value(self, entry: Entry, stripped: str) -> None:
        piece = strip_inline_comment(stripped)
        entry.value = f"{entry.value}\n{piece}" if entry.value else piece

    def section_header(self, lineno: int, line: str, stripped: str) -> None:
        end = stripped.find("]")
        if end == -1:
            raise self.error("unterminated section header", lineno, line)
        rest = stripped[end + 1 :].strip()
        if rest and not rest.startswith(COMMENT_PREFIXES):
            raise self.error("unexpected text after section header", lineno, line)
        name = stripped[1:end].strip()
        if not name:
            raise self.error("empty section name", lineno, line)
        existing = self.document.get(name)
        if existing is not None and self.strict:
            raise self.error(f"duplicate section (first on line {existing.lineno})", lineno, line)
        self.section = existing or self.document.setdefault(name, Section(lineno))

    def key_value(self, lineno: int, line: str, stripped: str) -> None:
        if self.section is None:
            raise self.error("key outside of any section", lineno, line)
        delimiter = find_delimiter(stripped)
        if delimiter == -1:
            raise self.error("expected 'key = value'", lineno, line)
        key = stripped[:delimiter].strip().lower()
        if not key:
            raise self.error("empty key", lineno, line)
        raw = stripped[delimiter + 1 :].strip()
        quoted = raw.startswith('"')
        try:
            value = unquote(raw) if quoted else strip_inline_comment(raw)
        except ValueError as e:
            raise self.error(str(e), lineno, line) from None
        entries = self.section.entries
        if key in entries and self.strict:
            raise self.error(f"duplicate key {key!r} (first on line {entries[key].lineno})", lineno, line)
        entry = Entry(value, lineno)
        entries[key] = entry
        self.open_entry = None if quoted else entry


def find_delimiter(text: str) -> int:
    """Index of the first ``=`` or ``:``, or -1."""
    positions = [i for i in (text.find("="), text.find(":")) if i != -1]
    return min(positions, default=-1)


def strip_inline_comment(text: str) -> str:
    for i, ch in enumerate(text):
        if ch in COMMENT_PREFIXES and i > 0 and text[i - 1].isspace():
            return text[:i].rstrip()
    return text


def unquote(raw: str) -> str:
    """The value of a double-quoted string starting at ``raw[0]``."""
    out = []
    i = 1
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            if i + 1 == len(raw):
                raise ValueError("backslash at end of quoted value")
            escaped = raw[i + 1]
            if escaped not in ESCAPES:
                raise ValueError(f"unknown escape \\{escaped}")
            out.append(ESCAPES[escaped])
            i += 2
        elif ch == '"':
            rest = raw[i + 1 :].strip()
            if rest and not rest.startswith(COMMENT_PREFIXES):
                raise ValueError("unexpected text after closing quote")
            return "".join(out)
        else:
            out.append(ch)
            i += 1
    raise ValueError("unterminated quoted value")
