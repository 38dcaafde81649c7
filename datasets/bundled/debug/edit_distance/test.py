from solution import *


def test_example():
    assert edit_distance("horse", "ros") == 3


def test_identical():
    assert edit_distance("same", "same") == 0


def test_both_empty():
    assert edit_distance("", "") == 0


def test_delete_everything():
    assert edit_distance("abc", "") == 3


def test_insert_everything():
    assert edit_distance("", "abcd") == 4


def test_classic():
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("intention", "execution") == 5


def test_prefix():
    assert edit_distance("abcdef", "abc") == 3


def test_symmetric():
    assert edit_distance("flaw", "lawn") == edit_distance("lawn", "flaw") == 2
