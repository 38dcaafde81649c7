from solution import *


def test_odd_length():
    assert longest_palindrome("babad") == "bab"


def test_even_length():
    assert longest_palindrome("cbbd") == "bb"


def test_whole_string_even():
    assert longest_palindrome("abba") == "abba"


def test_single_character():
    assert longest_palindrome("x") == "x"


def test_empty_string():
    assert longest_palindrome("") == ""


def test_no_repeats_returns_first_character():
    assert longest_palindrome("abcde") == "a"


def test_palindrome_in_the_middle():
    assert longest_palindrome("xyzracecarabc") == "racecar"


def test_long_even_palindrome():
    assert longest_palindrome("aaxyzzyxbb") == "xyzzyx"
