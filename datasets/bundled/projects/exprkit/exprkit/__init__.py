"""exprkit: parse, evaluate and pretty-print arithmetic and boolean expressions.

>>> import exprkit
>>> exprkit.evaluate("2 * (x + 1) if x > 0 else 0", x=3)
8
>>> expr = exprkit.parse("hypot(a, b) / 2")
>>> sorted(expr.variables)
['a', 'b']
"""

from __future__ import annotations

from typing import Any, FrozenSet, Mapping, Optional

from .errors import EvalError, ExprError, ParseError, UndefinedVariable
from .evaluator import CONSTANTS, FUNCTIONS, evaluate_tree
from .formatter import to_source
from .nodes import Name, walk
from .parser import parse as parse_tree

__all__ = [
    "CONSTANTS",
    "FUNCTIONS",
    "EvalError",
    "ExprError",
    "Expression",
    "ParseError",
    "UndefinedVariable",
    "evaluate",
    "parse",
]

__version__ = "2.1.0"


class Expression:
    """A parsed expression that can be evaluated many times with different values."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.tree = parse_tree(source)

    @property
    def variables(self) -> FrozenSet[str]:
        """Names the expression reads, other than the built-in constants."""
        return frozenset(node.id for node in walk(self.tree) if isinstance(node, Name)) - CONSTANTS.keys()

    def evaluate(self, variables: Optional[Mapping[str, Any]] = None, **values: Any) -> Any:
        """The value with ``variables`` and keyword ``values`` (which win) bound;
        they may also override the constants ``pi``, ``e`` and ``tau``."""
        env = {**CONSTANTS, **(variables or {}), **values}
        return evaluate_tree(self.tree, env, self.source)

    def __str__(self) -> str:
        return to_source(self.tree)

    def __repr__(self) -> str:
        return f"Expression({self.source!r})"


def parse(source: str) -> Expression:
    return Expression(source)


def evaluate(source: str, variables: Optional[Mapping[str, Any]] = None, **values: Any) -> Any:
    return Expression(source).evaluate(variables, **values)
