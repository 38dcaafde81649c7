import pytest

from inikit import Config, dump, format_value, loads


def round_trip(config):
    return loads(dump(config), interpolation=False)


def test_dump_layout():
    config = loads("[DEFAULT]\nuser = app\n\n[server]\nHost = example.org\nempty =\n\n[client]\nretries = 3\n")
    assert dump(config) == (
        "[DEFAULT]\nuser = app\n\n[server]\nhost = example.org\nempty =\n\n[client]\nretries = 3\n"
    )


def test_dump_without_defaults_starts_with_first_section():
    assert dump(loads("[only]\nx = 1\n")) == "[only]\nx = 1\n"


def test_dump_keeps_references_raw():
    config = loads("[s]\nroot = /srv\ndata = ${root}/data\n")
    assert "data = ${root}/data" in config.write()


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("plain", id="plain"),
        pytest.param("", id="empty"),
        pytest.param("  leading and trailing  ", id="padded"),
        pytest.param("has # hash after space", id="hash"),
        pytest.param("has ; semicolon after space", id="semicolon"),
        pytest.param("http://example.org/#anchor", id="url-fragment"),
        pytest.param("multi\nline\nvalue", id="multiline"),
        pytest.param("tab\tinside", id="tab"),
        pytest.param("C:\\Users\\me", id="backslashes"),
        pytest.param('say "hello"', id="inner-quotes"),
        pytest.param('"starts with a quote', id="leading-quote"),
        pytest.param(' "quoted and padded" ', id="padded-quotes"),
        pytest.param('ends with backslash and quote \\"', id="backslash-quote"),
        pytest.param("carriage\rreturn", id="carriage-return"),
        pytest.param("${not} interpolated $$ here", id="references"),
    ],
)
def test_round_trip(value):
    config = Config(interpolation=False)
    config.add_section("s")
    config.set("s", "key", value)
    assert round_trip(config).get("s", "key") == value


@pytest.mark.parametrize(
    "value, written",
    [
        pytest.param("simple", "simple", id="simple"),
        pytest.param("a # b", '"a # b"', id="comment"),
        pytest.param(" x", '" x"', id="padded"),
        pytest.param("two\nlines", '"two\\nlines"', id="newline"),
        pytest.param('"q"', '"\\"q\\""', id="quotes"),
        pytest.param("a\\b", "a\\b", id="backslash-unquoted"),
        pytest.param(" a\\b", '" a\\\\b"', id="backslash-quoted"),
    ],
)
def test_format_value(value, written):
    assert format_value(value) == written


def test_round_trip_of_a_whole_config():
    text = "[DEFAULT]\na = 1\n[x]\nb = ${a} # note\nc = \"  spaced\"\n[y]\nd = one\n  two\n"
    config = loads(text, interpolation=False)
    again = round_trip(config)
    assert again.to_dict() == config.to_dict()
    assert again.defaults() == config.defaults()
