from solution import *


def test_simple_chain():
    assert can_finish(2, [[1, 0]]) is True


def test_two_course_cycle():
    assert can_finish(2, [[1, 0], [0, 1]]) is False


def test_no_prerequisites():
    assert can_finish(3, []) is True


def test_self_dependency():
    assert can_finish(1, [[0, 0]]) is False


def test_shared_prerequisite():
    assert can_finish(3, [[1, 0], [2, 0]]) is True


def test_diamond():
    assert can_finish(4, [[1, 0], [2, 0], [3, 1], [3, 2]]) is True


def test_long_cycle():
    assert can_finish(4, [[1, 0], [2, 1], [3, 2], [0, 3]]) is False


def test_course_reached_twice_from_different_starts():
    assert can_finish(3, [[2, 0], [2, 1]]) is True
