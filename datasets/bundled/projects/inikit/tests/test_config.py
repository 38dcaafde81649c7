import pytest

from inikit import (
    ConversionError,
    Config,
    DuplicateSectionError,
    NoOptionError,
    NoSectionError,
    ParseError,
    loads,
)

APP = """
[DEFAULT]
timeout = 30
debug = off

[server]
host = example.org
port = 8080
debug = yes

[client]
retries = 3
ratio = 0.75
hosts = a.example.org, b.example.org,
    c.example.org
"""


@pytest.fixture
def config():
    return loads(APP)


def test_sections_exclude_default(config):
    assert config.sections() == ["server", "client"]
    assert "server" in config and "DEFAULT" not in config


def test_default_values_are_visible_in_every_section(config):
    assert config.get("client", "timeout") == "30"
    assert config.getbool("server", "debug") is True
    assert config.getbool("client", "debug") is False


def test_missing_section_and_key(config):
    with pytest.raises(NoSectionError):
        config.get("nope", "host")
    with pytest.raises(NoOptionError, match=r"no key 'nope' in section \[server\]"):
        config.get("server", "nope")
    assert config.get("server", "nope", fallback=None) is None
    assert config.getint("nope", "x", fallback=7) == 7


def test_key_lookup_ignores_case(config):
    assert config.get("server", "HOST") == "example.org"
    assert config.has_option("server", "Port")
    assert config.has_option("client", "TIMEOUT")
    assert not config.has_option("client", "host")


def test_getint_getfloat(config):
    assert config.getint("server", "port") == 8080
    assert config.getfloat("client", "ratio") == 0.75
    with pytest.raises(ConversionError, match=r"\[server\] host: expected an integer, got 'example.org'"):
        config.getint("server", "host")


@pytest.mark.parametrize("text, expected", [("yes", True), ("on", True), ("1", True), ("no", False), ("off", False), ("0", False)])
def test_getbool_accepts_common_spellings(text, expected):
    assert loads(f"[s]\nflag = {text}\n").getbool("s", "flag") is expected


@pytest.mark.parametrize("text, expected", [("True", True), ("YES", True), ("On", True), ("FALSE", False), ("Off", False)])
def test_getbool_is_case_insensitive(text, expected):
    assert loads(f"[s]\nflag = {text}\n").getbool("s", "flag") is expected


def test_getbool_rejects_other_text():
    with pytest.raises(ConversionError, match="expected a boolean"):
        loads("[s]\nflag = maybe\n").getbool("s", "flag")


def test_getlist_splits_on_separator_and_lines(config):
    assert config.getlist("client", "hosts") == ["a.example.org", "b.example.org", "c.example.org"]
    assert loads("[s]\npath = /bin:/usr/bin\n").getlist("s", "path", sep=":") == ["/bin", "/usr/bin"]
    assert loads("[s]\nnone =\n").getlist("s", "none") == []


def test_items_merge_defaults(config):
    assert config.items("client") == {
        "timeout": "30",
        "debug": "off",
        "retries": "3",
        "ratio": "0.75",
        "hosts": "a.example.org, b.example.org,\nc.example.org",
    }


def test_items_section_overrides_default(config):
    items = config.items("server")
    assert items["debug"] == "yes"
    assert items["timeout"] == "30"
    assert config.to_dict()["server"]["debug"] == "yes"


def test_later_sources_override_earlier_ones():
    config = Config()
    config.read_string("[db]\nhost = localhost\nport = 5432\n", source="base.ini")
    config.read_string("[db]\nhost = db.internal\n[cache]\nsize = 64\n", source="prod.ini")
    assert config.items("db") == {"host": "db.internal", "port": "5432"}
    assert config.sections() == ["db", "cache"]


def test_duplicate_keys_are_rejected_by_default():
    with pytest.raises(ParseError, match="duplicate key 'port'"):
        loads("[s]\nport = 1\nport = 2\n")
    relaxed = loads("[s]\nport = 1\nport = 2\n", strict=False)
    assert relaxed.get("s", "port") == "2"


def test_read_file(tmp_path):
    path = tmp_path / "app.ini"
    path.write_text("[s]\nname = caf\u00e9\n", encoding="utf-8")
    config = Config()
    config.read_file(path)
    assert config.get("s", "name") == "caf\u00e9"


def test_set_and_remove(config):
    config.set("server", "Port", "9090")
    assert config.getint("server", "port") == 9090
    assert config.remove_option("server", "port") is True
    assert config.remove_option("server", "port") is False
    assert not config.has_option("server", "port")
    assert config.remove_section("client") is True
    assert config.sections() == ["server"]


def test_set_validates_input(config):
    with pytest.raises(TypeError, match="values must be strings"):
        config.set("server", "port", 9090)
    with pytest.raises(NoSectionError):
        config.set("nope", "a", "b")
    with pytest.raises(ValueError, match="invalid key"):
        config.set("server", "a=b", "c")


def test_add_section(config):
    config.add_section("logging")
    config.set("logging", "level", "info")
    assert config.items("logging")["level"] == "info"
    with pytest.raises(DuplicateSectionError):
        config.add_section("logging")
    with pytest.raises(ValueError, match="invalid section name"):
        config.add_section("bad]name")


def test_defaults_argument():
    config = Config({"Color": "blue", "size": 3})
    config.read_string("[s]\n")
    assert config.get("s", "color") == "blue"
    assert config.get("s", "size") == "3"


def test_instances_do_not_share_defaults():
    first = Config()
    first.set("DEFAULT", "owner", "alice")
    second = Config()
    second.read_string("[s]\n")
    assert not second.has_option("s", "owner")
    assert second.defaults() == {}


def test_defaults_argument_is_copied():
    shared = {"region": "eu"}
    config = Config(shared)
    config.set("DEFAULT", "region", "us")
    assert shared == {"region": "eu"}
    assert Config(shared).defaults() == {"region": "eu"}
