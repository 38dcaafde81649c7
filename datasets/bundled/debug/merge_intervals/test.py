from solution import *


def test_example():
    assert merge_intervals([[1, 3], [2, 6], [8, 10], [15, 18]]) == [[1, 6], [8, 10], [15, 18]]


def test_touching_intervals_merge():
    assert merge_intervals([[1, 4], [4, 5]]) == [[1, 5]]


def test_unsorted_input():
    assert merge_intervals([[8, 10], [1, 3], [2, 6]]) == [[1, 6], [8, 10]]


def test_contained_interval():
    assert merge_intervals([[1, 10], [2, 3], [4, 5]]) == [[1, 10]]


def test_contained_interval_followed_by_overlap():
    assert merge_intervals([[1, 10], [2, 3], [9, 12]]) == [[1, 12]]


def test_empty_and_single():
    assert merge_intervals([]) == []
    assert merge_intervals([[5, 7]]) == [[5, 7]]


def test_input_is_not_modified():
    intervals = [[1, 4], [2, 3]]
    merge_intervals(intervals)
    assert intervals == [[1, 4], [2, 3]]
