"""Splits expression text into tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Union

from .errors import ParseError

NUMBER = re.compile(r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Longest first, so that "**" is not read as two "*".
OPERATORS = ("**", "//", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",")
KEYWORDS = frozenset({"and", "or", "not", "if", "else", "true", "false"})


@dataclass(frozen=True)
class Token:
    kind: str  # "number", "name", "keyword", "op" or "end"
    text: str
    position: int
    value: Union[int, float, None] = None


def tokenize(source: str) -> List[Token]:
    """The tokens of ``source``, ending with an ``end`` token."""
    tokens = []
    position = 0
    while position < len(source):
        char = source[position]
        if char.isspace():
            position += 1
            continue
        number = NUMBER.match(source, position)
        if number:
            text = number.group()
            end = number.end()
            if end < len(source) and (source[end].isalnum() or source[end] in "_."):
                raise ParseError(f"malformed number {source[position:end + 1]!r}", source, position)
            value = float(text) if any(c in text for c in ".eE") else int(text)
            tokens.append(Token("number", text, position, value))
            position = end
            continue
        name = NAME.match(source, position)
        if name:
            text = name.group()
            tokens.append(Token("keyword" if text in KEYWORDS else "name", text, position))
            position = name.end()
            continue
        operator = next((op for op in OPERATORS if source.startswith(op, position)), None)
        if operator is None:
            raise ParseError(f"unexpected character {char!r}", source, position)
        tokens.append(Token("op", operator, position))
        position += len(operator)
    tokens.append(Token("end", "", len(source)))
    return tokens
