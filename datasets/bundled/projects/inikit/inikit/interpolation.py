"""``${key}`` and ``${section:key}`` references between values."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Tuple

from .errors import InterpolationError

if TYPE_CHECKING:
    from .config import Config

# ``$$`` is an escaped dollar; ``${...}`` a reference. Anything else after a
# ``$`` is left alone so that prices and shell snippets need no escaping.
REFERENCE = re.compile(r"\$(?:(\$)|\{([^{}]*)\})")

Link = Tuple[str, str]


def interpolate(config: Config, section: str, key: str, value: str) -> str:
    """Expand the references in ``value``, which is ``key`` of ``section``.

    A reference without a section name resolves in the section being read,
    even when the referring value was inherited from DEFAULT: a DEFAULT of
    ``url = http://${host}/`` gives every section its own host.
    """
    return _expand(config, section, value, ((section, key),))


def _expand(config: Config, section: str, value: str, chain: Tuple[Link, ...]) -> str:
    def replace(match: re.Match) -> str:
        if match.group(1):
            return "$"
        link = _parse_reference(match.group(2), section, chain)
        if link in chain:
            cycle = " -> ".join(f"{s}:{k}" for s, k in chain + (link,))
            raise InterpolationError(chain[0][0], chain[0][1], f"reference cycle {cycle}")
        try:
            raw = config.get(link[0], link[1], raw=True)
        except LookupError:
            raise InterpolationError(
                chain[0][0], chain[0][1], f"unknown reference ${{{match.group(2)}}}"
            ) from None
        return _expand(config, link[0], raw, chain + (link,))

    return REFERENCE.sub(replace, value)


def _parse_reference(text: str, section: str, chain: Tuple[Link, ...]) -> Link:
    ref_section, sep, ref_key = text.rpartition(":")
    if not sep:
        ref_section = section
    ref_key = ref_key.strip().lower()
    if not ref_key or not ref_section.strip():
        raise InterpolationError(chain[0][0], chain[0][1], f"malformed reference ${{{text}}}")
    return (ref_section.strip(), ref_key)
