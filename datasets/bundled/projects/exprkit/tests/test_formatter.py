import pytest

from exprkit import evaluate, parse


@pytest.mark.parametrize(
    "source, text",
    [
        ("1+2*3", "1 + 2 * 3"),
        ("(1+2)*3", "(1 + 2) * 3"),
        ("((a))", "a"),
        ("a - b - c", "a - b - c"),
        ("(a - b) - c", "a - b - c"),
        ("-(a + b)", "-(a + b)"),
        ("not (a and b)", "not (a and b)"),
        ("(not a) and b", "not a and b"),
        ("max(a,b+1)", "max(a, b + 1)"),
        ("x if y else z", "x if y else z"),
        ("(x if y else z) + 1", "(x if y else z) + 1"),
        ("true and false", "true and false"),
        ("2.5 * 1e3", "2.5 * 1000.0"),
        ("a < b < c", "a < b < c"),
        ("(a < b) == c", "(a < b) == c"),
        ("(a or b) and c", "(a or b) and c"),
        ("2 ** -x", "2 ** -x"),
        ("(-2) ** 2", "(-2) ** 2"),
    ],
    ids=[
        "precedence", "needed-parens", "redundant-parens", "left-chain", "left-parens-dropped", "unary-group",
        "not-group", "not-binds-tighter", "call", "conditional", "conditional-operand", "booleans", "floats",
        "comparison-chain", "comparison-operand", "or-in-and", "unary-exponent", "negative-base",
    ],
)
def test_to_source(source, text):
    assert str(parse(source)) == text


@pytest.mark.parametrize(
    "source, text",
    [
        ("a - (b - c)", "a - (b - c)"),
        ("a - (b + c)", "a - (b + c)"),
        ("a / (b * c)", "a / (b * c)"),
        ("a // (b % c)", "a // (b % c)"),
    ],
    ids=["sub-sub", "sub-add", "div-mul", "floordiv-mod"],
)
def test_parenthesizes_right_operand_of_same_precedence(source, text):
    assert str(parse(source)) == text


@pytest.mark.parametrize(
    "source",
    [
        "1 - (2 - 3) * 4",
        "2 ** (1 + 1) - -3",
        "10 / (5 / 2)",
        "max(1, 2) if 3 > 2 else 0",
        "not 0 or 1 and 0",
    ],
    ids=["nested-sub", "power-and-negation", "nested-div", "conditional", "boolean"],
)
def test_printed_text_evaluates_the_same(source):
    assert evaluate(str(parse(source))) == evaluate(source)
