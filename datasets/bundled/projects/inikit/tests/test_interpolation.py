import pytest

from inikit import Config, InterpolationError, loads


def test_same_section_reference():
    config = loads("[paths]\nroot = /srv/app\nlogs = ${root}/logs\n")
    assert config.get("paths", "logs") == "/srv/app/logs"
    assert config.get("paths", "logs", raw=True) == "${root}/logs"


def test_other_section_reference_and_chains():
    config = loads("[a]\nx = 1\n[b]\ny = ${a:x}2\n[c]\nz = ${b:y}3\n")
    assert config.get("c", "z") == "123"


def test_default_values_resolve_in_the_reading_section():
    config = loads("[DEFAULT]\nurl = http://${host}:${port}/\nport = 80\n[web]\nhost = w.example\n[api]\nhost = a.example\nport = 8080\n")
    assert config.get("web", "url") == "http://w.example:80/"
    assert config.get("api", "url") == "http://a.example:8080/"


def test_nested_reference_resolves_in_its_own_section():
    config = loads(
        "[paths]\nroot = /srv\ndata = ${root}/data\n"
        "[app]\nroot = /opt/app\nstore = ${paths:data}/store\nlogs = ${root}/logs\n"
    )
    assert config.get("app", "store") == "/srv/data/store"
    assert config.get("app", "logs") == "/opt/app/logs"
    config = loads("[a]\nx = ${y}\ny = 1\n[b]\nref = ${a:x}\n")
    assert config.get("b", "ref") == "1"


@pytest.mark.parametrize(
    "value, expected",
    [("$$5", "$5"), ("$${root}", "${root}"), ("cost: $3", "cost: $3"), ("$$$${root}", "$${root}"), ("${root}$$", "/r$")],
    ids=["price", "escaped-reference", "lone-dollar", "double-escape", "mixed"],
)
def test_dollar_escapes(value, expected):
    config = Config()
    config.read_string(f"[s]\nroot = /r\nv = {value}\n")
    assert config.get("s", "v") == expected


def test_unknown_reference():
    config = loads("[s]\na = ${missing}\nb = ${other:a}\n")
    with pytest.raises(InterpolationError, match=r"\[s\] a: unknown reference \$\{missing\}"):
        config.get("s", "a")
    with pytest.raises(InterpolationError, match="unknown reference"):
        config.get("s", "b")


@pytest.mark.parametrize(
    "text, cycle",
    [
        ("[s]\na = ${a}\n", "s:a -> s:a"),
        ("[s]\na = x${b}\nb = ${c}\nc = ${a}y\n", "s:a -> s:b -> s:c -> s:a"),
        ("[s]\na = ${t:b}\n[t]\nb = ${s:a}\n", "s:a -> t:b -> s:a"),
    ],
    ids=["self", "three-step", "across-sections"],
)
def test_reference_cycle_is_reported(text, cycle):
    with pytest.raises(InterpolationError, match="reference cycle " + cycle):
        loads(text).get("s", "a")


def test_interpolation_can_be_disabled():
    config = Config(interpolation=False)
    config.read_string("[s]\na = 1\nb = ${a}\n")
    assert config.get("s", "b") == "${a}"
    assert config.items("s") == {"a": "1", "b": "${a}"}


def test_items_are_interpolated():
    config = loads("[s]\nname = app\nlog = /var/log/${name}.log\n")
    assert config.items("s") == {"name": "app", "log": "/var/log/app.log"}
    assert config.items("s", raw=True)["log"] == "/var/log/${name}.log"


def test_typed_getters_see_interpolated_values():
    config = loads("[s]\nbase = 8000\nport = ${base}\nenabled = ${flag}\nflag = yes\n")
    assert config.getint("s", "port") == 8000
    assert config.getbool("s", "enabled") is True


def test_set_invalidates_interpolated_values():
    config = loads("[s]\nhost = old.example\nurl = https://${host}/\n")
    assert config.get("s", "url") == "https://old.example/"
    config.set("s", "host", "new.example")
    assert config.get("s", "url") == "https://new.example/"
    assert config.get("s", "host") == "new.example"


def test_remove_option_invalidates_interpolated_values():
    config = loads("[DEFAULT]\nenv = dev\n[s]\nenv = prod\nname = app-${env}\n")
    assert config.get("s", "name") == "app-prod"
    config.remove_option("s", "env")
    assert config.get("s", "name") == "app-dev"


def test_reading_more_sources_invalidates_interpolated_values():
    config = loads("[s]\nv = 1\nw = ${v}\n")
    assert config.get("s", "w") == "1"
    config.read_string("[s]\nv = 2\n")
    assert config.get("s", "w") == "2"
