import pytest

from exprkit import ParseError, evaluate, parse
from exprkit.nodes import Binary, Call, IfExp, Name, Not, Number, Unary


@pytest.mark.parametrize(
    "source, value",
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("100 / 10 / 5", 2.0),
        ("2 * 3 ** 2", 18),
        ("7 - 2 * 3 + 1", 2),
        ("1 + 2 == 3", True),
        ("not 1 == 2", True),
        ("1 < 2 and 2 < 1 or 3 > 2", True),
        ("-3 + 5", 2),
        ("- - 4", 4),
    ],
    ids=[
        "mul-before-add", "parens", "sub-left-assoc", "div-left-assoc", "pow-before-mul", "mixed",
        "arith-before-compare", "not-after-compare", "and-before-or", "unary-then-add", "double-negation",
    ],
)
def test_precedence(source, value):
    assert evaluate(source) == value


def test_power_is_right_associative():
    assert evaluate("2 ** 3 ** 2") == 512
    tree = parse("a ** b ** c").tree
    assert isinstance(tree, Binary) and isinstance(tree.right, Binary)
    assert str(parse("2 ** 3 ** 2")) == "2 ** 3 ** 2"


def test_unary_minus_binds_looser_than_power():
    assert evaluate("-2 ** 2") == -4
    assert evaluate("(-2) ** 2") == 4
    assert evaluate("2 ** -1") == 0.5
    assert evaluate("-x ** 2", x=3) == -9
    tree = parse("-2 ** 2").tree
    assert isinstance(tree, Unary) and isinstance(tree.operand, Binary)


def test_tree_shapes():
    assert parse("f(x, 2)").tree == Call("f", (Name("x", 2), Number(2, 5)), 0)
    assert parse("not ready").tree == Not(Name("ready", 4), 0)
    assert isinstance(parse("a if c else b").tree, IfExp)


def test_conditional_is_loosest_and_right_associative():
    assert evaluate("1 if x > 0 else -1 if x < 0 else 0", x=-5) == -1
    assert evaluate("1 if x > 0 else -1 if x < 0 else 0", x=0) == 0
    assert evaluate("2 + 3 if false else 4 + 5") == 9


@pytest.mark.parametrize(
    "source, args",
    [("max()", 0), ("max(1)", 1), ("max(1, 2, 3)", 3), ("max(min(1, 2), 3)", 2)],
    ids=["none", "one", "three", "nested"],
)
def test_call_arguments(source, args):
    assert len(parse(source).tree.args) == args


@pytest.mark.parametrize(
    "source, position, message",
    [
        ("1 +", 3, "unexpected end of input"),
        ("(1 + 2", 6, "expected ')' but found end of input"),
        ("1 + * 2", 4, "unexpected '*'"),
        ("2 3", 2, "unexpected '3'"),
        ("max(1, )", 7, "unexpected ')'"),
        ("a if b", 6, "expected 'else' but found end of input"),
    ],
    ids=["dangling-operator", "unclosed-paren", "double-operator", "missing-operator", "empty-argument", "missing-else"],
)
def test_syntax_errors(source, position, message):
    with pytest.raises(ParseError) as info:
        parse(source)
    assert info.value.position == position
    assert info.value.message == message


@pytest.mark.parametrize(
    "source, column",
    [("1 + * 2", 5), ("(1 + 2", 7), ("?", 1), ("2 3", 3)],
    ids=["operator", "end", "first-character", "number"],
)
def test_syntax_error_columns(source, column):
    with pytest.raises(ParseError) as info:
        parse(source)
    assert info.value.column == column
    assert str(info.value).endswith(f"(column {column})")


def test_error_pointer():
    with pytest.raises(ParseError) as info:
        parse("1 + * 2")
    assert info.value.pointer() == "1 + * 2\n    ^"
