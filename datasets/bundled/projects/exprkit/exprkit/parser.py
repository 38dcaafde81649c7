"""A Pratt parser with Python's operator precedence.

Loosest to tightest: ``x if c else y``; ``or``; ``and``; ``not``; comparisons
(chained, as in Python: ``a < b < c`` means ``a < b and b < c``); ``+ -``;
``* / // %``; unary ``-`` and ``+``; ``**`` (right-associative). As in
Python, ``-2 ** 2`` is ``-(2 ** 2)`` and ``2 ** -1`` is ``0.5``.
"""

from __future__ import annotations

from typing import List

from .errors import ParseError
from .nodes import Binary, BoolOp, Call, Compare, IfExp, Name, Node, Not, Number, Unary
from .tokens import Token, tokenize

CONDITIONAL = 5
COMPARISON = 40
BINARY = {
    "or": 10,
    "and": 20,
    "==": COMPARISON, "!=": COMPARISON, "<": COMPARISON, "<=": COMPARISON, ">": COMPARISON, ">=": COMPARISON,
    "+": 50, "-": 50,
    "*": 60, "/": 60, "//": 60, "%": 60,
    "**": 80,
}
PREFIX = {"not": 30, "-": 70, "+": 70}
RIGHT_ASSOCIATIVE = frozenset({"**"})


def parse(source: str) -> Node:
    return Parser(source).parse()


class Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = tokenize(source)
        self.index = 0

    def parse(self) -> Node:
        node = self.expression(0)
        token = self.peek()
        if token.kind != "end":
            raise self.error(f"unexpected {describe(token)}", token)
        return node

    def expression(self, min_binding: int) -> Node:
        """An expression whose operators all bind more tightly than ``min_binding``."""
        left = self.prefix()
        while True:
            token = self.peek()
            if token.kind == "keyword" and token.text == "if" and CONDITIONAL > min_binding:
                left = self.conditional(left)
                continue
            binding = BINARY.get(token.text) if token.kind in ("op", "keyword") else None
            if binding is None or binding <= min_binding:
                return left
            self.advance()
            if binding == COMPARISON:
                left = self.comparison(left, token)
                continue
            right = self.expression(binding - 1 if token.text in RIGHT_ASSOCIATIVE else binding)
            node_type = BoolOp if token.text in ("and", "or") else Binary
            left = node_type(token.text, left, right, token.position)

    def comparison(self, first: Node, operator: Token) -> Node:
        ops, operands, positions = [operator.text], [first, self.expression(COMPARISON)], [operator.position]
        while self.peek().kind == "op" and BINARY.get(self.peek().text) == COMPARISON:
            token = self.advance()
            ops.append(token.text)
            positions.append(token.position)
            operands.append(self.expression(COMPARISON))
        return Compare(tuple(ops), tuple(operands), tuple(positions))

    def conditional(self, then: Node) -> Node:
        token = self.advance()
        condition = self.expression(CONDITIONAL)
        self.expect("else")
        otherwise = self.expression(CONDITIONAL - 1)
        return IfExp(condition, then, otherwise, token.position)

    def prefix(self) -> Node:
        token = self.advance()
        if token.kind == "number":
            return Number(token.value, token.position)
        if token.kind == "keyword" and token.text in ("true", "false"):
            return Number(token.text == "true", token.position)
        if token.kind == "name":
            if self.peek().text == "(":
                return self.call(token)
            return Name(token.text, token.position)
        if token.text == "(":
            node = self.expression(0)
            self.expect(")")
            return node
        if token.kind in ("op", "keyword") and token.text in PREFIX:
            operand = self.expression(PREFIX[token.text])
            if token.text == "not":
                return Not(operand, token.position)
            return Unary(token.text, operand, token.position)
        raise self.error(f"unexpected {describe(token)}", token)

    def call(self, name: Token) -> Node:
        self.expect("(")
        args: List[Node] = []
        if self.peek().text != ")":
            args.append(self.expression(0))
            while self.peek().text == ",":
                self.advance()
                args.append(self.expression(0))
        self.expect(")")
        return Call(name.text, tuple(args), name.position)

    def peek(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        if token.kind != "end":
            self.index += 1
        return token

    def expect(self, text: str) -> Token:
        token = self.advance()
        if token.text != text or token.kind in ("number", "name"):
            raise self.error(f"expected {text!r} but found {describe(token)}", token)
        return token

    def error(self, message: str, token: Token) -> ParseError:
        return ParseError(message, self.source, token.position)


def describe(token: Token) -> str:
    return "end of input" if token.kind == "end" else repr(token.text)
