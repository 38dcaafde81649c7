"""The syntax tree. Every node keeps the position of its operator or name so
that evaluation errors can point at it."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Iterator, Tuple, Union


@dataclass(frozen=True)
class Number:
    value: Union[int, float, bool]
    position: int


@dataclass(frozen=True)
class Name:
    id: str
    position: int


@dataclass(frozen=True)
class Unary:
    op: str  # "-" or "+"
    operand: Node
    position: int


@dataclass(frozen=True)
class Not:
    operand: Node
    position: int


@dataclass(frozen=True)
class Binary:
    op: str
    left: Node
    right: Node
    position: int


@dataclass(frozen=True)
class BoolOp:
    op: str  # "and" or "or"
    left: Node
    right: Node
    position: int


@dataclass(frozen=True)
class Compare:
    """``a < b <= c``: ``ops`` has one operator fewer than ``operands``."""

    ops: Tuple[str, ...]
    operands: Tuple[Node, ...]
    positions: Tuple[int, ...]


@dataclass(frozen=True)
class Call:
    name: str
    args: Tuple[Node, ...]
    position: int


@dataclass(frozen=True)
class IfExp:
    condition: Node
    then: Node
    otherwise: Node
    position: int


Node = Union[Number, Name, Unary, Not, Binary, BoolOp, Compare, Call, IfExp]


def walk(node: Node) -> Iterator[Node]:
    """``node`` and all nodes below it, parents first."""
    yield node
    for field in fields(node):
        value = getattr(node, field.name)
        children = value if isinstance(value, tuple) else (value,)
        for child in children:
            if is_node(child):
                yield from walk(child)


def is_node(value: object) -> bool:
    return isinstance(value, (Number, Name, Unary, Not, Binary, BoolOp, Compare, Call, IfExp))
