import pytest

from inikit import ParseError, parse


def values(text, **options):
    return {name: {k: e.value for k, e in s.entries.items()} for name, s in parse(text, **options).items()}


def test_sections_and_keys_in_order():
    text = "[server]\nhost = example.org\nport = 8080\n\n[client]\nretries = 3\n"
    assert values(text) == {
        "server": {"host": "example.org", "port": "8080"},
        "client": {"retries": "3"},
    }
    assert list(parse(text)) == ["server", "client"]


@pytest.mark.parametrize(
    "line",
    ["name = value", "name=value", "name: value", "name :value", "  name = value  "],
    ids=["equals", "equals-tight", "colon", "colon-tight", "indented"],
)
def test_delimiters_and_surrounding_whitespace(line):
    assert values(f"[s]\n{line}\n") == {"s": {"name": "value"}}


def test_first_delimiter_splits_key_from_value():
    assert values("[s]\nurl = http://example.org:80/a=b\n")["s"]["url"] == "http://example.org:80/a=b"
    assert values("[s]\ntime: 12:30\n")["s"]["time"] == "12:30"


def test_keys_are_case_insensitive_but_sections_are_not():
    doc = values("[Paths]\nHOME = /root\n[paths]\nhome = /home\n")
    assert doc == {"Paths": {"home": "/root"}, "paths": {"home": "/home"}}


def test_empty_value():
    assert values("[s]\nempty =\nalso:\n") == {"s": {"empty": "", "also": ""}}


@pytest.mark.parametrize("comment", ["# hash", "; semicolon", "   # indented"], ids=["hash", "semicolon", "indented"])
def test_full_line_comments_are_ignored(comment):
    assert values(f"{comment}\n[s]\n{comment}\nkey = 1\n") == {"s": {"key": "1"}}


@pytest.mark.parametrize(
    "line, expected",
    [
        ("key = value # trailing", "value"),
        ("key = value ; trailing", "value"),
        ("key = a b\t# tab before hash", "a b"),
        ("key = # only a comment", "# only a comment"),
    ],
    ids=["hash", "semicolon", "tab", "leading-hash"],
)
def test_inline_comments(line, expected):
    assert values(f"[s]\n{line}\n")["s"]["key"] == expected


@pytest.mark.parametrize(
    "line, expected",
    [
        ("url = http://example.org/docs#install", "http://example.org/docs#install"),
        ("channel = irc://chat/#python;ssl", "irc://chat/#python;ssl"),
        ("color = #ff0000", "#ff0000"),
    ],
    ids=["url-fragment", "irc-channel", "hex-color"],
)
def test_hash_without_space_is_part_of_value(line, expected):
    assert values(f"[s]\n{line}\n")["s"][line.split()[0]] == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        (r'"  padded  "', "  padded  "),
        (r'"a # not a comment"', "a # not a comment"),
        (r'"say \"hi\""', 'say "hi"'),
        (r'"C:\\temp\\new"', "C:\\temp\\new"),
        (r'"line1\nline2\tend"', "line1\nline2\tend"),
        (r'"quoted" # comment after', "quoted"),
        (r'""', ""),
    ],
    ids=["padding", "hash", "escaped-quote", "backslashes", "newline-tab", "comment-after", "empty"],
)
def test_quoted_values(raw, expected):
    assert values(f"[s]\nkey = {raw}\n")["s"]["key"] == expected


def test_continuation_lines_join_with_newlines():
    text = "[s]\nhosts = alpha\n    beta  # second\n\tgamma\nnext = 1\n"
    assert values(text)["s"] == {"hosts": "alpha\nbeta\ngamma", "next": "1"}


def test_value_may_start_on_next_line():
    text = "[s]\ncommand =\n    ls\n    -la\n"
    assert values(text)["s"]["command"] == "ls\n-la"


def test_blank_line_ends_continuation():
    text = "[s]\na = 1\n\n  b = 2\n"
    assert values(text)["s"] == {"a": "1", "b": "2"}


def test_comment_inside_continuation_is_skipped():
    text = "[s]\nlist = one\n  # two is disabled\n  three\n"
    assert values(text)["s"]["list"] == "one\nthree"


def test_windows_line_endings():
    assert values("[s]\r\nkey = value\r\nother = 2\r\n") == {"s": {"key": "value", "other": "2"}}


def test_duplicate_key_in_strict_mode_names_both_lines():
    with pytest.raises(ParseError, match=r"duplicate key 'port' \(first on line 2\)") as info:
        parse("[s]\nport = 1\nPORT = 2\n")
    assert info.value.lineno == 3


def test_duplicates_merge_when_not_strict():
    doc = values("[s]\na = 1\n[t]\nx = 0\n[s]\na = 2\nb = 3\n", strict=False)
    assert doc == {"s": {"a": "2", "b": "3"}, "t": {"x": "0"}}


@pytest.mark.parametrize(
    "text, lineno, message",
    [
        ("key = 1\n", 1, "key outside of any section"),
        ("[s]\n\nno delimiter here\n", 3, "expected 'key = value'"),
        ("# c\n[s]\n= value\n", 3, "empty key"),
        ("[s]\na = 1\n[unterminated\n", 3, "unterminated section header"),
        ("[s]\nx = \"open\n", 2, "unterminated quoted value"),
        ("[s]\n[]\n", 2, "empty section name"),
        ("[s]\n\n\n[t] junk\n", 4, "unexpected text after section header"),
        ("[s]\nx = \"a\\qb\"\n", 2, "unknown escape"),
    ],
    ids=["outside-section", "no-delimiter", "empty-key", "header", "quote", "empty-section", "junk", "escape"],
)
def test_error_reports_line_number(text, lineno, message):
    with pytest.raises(ParseError) as info:
        parse(text, source="app.ini")
    assert info.value.lineno == lineno
    assert message in str(info.value)
    assert str(info.value).startswith(f"app.ini:{lineno}: ")
