from solution import *


def test_example():
    assert count_islands([["1", "1", "0"], ["0", "1", "0"], ["0", "0", "1"]]) == 2


def test_empty_grid():
    assert count_islands([]) == 0


def test_all_water():
    assert count_islands([["0", "0"], ["0", "0"]]) == 0


def test_diagonal_cells_are_separate():
    assert count_islands([["1", "0"], ["0", "1"]]) == 2


def test_opposite_edges_do_not_connect():
    grid = [
        ["1", "0", "0", "1"],
        ["0", "0", "0", "0"],
        ["1", "0", "0", "0"],
    ]
    assert count_islands(grid) == 3


def test_top_and_bottom_rows_do_not_connect():
    assert count_islands([["1"], ["0"], ["1"]]) == 2


def test_one_big_island():
    assert count_islands([["1", "1", "1"], ["1", "0", "1"], ["1", "1", "1"]]) == 1


def test_grid_is_not_modified():
    grid = [["1", "0"], ["1", "1"]]
    count_islands(grid)
    assert grid == [["1", "0"], ["1", "1"]]
