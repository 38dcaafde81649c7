from solution import *


def test_example():
    assert top_k_frequent(["i", "love", "code", "i", "love", "coding"], 2) == ["i", "love"]


def test_ties_are_alphabetical():
    assert top_k_frequent(["b", "a", "c", "b", "a", "c"], 2) == ["a", "b"]


def test_frequency_first():
    words = ["the", "day", "is", "sunny", "the", "the", "the", "sunny", "is", "is"]
    assert top_k_frequent(words, 4) == ["the", "is", "sunny", "day"]


def test_k_larger_than_vocabulary():
    assert top_k_frequent(["x", "y", "x"], 5) == ["x", "y"]


def test_single_word():
    assert top_k_frequent(["solo"], 1) == ["solo"]


def test_all_unique():
    assert top_k_frequent(["pear", "apple", "fig"], 3) == ["apple", "fig", "pear"]
