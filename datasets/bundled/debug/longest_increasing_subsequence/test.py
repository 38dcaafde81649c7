from solution import *


def test_example():
    assert length_of_lis([10, 9, 2, 5, 3, 7, 101, 18]) == 4


def test_empty():
    assert length_of_lis([]) == 0


def test_decreasing():
    assert length_of_lis([5, 4, 3, 2, 1]) == 1


def test_increasing():
    assert length_of_lis([1, 2, 3, 4]) == 4


def test_all_equal():
    assert length_of_lis([7, 7, 7, 7]) == 1


def test_duplicates_do_not_extend():
    assert length_of_lis([0, 1, 0, 3, 2, 3]) == 4
    assert length_of_lis([1, 3, 3, 3, 5]) == 3


def test_negative_numbers():
    assert length_of_lis([-3, -1, -2, 0, -5, 4]) == 4
