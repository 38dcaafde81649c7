import pytest

from semverkit import Range, Version, diff, max_satisfying, min_satisfying, sort_versions

RELEASES = ["1.0.0", "1.2.0", "1.2.5", "2.0.0-rc.1", "2.0.0", "2.1.3", "3.0.0"]


def test_sort_versions_strings_and_objects():
    shuffled = ["2.0.0", "1.0.0-beta", "1.0.0", "0.9.0", "1.0.0-alpha"]
    assert sort_versions(shuffled) == ["0.9.0", "1.0.0-alpha", "1.0.0-beta", "1.0.0", "2.0.0"]
    assert sort_versions(shuffled, reverse=True)[0] == "2.0.0"
    objects = [Version(1, 0, 0), Version(0, 1, 0)]
    assert sort_versions(objects) == [Version(0, 1, 0), Version(1, 0, 0)]


def test_sort_is_stable_for_equal_precedence():
    assert sort_versions(["1.0.0+b", "1.0.0+a", "0.1.0"]) == ["0.1.0", "1.0.0+b", "1.0.0+a"]


@pytest.mark.parametrize(
    "range_text, expected",
    [("^1.0.0", "1.2.5"), ("~1.2.0", "1.2.5"), (">=2.0.0", "3.0.0"), ("<1.0.0", None), ("2.x", "2.1.3"), ("1.0.0 - 2.0.0", "2.0.0")],
    ids=["caret", "tilde", "open-upper", "none", "x-range", "hyphen"],
)
def test_max_satisfying(range_text, expected):
    assert max_satisfying(RELEASES, range_text) == expected


@pytest.mark.parametrize(
    "range_text, expected",
    [("^1.0.0", "1.0.0"), (">1.2.0", "1.2.5"), ("^2.0.0", "2.0.0"), ("4.x", None)],
    ids=["caret", "greater", "skips-prerelease", "none"],
)
def test_min_satisfying(range_text, expected):
    assert min_satisfying(RELEASES, range_text) == expected


def test_max_satisfying_compares_versions_not_text():
    assert max_satisfying(["1.9.0", "1.10.0", "1.2.0"], "^1.0.0") == "1.10.0"
    assert max_satisfying(["0.9.9", "0.10.0"], "*") == "0.10.0"


def test_satisfying_with_prereleases_and_objects():
    assert max_satisfying(RELEASES, ">=2.0.0-rc.0 <2.0.0") == "2.0.0-rc.1"
    assert max_satisfying(RELEASES, "^1.0.0 || ^2.0.0", include_prerelease=True) == "2.1.3"
    objects = [Version.parse(text) for text in RELEASES]
    assert max_satisfying(objects, Range("~2.0")) == Version(2, 0, 0)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("1.2.3", "2.0.0", "major"),
        ("1.2.3", "1.3.0", "minor"),
        ("1.2.3", "1.2.4", "patch"),
        ("1.2.3-rc.1", "1.2.3", "prerelease"),
        ("1.2.3+a", "1.2.3+b", None),
        ("1.2.3", "1.2.3", None),
    ],
    ids=["major", "minor", "patch", "prerelease", "build-only", "equal"],
)
def test_diff(a, b, expected):
    assert diff(a, b) == expected
    assert diff(b, a) == expected
