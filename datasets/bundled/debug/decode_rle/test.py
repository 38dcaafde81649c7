from solution import *


def test_example():
    assert decode_rle("3a2bc") == "aaabbc"


def test_empty():
    assert decode_rle("") == ""


def test_no_counts():
    assert decode_rle("abc") == "abc"


def test_multi_digit_count():
    assert decode_rle("12x") == "x" * 12


def test_multi_digit_count_in_the_middle():
    assert decode_rle("a10b2c") == "a" + "b" * 10 + "cc"


def test_count_of_one():
    assert decode_rle("1a1b") == "ab"


def test_digits_of_count_with_zero():
    assert decode_rle("20z") == "z" * 20
