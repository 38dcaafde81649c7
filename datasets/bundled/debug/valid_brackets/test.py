from solution import *


def test_nested():
    assert is_valid("([]{})") is True


def test_wrong_type():
    assert is_valid("(]") is False


def test_wrong_order():
    assert is_valid("([)]") is False


def test_empty():
    assert is_valid("") is True


def test_unclosed():
    assert is_valid("((") is False


def test_closing_without_opening():
    assert is_valid("())") is False


def test_other_characters_ignored():
    assert is_valid("f(a[i]) { return x; }") is True


def test_unclosed_after_valid_prefix():
    assert is_valid("()[]{") is False
