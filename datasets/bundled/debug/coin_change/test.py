from solution import *


def test_example():
    assert coin_change([1, 2, 5], 11) == 3


def test_impossible():
    assert coin_change([2], 3) == -1


def test_zero_amount():
    assert coin_change([1], 0) == 0


def test_greedy_is_not_optimal():
    assert coin_change([1, 3, 4], 6) == 2


def test_large_coins_only():
    assert coin_change([5, 10], 3) == -1


def test_exact_single_coin():
    assert coin_change([7, 3], 7) == 1


def test_many_coins():
    assert coin_change([186, 419, 83, 408], 6249) == 20
