"""Evaluates a syntax tree against variables and a table of functions."""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from .errors import EvalError, UndefinedVariable
from .nodes import Binary, BoolOp, Call, Compare, IfExp, Name, Node, Not, Number, Unary

# name -> (function, fewest arguments, most arguments or None for any number)
FUNCTIONS: Dict[str, Tuple[Callable[..., Any], int, Optional[int]]] = {
    "abs": (abs, 1, 1),
    "min": (min, 1, None),
    "max": (max, 1, None),
    "round": (round, 1, 2),
    "sqrt": (math.sqrt, 1, 1),
    "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
    "log": (math.log, 1, 2),
    "exp": (math.exp, 1, 1),
    "sin": (math.sin, 1, 1),
    "cos": (math.cos, 1, 1),
    "hypot": (math.hypot, 1, None),
}
CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}
# Integer powers beyond this many digits' worth of exponent would take
# minutes and gigabytes; they are refused instead.
MAX_INTEGER_EXPONENT = 10_000

ARITHMETIC = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
}
COMPARISONS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def evaluate_tree(node: Node, variables: Mapping[str, Any], source: str) -> Any:
    return Evaluator(variables, source).visit(node)


class Evaluator:
    def __init__(self, variables: Mapping[str, Any], source: str) -> None:
        self.variables = variables
        self.source = source

    def visit(self, node: Node) -> Any:
        return getattr(self, f"visit_{type(node).__name__}")(node)

    def visit_Number(self, node: Number) -> Any:
        return node.value

    def visit_Name(self, node: Name) -> Any:
        try:
            return self.variables[node.id]
        except KeyError:
            raise UndefinedVariable(node.id, self.source, node.position) from None

    def visit_Unary(self, node: Unary) -> Any:
        value = self.visit(node.operand)
        return -value if node.op == "-" else +value

    def visit_Not(self, node: Not) -> Any:
        return not self.visit(node.operand)

    def visit_Binary(self, node: Binary) -> Any:
        left = self.visit(node.left)
        right = self.visit(node.right)
        try:
            if node.op == "**":
                return self.power(left, right, node)
            return ARITHMETIC[node.op](left, right)
        except ZeroDivisionError:
            raise EvalError("division by zero", self.source, node.position) from None
        except TypeError as error:
            raise EvalError(f"unsupported operands for {node.op}: {error}", self.source, node.position) from None

    def power(self, base: Any, exponent: Any, node: Binary) -> Any:
        if isinstance(exponent, int) and isinstance(base, int) and abs(exponent) > MAX_INTEGER_EXPONENT:
            raise EvalError("exponent too large", self.source, node.position)
        result = base**exponent
        if isinstance(result, complex):
            raise EvalError("result is a complex number", self.source, node.position)
        return result

    def visit_BoolOp(self, node: BoolOp) -> Any:
        left = self.visit(node.left)
        if node.op == "and":
            return self.visit(node.right) if left else left
        return left if left else self.visit(node.right)

    def visit_Compare(self, node: Compare) -> bool:
        left = self.visit(node.operands[0])
        for op, operand, position in zip(node.ops, node.operands[1:], node.positions):
            right = self.visit(operand)
            try:
                holds = COMPARISONS[op](left, right)
            except TypeError:
                raise EvalError(f"cannot compare with {op}", self.source, position) from None
            if not holds:
                return False
            left = right
        return True

    def visit_IfExp(self, node: IfExp) -> Any:
        return self.visit(node.then) if self.visit(node.condition) else self.visit(node.otherwise)

    def visit_Call(self, node: Call) -> Any:
        spec = FUNCTIONS.get(node.name)
        if spec is None:
            raise EvalError(f"unknown function {node.name!r}", self.source, node.position)
        function, fewest, most = spec
        given = len(node.args)
        if given < fewest or (most is not None and given > most):
            expected = str(fewest) if fewest == most else f"{fewest} or more" if most is None else f"{fewest} to {most}"
            raise EvalError(f"{node.name}() takes {expected} arguments, got {given}", self.source, node.position)
        args = [self.visit(arg) for arg in node.args]
        try:
            return function(*args)
        except (ValueError, OverflowError, TypeError) as error:
            raise EvalError(f"{node.name}(): {error}", self.source, node.position) from None
