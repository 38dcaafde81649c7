import pytest

from exprkit import ParseError
from exprkit.tokens import tokenize


def kinds(source):
    return [(t.kind, t.text) for t in tokenize(source)][:-1]


def test_tokens_and_positions():
    tokens = tokenize("rate * (1 + x)")
    assert [(t.kind, t.text, t.position) for t in tokens] == [
        ("name", "rate", 0),
        ("op", "*", 5),
        ("op", "(", 7),
        ("number", "1", 8),
        ("op", "+", 10),
        ("name", "x", 12),
        ("op", ")", 13),
        ("end", "", 14),
    ]


def test_longest_operator_wins():
    assert kinds("a**b//c<=d!=e") == [
        ("name", "a"), ("op", "**"), ("name", "b"), ("op", "//"), ("name", "c"),
        ("op", "<="), ("name", "d"), ("op", "!="), ("name", "e"),
    ]


def test_keywords_are_not_names():
    assert kinds("not x and true_value or false") == [
        ("keyword", "not"), ("name", "x"), ("keyword", "and"), ("name", "true_value"),
        ("keyword", "or"), ("keyword", "false"),
    ]


@pytest.mark.parametrize(
    "text, value",
    [("42", 42), ("3.25", 3.25), (".5", 0.5), ("7.", 7.0), ("1e3", 1000.0), ("0", 0)],
    ids=["int", "float", "leading-dot", "trailing-dot", "exponent", "zero"],
)
def test_numbers(text, value):
    token = tokenize(text)[0]
    assert token.kind == "number"
    assert token.value == value and type(token.value) is type(value)


@pytest.mark.parametrize(
    "text, value",
    [("1e-3", 0.001), ("2.5E+4", 25000.0), ("6.02e23", 6.02e23), (".5e-1", 0.05)],
    ids=["negative-exponent", "plus-exponent", "avogadro", "leading-dot"],
)
def test_scientific_notation(text, value):
    tokens = tokenize(f"{text} * 2")
    assert tokens[0].value == pytest.approx(value)
    assert [t.text for t in tokens[1:]] == ["*", "2", ""]


@pytest.mark.parametrize(
    "source, position, message",
    [
        ("1 + $", 4, "unexpected character '$'"),
        ("12abc", 0, "malformed number '12a'"),
        ("1.2.3", 0, "malformed number '1.2.'"),
        ("a = 1", 2, "unexpected character '='"),
    ],
    ids=["dollar", "letters-after-number", "two-dots", "assignment"],
)
def test_tokenize_errors(source, position, message):
    with pytest.raises(ParseError) as info:
        tokenize(source)
    assert info.value.position == position
    assert info.value.message == message
