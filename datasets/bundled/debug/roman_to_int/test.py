from solution import *


def test_single_symbols():
    assert roman_to_int("I") == 1
    assert roman_to_int("M") == 1000


def test_additive():
    assert roman_to_int("VI") == 6
    assert roman_to_int("LX") == 60


def test_repeated_symbols():
    assert roman_to_int("III") == 3
    assert roman_to_int("XX") == 20


def test_subtractive():
    assert roman_to_int("IV") == 4
    assert roman_to_int("XC") == 90


def test_mixed():
    assert roman_to_int("MCMXCIV") == 1994
    assert roman_to_int("LVIII") == 58


def test_year_with_repeats():
    assert roman_to_int("MMXXIII") == 2023
