import math

import pytest

from exprkit import EvalError, UndefinedVariable, evaluate, parse


@pytest.mark.parametrize(
    "source, value",
    [
        ("2 + 3", 5),
        ("7 / 2", 3.5),
        ("8 / 2", 4.0),
        ("7 // 2", 3),
        ("7 % 3", 1),
        ("2 ** 10", 1024),
        ("2 ** 0.5", 2**0.5),
        ("1.5 * 4", 6.0),
    ],
    ids=["add", "true-division", "division-is-float", "floor-division", "modulo", "int-power", "float-power", "float"],
)
def test_arithmetic(source, value):
    result = evaluate(source)
    assert result == value and type(result) is type(value)


@pytest.mark.parametrize(
    "source, value",
    [("-7 // 2", -4), ("7 // -2", -4), ("-7 % 2", 1), ("7 % -3", -2), ("-7.5 // 2", -4.0)],
    ids=["negative-dividend", "negative-divisor", "modulo-sign", "modulo-negative-divisor", "float"],
)
def test_floor_division_and_modulo_with_negatives(source, value):
    result = evaluate(source)
    assert result == value and type(result) is type(value)
    a, b = (evaluate(part) for part in source.replace("//", "%").split("%"))
    assert evaluate(f"({a}) // ({b}) * ({b}) + ({a}) % ({b})") == a


@pytest.mark.parametrize(
    "source, position",
    [("1 / 0", 2), ("5 // (2 - 2)", 2), ("1 + 4 % 0", 6), ("0 ** -1", 2)],
    ids=["divide", "floor-divide", "modulo", "power"],
)
def test_division_by_zero(source, position):
    with pytest.raises(EvalError, match="division by zero") as info:
        evaluate(source)
    assert info.value.position == position


@pytest.mark.parametrize(
    "source, value",
    [
        ("1 < 2 < 3", True),
        ("1 < 3 < 2", False),
        ("3 > 2 > 1", True),
        ("1 == 1 == 1", True),
        ("0 < x <= 10", False),
        ("1 < 2 == 2", True),
        ("2 > 1 == 1", True),
    ],
    ids=["ascending", "not-ascending", "descending", "equal-chain", "range-check", "mixed", "bool-vs-int"],
)
def test_chained_comparisons(source, value):
    assert evaluate(source, x=11) is value


@pytest.mark.parametrize(
    "source, value",
    [("1 < 2", True), ("2 <= 1", False), ("3 == 3.0", True), ("1 != 1", False), ("2 >= 2", True)],
    ids=["lt", "le", "eq-mixed-types", "ne", "ge"],
)
def test_single_comparisons(source, value):
    assert evaluate(source) is value


def test_and_or_return_operands_like_python():
    assert evaluate("0 or 5") == 5
    assert evaluate("3 and 4") == 4
    assert evaluate("0 and 4") == 0
    assert evaluate("not 0") is True


def test_and_or_short_circuit():
    assert evaluate("x != 0 and 10 / x > 2", x=0) is False
    assert evaluate("x == 0 or 10 / x > 2", x=0) is True
    assert evaluate("missing > 1 and flag", flag=False, missing=0) is False
    assert evaluate("true or undefined_name") is True


def test_conditional_evaluates_one_branch():
    assert evaluate("1 / x if x else 0", x=0) == 0
    assert evaluate("y if x else z", x=1, y="yes") == "yes"


@pytest.mark.parametrize(
    "source, value",
    [
        ("abs(-3)", 3),
        ("max(1, 7, 3)", 7),
        ("min(4, 2)", 2),
        ("round(2.567, 2)", 2.57),
        ("round(2.5)", 2),
        ("sqrt(16)", 4.0),
        ("floor(-1.5) + ceil(1.2)", 0),
        ("log(8, 2)", 3.0),
        ("hypot(3, 4)", 5.0),
        ("cos(pi)", -1.0),
    ],
    ids=["abs", "max", "min", "round-digits", "round-half-even", "sqrt", "floor-ceil", "log-base", "hypot", "constant"],
)
def test_functions(source, value):
    assert evaluate(source) == pytest.approx(value)


@pytest.mark.parametrize(
    "source, message",
    [
        ("abs(1, 2)", "abs() takes 1 arguments, got 2"),
        ("max()", "max() takes 1 or more arguments, got 0"),
        ("round(1, 2, 3)", "round() takes 1 to 2 arguments, got 3"),
        ("nope(1)", "unknown function 'nope'"),
        ("sqrt(-1)", "sqrt(): math domain error"),
        ("(-8) ** 0.5", "result is a complex number"),
        ("10 ** 100000", "exponent too large"),
    ],
    ids=["too-many", "too-few", "range", "unknown", "domain", "complex", "huge-exponent"],
)
def test_evaluation_errors(source, message):
    with pytest.raises(EvalError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        evaluate(source)


def test_undefined_variable_points_at_it():
    with pytest.raises(UndefinedVariable) as info:
        evaluate("rate * hours", rate=2)
    assert info.value.name == "hours"
    assert info.value.pointer() == "rate * hours\n       ^"


def test_error_columns_for_evaluation():
    with pytest.raises(UndefinedVariable) as info:
        evaluate("rate * hours", rate=2)
    assert info.value.column == 8
    assert str(info.value) == "undefined variable 'hours' (column 8)"
    with pytest.raises(EvalError) as info:
        evaluate("1 / 0")
    assert info.value.column == 3


def test_constants_and_overrides():
    assert evaluate("tau / pi") == pytest.approx(2)
    assert evaluate("pi * 2", pi=3) == 6
    assert evaluate("e") == pytest.approx(math.e)


def test_expression_reuse_and_variables():
    expr = parse("price * (1 + rate) + fee")
    assert expr.variables == {"price", "rate", "fee"}
    assert expr.evaluate({"price": 100, "rate": 0.5}, fee=1) == 151
    assert expr.evaluate(price=10, rate=0, fee=0) == 10
    assert parse("max(a, pi)").variables == {"a"}


def test_evaluations_do_not_leak_values():
    expr = parse("x * 2")
    assert expr.evaluate(x=3) == 6
    with pytest.raises(UndefinedVariable):
        expr.evaluate()
    circle = parse("pi * r ** 2")
    assert circle.evaluate(r=1, pi=3) == 3
    assert circle.evaluate(r=1) == pytest.approx(math.pi)
