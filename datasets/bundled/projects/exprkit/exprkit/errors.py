"""Errors that point into the expression text."""

from __future__ import annotations


class ExprError(Exception):
    """Base of all exprkit errors.

    ``position`` is the 0-based offset of the offending token in ``source``;
    ``column`` is the same place counted from 1, as editors and the messages
    show it.
    """

    def __init__(self, message: str, source: str, position: int) -> None:
        self.message = message
        self.source = source
        self.position = position
        self.column = position + 1
        super().__init__(f"{message} (column {self.column})")

    def pointer(self) -> str:
        """The source with a caret under the offending token."""
        return f"{self.source}\n{' ' * self.position}^"


class ParseError(ExprError):
    """The text is not a valid expression."""


class EvalError(ExprError):
    """The expression is valid but cannot be evaluated with these values."""


class UndefinedVariable(EvalError):
    def __init__(self, name: str, source: str, position: int) -> None:
        super().__init__(f"undefined variable {name!r}", source, position)
        self.name = name
