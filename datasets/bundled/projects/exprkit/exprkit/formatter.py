"""Turns a syntax tree back into text with as few parentheses as its meaning
allows: ``parse(to_source(tree))`` gives the same tree back."""

from __future__ import annotations

from .nodes import Binary, BoolOp, Call, Compare, IfExp, Name, Node, Not, Number, Unary
from .parser import BINARY, COMPARISON, CONDITIONAL, PREFIX, RIGHT_ASSOCIATIVE

ATOM = 100


def to_source(node: Node) -> str:
    if isinstance(node, Number):
        if isinstance(node.value, bool):
            return "true" if node.value else "false"
        return repr(node.value)
    if isinstance(node, Name):
        return node.id
    if isinstance(node, Call):
        return f"{node.name}({', '.join(to_source(arg) for arg in node.args)})"
    if isinstance(node, Unary):
        return node.op + _operand(node.operand, precedence(node.operand) < PREFIX[node.op])
    if isinstance(node, Not):
        return "not " + _operand(node.operand, precedence(node.operand) < PREFIX["not"])
    if isinstance(node, (Binary, BoolOp)):
        return _binary(node)
    if isinstance(node, Compare):
        parts = [_operand(node.operands[0], precedence(node.operands[0]) <= COMPARISON)]
        for op, operand in zip(node.ops, node.operands[1:]):
            parts.append(f"{op} {_operand(operand, precedence(operand) <= COMPARISON)}")
        return " ".join(parts)
    if isinstance(node, IfExp):
        then = _operand(node.then, precedence(node.then) <= CONDITIONAL)
        condition = _operand(node.condition, precedence(node.condition) <= CONDITIONAL)
        otherwise = _operand(node.otherwise, precedence(node.otherwise) < CONDITIONAL)
        return f"{then} if {condition} else {otherwise}"
    raise TypeError(f"not a syntax tree node: {node!r}")


def precedence(node: Node) -> int:
    if isinstance(node, (Binary, BoolOp)):
        return BINARY[node.op]
    if isinstance(node, Compare):
        return COMPARISON
    if isinstance(node, Unary):
        return PREFIX[node.op]
    if isinstance(node, Not):
        return PREFIX["not"]
    if isinstance(node, IfExp):
        return CONDITIONAL
    return ATOM


def _binary(node: Binary | BoolOp) -> str:
    own = BINARY[node.op]
    right_associative = node.op in RIGHT_ASSOCIATIVE
    left, right = precedence(node.left), precedence(node.right)
    # An operand as loose as the operator needs parentheses on the side the
    # operator does not associate to: a - (b - c), (a ** b) ** c.
    left_text = _operand(node.left, left < own or (left == own and right_associative))
    # The exponent may be a bare unary minus, as in Python: 2 ** -1.
    right_needs = right < own or (right == own and not right_associative)
    right_text = _operand(node.right, right_needs and not (node.op == "**" and isinstance(node.right, Unary)))
    return f"{left_text} {node.op} {right_text}"


def _operand(node: Node, parenthesize: bool) -> str:
    text = to_source(node)
    return f"({text})" if parenthesize else text
