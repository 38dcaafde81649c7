import pytest

from semverkit import InvalidVersion, Version, coerce


def v(text):
    return Version.parse(text)


def test_parse_fields():
    version = v("1.2.3-rc.1+build.007")
    assert version.release == (1, 2, 3)
    assert version.prerelease == ("rc", 1)
    assert version.build == ("build", "007")
    assert version.is_prerelease


@pytest.mark.parametrize(
    "text",
    ["0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7", "1.0.0-x-y-z.--", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85"],
)
def test_str_round_trips(text):
    assert str(v(text)) == text


def test_leading_v_and_whitespace_are_accepted():
    assert v("  v1.2.3 ") == Version(1, 2, 3)


@pytest.mark.parametrize(
    "text",
    ["1", "1.2", "1.2.3.4", "1.2.3-", "1.2.3+", "1.2.3-rc..1", "a.b.c", "1.2.-3", "-1.2.3", "1.2.3-rc!"],
    ids=["major-only", "no-patch", "four-parts", "empty-prerelease", "empty-build", "empty-identifier", "letters", "negative-patch", "negative-major", "bad-character"],
)
def test_invalid_versions(text):
    with pytest.raises(InvalidVersion):
        v(text)


@pytest.mark.parametrize(
    "text",
    ["01.2.3", "1.02.3", "1.2.03", "1.2.3-rc.01", "1.2.3-00"],
    ids=["major", "minor", "patch", "prerelease-number", "prerelease-zeros"],
)
def test_leading_zeros_are_rejected(text):
    with pytest.raises(InvalidVersion):
        v(text)


def test_alphanumeric_identifiers_may_start_with_zero():
    assert v("1.2.3-0a.01b").prerelease == ("0a", "01b")
    assert v("1.2.3+001").build == ("001",)


@pytest.mark.parametrize(
    "lower, higher",
    [
        ("1.0.0", "2.0.0"),
        ("2.0.0", "2.1.0"),
        ("2.1.0", "2.1.1"),
        ("1.9.0", "1.10.0"),
        ("1.0.0-rc.1", "1.0.0"),
        ("1.0.0-beta.2", "1.0.0-beta.11"),
        ("1.0.0-rc.1", "1.0.0-rc.2"),
        ("0.9.9", "1.0.0-alpha"),
    ],
    ids=["major", "minor", "patch", "numeric-not-text", "prerelease-before-release", "numeric-identifiers", "rc", "prerelease-after-lower"],
)
def test_ordering(lower, higher):
    assert v(lower) < v(higher)
    assert v(higher) > v(lower)
    assert max(v(lower), v(higher)) == v(higher)


def test_prerelease_precedence_from_the_spec():
    chain = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
    ]
    versions = [v(text) for text in chain]
    assert sorted(reversed(versions)) == versions
    assert all(a < b for a, b in zip(versions, versions[1:]))
    assert v("1.0.0-1") < v("1.0.0-a")


def test_build_metadata_does_not_affect_precedence():
    assert v("1.0.0+build.1") == v("1.0.0+build.2")
    assert not v("1.0.0+build.1") < v("1.0.0+build.2")
    assert v("1.0.0-rc.1+x") < v("1.0.0+a")


def test_build_metadata_is_ignored_for_equality_and_hashing():
    assert len({v("1.0.0+build.1"), v("1.0.0+build.2"), v("1.0.0")}) == 1
    released = {v("2.1.0+sha.abc"): "stable"}
    assert released[v("2.1.0")] == "stable"
    assert v("2.1.0+sha.def") in released


def test_comparison_with_other_types():
    assert v("1.0.0") != "1.0.0"
    with pytest.raises(TypeError):
        v("1.0.0") < "2.0.0"


@pytest.mark.parametrize(
    "start, part, expected",
    [
        ("1.2.3", "major", "2.0.0"),
        ("1.2.3", "minor", "1.3.0"),
        ("1.2.3", "patch", "1.2.4"),
        ("2.0.0-rc.1", "major", "2.0.0"),
        ("1.2.0-rc.1", "major", "2.0.0"),
        ("1.3.0-beta", "minor", "1.3.0"),
        ("1.3.1-beta", "minor", "1.4.0"),
        ("1.2.3+build", "patch", "1.2.4"),
    ],
    ids=["major", "minor", "patch", "prerelease-to-major", "prerelease-past-major", "prerelease-to-minor", "prerelease-past-minor", "drops-build"],
)
def test_bump(start, part, expected):
    assert str(v(start).bump(part)) == expected


def test_bump_patch_of_a_prerelease_releases_it():
    assert str(v("1.2.3-rc.1").bump("patch")) == "1.2.3"
    assert str(v("0.0.1-0").bump("patch")) == "0.0.1"
    assert str(v("1.2.3-rc.1").bump("patch").bump("patch")) == "1.2.4"


@pytest.mark.parametrize(
    "start, token, expected",
    [
        ("1.2.3", None, "1.2.4-0"),
        ("1.2.3", "beta", "1.2.4-beta.0"),
        ("1.2.4-beta.0", "beta", "1.2.4-beta.1"),
        ("1.2.4-beta.9", None, "1.2.4-beta.10"),
        ("1.2.4-alpha.3", "beta", "1.2.4-beta.0"),
        ("1.2.4-alpha", None, "1.2.4-alpha.0"),
        ("1.2.4-rc.1.x", None, "1.2.4-rc.2.x"),
    ],
    ids=["start", "start-token", "increment", "carry-digits", "switch-token", "append-number", "last-number"],
)
def test_bump_prerelease(start, token, expected):
    assert str(v(start).bump("prerelease", token)) == expected


def test_bump_rejects_unknown_part():
    with pytest.raises(ValueError, match="part must be one of"):
        v("1.0.0").bump("micro")


@pytest.mark.parametrize(
    "text, expected",
    [("v2", "2.0.0"), ("release 1.4 final", "1.4.0"), ("1.2.3.4", "1.2.3"), ("version-10.0.7-beta", "10.0.7"), ("none", None)],
    ids=["major", "words", "extra-part", "embedded", "nothing"],
)
def test_coerce(text, expected):
    result = coerce(text)
    assert (str(result) if result else None) == expected
