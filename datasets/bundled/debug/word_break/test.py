from solution import *


def test_example_true():
    assert word_break("applepenapple", ["apple", "pen"]) is True


def test_example_false():
    assert word_break("catsandog", ["cats", "dog", "sand", "and", "cat"]) is False


def test_single_word():
    assert word_break("leet", ["leet"]) is True


def test_two_words():
    assert word_break("leetcode", ["leet", "code"]) is True


def test_no_words_match():
    assert word_break("abc", ["d", "e"]) is False


def test_empty_string():
    assert word_break("", ["a"]) is True


def test_prefix_only():
    assert word_break("aaab", ["a", "aa"]) is False
