from solution import *


def test_example():
    assert shortest_paths(4, [(0, 1, 4), (0, 2, 1), (2, 1, 2), (1, 3, 1)], 0) == [0, 3, 1, 4]


def test_single_node():
    assert shortest_paths(1, [], 0) == [0]


def test_unreachable_nodes():
    assert shortest_paths(3, [(0, 1, 5)], 0) == [0, 5, -1]


def test_edges_are_directed():
    assert shortest_paths(2, [(1, 0, 1)], 0) == [0, -1]


def test_longer_path_with_smaller_total():
    edges = [(0, 1, 10), (0, 2, 1), (2, 3, 1), (3, 1, 1)]
    assert shortest_paths(4, edges, 0) == [0, 3, 1, 2]


def test_parallel_edges_and_zero_weights():
    edges = [(0, 1, 7), (0, 1, 2), (1, 2, 0)]
    assert shortest_paths(3, edges, 0) == [0, 2, 2]


def test_other_source():
    edges = [(0, 1, 1), (1, 2, 2), (2, 0, 3)]
    assert shortest_paths(3, edges, 1) == [5, 0, 2]
