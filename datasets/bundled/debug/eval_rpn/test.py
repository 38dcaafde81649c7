from solution import *


def test_example():
    assert eval_rpn(["2", "1", "+", "3", "*"]) == 9


def test_division():
    assert eval_rpn(["4", "13", "5", "/", "+"]) == 6


def test_long_expression():
    tokens = ["10", "6", "9", "3", "+", "-11", "*", "/", "*", "17", "+", "5", "+"]
    assert eval_rpn(tokens) == 22


def test_single_number():
    assert eval_rpn(["42"]) == 42


def test_negative_division_truncates_toward_zero():
    assert eval_rpn(["-7", "2", "/"]) == -3
    assert eval_rpn(["7", "-2", "/"]) == -3


def test_subtraction_order():
    assert eval_rpn(["3", "10", "-"]) == -7


def test_exact_negative_division():
    assert eval_rpn(["-8", "2", "/"]) == -4
