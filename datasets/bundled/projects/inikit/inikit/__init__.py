"""inikit: INI-style configuration files with interpolation and typed access."""

from .config import DEFAULT, Config
from .errors import (
    ConversionError,
    DuplicateSectionError,
    InikitError,
    InterpolationError,
    NoOptionError,
    NoSectionError,
    ParseError,
)
from .parser import parse
from .writer import dump, format_value

__all__ = [
    "DEFAULT",
    "Config",
    "ConversionError",
    "DuplicateSectionError",
    "InikitError",
    "InterpolationError",
    "NoOptionError",
    "NoSectionError",
    "ParseError",
    "dump",
    "format_value",
    "loads",
    "parse",
]

__version__ = "1.4.0"


def loads(text: str, **options) -> Config:
    """A :class:`Config` read from ``text``; ``options`` go to :class:`Config`."""
    config = Config(**options)
    config.read_string(text)
    return config
