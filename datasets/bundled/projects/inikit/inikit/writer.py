"""Writing a :class:`~inikit.config.Config` back to text that reads back the same."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, List

if TYPE_CHECKING:
    from .config import Config

# A value that would read back differently unless quoted: an inline comment,
# a leading quote, or characters the parser strips or splits lines on.
_INLINE_COMMENT = re.compile(r"\s[#;]")
_ESCAPES = [("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t")]


def dump(config: Config) -> str:
    """Text for ``config``: DEFAULT first (when it has keys), then every
    section in order. Values are written raw, so references survive."""
    blocks: List[str] = []
    defaults = config.defaults()
    if defaults:
        blocks.append(_section("DEFAULT", defaults))
    for name in config.sections():
        blocks.append(_section(name, config.own_items(name)))
    return "\n".join(blocks)


def format_value(value: str) -> str:
    if not needs_quotes(value):
        return value
    for plain, escaped in _ESCAPES:
        value = value.replace(plain, escaped)
    return f'"{value}"'


def needs_quotes(value: str) -> bool:
    return (
        value != value.strip()
        or value.startswith('"')
        or "\n" in value
        or "\r" in value
        or _INLINE_COMMENT.search(value) is not None
    )


def _section(name: str, values: Dict[str, str]) -> str:
    lines = [f"[{name}]"]
    lines.extend(f"{key} = {format_value(value)}".rstrip() for key, value in values.items())
    return "\n".join(lines) + "\n"
