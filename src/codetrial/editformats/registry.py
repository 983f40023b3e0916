"""Edit formats by name, as the command line and the edit loop ask for them."""

from __future__ import annotations

from codetrial.core.errors import UsageError
from codetrial.editformats.base import EditFormat
from codetrial.editformats.diff import DiffFormat
from codetrial.editformats.diff_func import DiffFuncFormat
from codetrial.editformats.udiff import UdiffFormat
from codetrial.editformats.whole import WholeFormat
from codetrial.editformats.whole_func import WholeFuncFormat

FORMATS: dict[str, type[EditFormat]] = {
    cls.name: cls
    for cls in (WholeFormat, DiffFormat, UdiffFormat, WholeFuncFormat, DiffFuncFormat)
}


def get_format(name: str) -> EditFormat:
    """A fresh instance of the named format; UsageError lists the known names."""
    try:
        return FORMATS[name]()
    except KeyError:
        known = ", ".join(FORMATS)
        raise UsageError(f"unknown edit format {name!r}; known formats: {known}") from None
