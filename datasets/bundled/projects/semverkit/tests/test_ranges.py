import pytest

from semverkit import InvalidRange, Range, satisfies


def normalized(text):
    return str(Range(text))


@pytest.mark.parametrize(
    "text, expected",
    [
        (">=1.2.3 <2.0.0", ">=1.2.3 <2.0.0"),
        (">= 1.2.3  <  2.0.0", ">=1.2.3 <2.0.0"),
        ("1.2.3", "1.2.3"),
        ("=1.2.3", "1.2.3"),
        ("^1.2.3", ">=1.2.3 <2.0.0-0"),
        ("^1.2", ">=1.2.0 <2.0.0-0"),
        ("^1.x", ">=1.0.0 <2.0.0-0"),
        ("^0.x", ">=0.0.0 <1.0.0-0"),
        ("~1.2.3", ">=1.2.3 <1.3.0-0"),
        ("~1.2", ">=1.2.0 <1.3.0-0"),
        ("1.2.x", ">=1.2.0 <1.3.0-0"),
        ("1.x", ">=1.0.0 <2.0.0-0"),
        ("*", ">=0.0.0"),
        ("", ">=0.0.0"),
        (">1.2", ">=1.3.0"),
        ("<=1.2", "<1.3.0-0"),
        ("<1.2", "<1.2.0-0"),
        ("1.2.3 - 2.3.4", ">=1.2.3 <=2.3.4"),
        ("1.2 - 2.3.4", ">=1.2.0 <=2.3.4"),
        ("1.x || >=2.5.0 || 5.0.0 - 7.2.3", ">=1.0.0 <2.0.0-0 || >=2.5.0 || >=5.0.0 <=7.2.3"),
    ],
    ids=[
        "comparators", "spaces", "exact", "equals", "caret", "caret-minor", "caret-x", "caret-zero-x", "tilde", "tilde-minor",
        "x-minor", "x-major", "star", "empty", "greater-partial", "at-most-partial", "less-partial", "hyphen", "hyphen-partial-lower",
        "union",
    ],
)
def test_normalization(text, expected):
    assert normalized(text) == expected


@pytest.mark.parametrize(
    "range_text, version, expected",
    [
        ("^1.2.3", "1.2.3", True),
        ("^1.2.3", "1.9.9", True),
        ("^1.2.3", "2.0.0", False),
        ("^1.2.3", "1.2.2", False),
        ("~1.2.3", "1.2.9", True),
        ("~1.2.3", "1.3.0", False),
        ("1.2.x", "1.2.7", True),
        ("1.2.x", "1.3.0", False),
        (">1.2", "1.2.9", False),
        (">1.2", "1.3.0", True),
        ("1.2.3 - 2.3.4", "2.3.4", True),
        ("1.2.3 - 2.3.4", "2.3.5", False),
        ("<1.0.0 || >=2.0.0", "1.5.0", False),
        ("<1.0.0 || >=2.0.0", "2.5.0", True),
        ("*", "0.0.1", True),
    ],
    ids=[
        "caret-floor", "caret-inside", "caret-next-major", "caret-below", "tilde-inside", "tilde-next-minor", "x-inside",
        "x-next-minor", "greater-partial-same-minor", "greater-partial-next", "hyphen-inclusive", "hyphen-above",
        "union-gap", "union-second", "star",
    ],
)
def test_satisfies(range_text, version, expected):
    assert satisfies(version, range_text) is expected


@pytest.mark.parametrize(
    "range_text, normal, inside, outside",
    [
        ("^0.2.3", ">=0.2.3 <0.3.0-0", "0.2.9", "0.3.0"),
        ("^0.0.3", ">=0.0.3 <0.0.4-0", "0.0.3", "0.0.4"),
        ("^0.2", ">=0.2.0 <0.3.0-0", "0.2.5", "0.3.1"),
        ("^0.0", ">=0.0.0 <0.1.0-0", "0.0.9", "0.1.0"),
    ],
    ids=["minor", "patch", "partial-minor", "partial-zero"],
)
def test_caret_on_zero_versions(range_text, normal, inside, outside):
    assert normalized(range_text) == normal
    assert satisfies(inside, range_text)
    assert not satisfies(outside, range_text)


def test_tilde_with_major_only():
    assert normalized("~1") == ">=1.0.0 <2.0.0-0"
    assert satisfies("1.9.0", "~1")
    assert not satisfies("2.0.0", "~1")
    assert normalized("~0") == ">=0.0.0 <1.0.0-0"


@pytest.mark.parametrize(
    "range_text, normal, inside, outside",
    [
        ("1.2.3 - 2.3", ">=1.2.3 <2.4.0-0", "2.3.9", "2.4.0"),
        ("1.2.3 - 2", ">=1.2.3 <3.0.0-0", "2.9.9", "3.0.0"),
        ("1 - 2.x", ">=1.0.0 <3.0.0-0", "2.5.0", "3.0.0"),
    ],
    ids=["minor", "major", "x-upper"],
)
def test_hyphen_range_with_partial_upper_bound(range_text, normal, inside, outside):
    assert normalized(range_text) == normal
    assert satisfies(inside, range_text)
    assert not satisfies(outside, range_text)


@pytest.mark.parametrize(
    "range_text, version, expected",
    [
        (">=1.0.0", "2.0.0-beta", False),
        ("^1.2.3-beta.2", "1.2.3-beta.4", True),
        ("^1.2.3-beta.2", "1.2.4-beta.1", False),
        (">1.2.3-alpha.3", "1.2.3-alpha.7", True),
        (">1.2.3-alpha.3", "3.4.5-alpha.9", False),
        ("*", "1.0.0-rc.1", False),
        ("1.0.0-rc.1", "1.0.0-rc.1", True),
    ],
    ids=["plain-range", "same-tuple", "other-tuple", "greater-same-tuple", "greater-other-tuple", "star", "exact"],
)
def test_prereleases_need_an_opt_in(range_text, version, expected):
    assert satisfies(version, range_text) is expected


def test_include_prerelease():
    assert satisfies("1.5.0-beta", "^1.2.3", include_prerelease=True)
    assert satisfies("1.2.3-rc.1", ">=1.2.3-rc.0 <=1.2.3", include_prerelease=True)
    assert not satisfies("1.2.3-rc.1", ">=1.2.3", include_prerelease=True)


def test_range_accepts_version_objects_and_in():
    from semverkit import Version

    assert Version(1, 4, 0) in Range("^1.2")
    assert "1.1.0" not in Range("^1.2")


@pytest.mark.parametrize(
    "text",
    [">=1.2.3 <", "^1.2.3.4", "~>1.2", "1.2.3 -", "1.x-beta", ">=01.2.3"],
    ids=["dangling-operator", "four-parts", "ruby-style", "dangling-hyphen", "prerelease-on-partial", "leading-zero"],
)
def test_invalid_ranges(text):
    with pytest.raises(InvalidRange):
        Range(text)
