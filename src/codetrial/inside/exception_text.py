"""An exception's traceback as Python prints it, less the carets under each line.

Standalone (stdlib only). Python 3.11's traceback module underlines the failing part of each
line by parsing that line with `ast`: in a freshly forked program this costs about 4 ms and
700 page faults per traceback, more than the rest of a typical HumanEval answer. The text here
is otherwise Python's: the chain of causes and contexts, repeated frames folded as Python folds
them, and the last line from the exception's own type, message and notes (a SyntaxError's, and
an exception group's whole text, from the traceback module itself).
"""

from __future__ import annotations

import collections.abc
import linecache
import sys
import types
from collections.abc import Callable
from typing import TextIO

RECURSIVE_CUTOFF = 3  # identical frames shown before "[Previous line repeated ...]", as Python
CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def print_exception(exc: BaseException, tb: types.TracebackType | None = None,
                    file: TextIO | None = None) -> None:
    """Print `exc` (with `tb` in place of its own traceback, if given) to `file` or stderr."""
    (file or sys.stderr).write(format_exception(exc, tb))


def format_exception(exc: BaseException, tb: types.TracebackType | None = None) -> str:
    return "".join(exception_lines(exc, tb))


def exception_lines(exc: BaseException, tb: types.TracebackType | None = None) -> list[str]:
    """The text in pieces, as traceback.format_exception gives it: one piece per frame."""
    if isinstance(exc, BaseExceptionGroup):  # nested boxes: rare enough for the full module
        import traceback

        return traceback.format_exception(type(exc), exc, tb or exc.__traceback__)
    parts: list[str] = []
    _chain(exc, tb or exc.__traceback__, parts, set())
    return parts


def _chain(exc: BaseException, tb: types.TracebackType | None, parts: list[str],
           seen: set[int]) -> None:
    """What came before `exc` first (its cause, else its context), then `exc` itself."""
    seen.add(id(exc))
    cause, context = exc.__cause__, exc.__context__
    if cause is not None and id(cause) not in seen:
        _chain(cause, cause.__traceback__, parts, seen)
        parts.append(CAUSE)
    elif (cause is None and context is not None and not exc.__suppress_context__
          and id(context) not in seen):
        _chain(context, context.__traceback__, parts, seen)
        parts.append(CONTEXT)
    if tb is not None:
        parts.append("Traceback (most recent call last):\n")
        parts.extend(_frames(tb))
    parts.extend(_last_lines(exc))


def _frames(tb: types.TracebackType | None) -> list[str]:
    lines: list[str] = []
    last: tuple | None = None
    count = 0
    while tb is not None:
        code = tb.tb_frame.f_code
        here = (code.co_filename, tb.tb_lineno, code.co_name)
        if here != last:
            lines.extend(_repeated(count))
            last, count = here, 0
        count += 1
        if count <= RECURSIVE_CUTOFF:
            text = linecache.getline(code.co_filename, tb.tb_lineno, tb.tb_frame.f_globals)
            line = f"    {text.strip()}\n" if text.strip() else ""
            lines.append('  File "{}", line {}, in {}\n'.format(*here) + line)
        tb = tb.tb_next
    lines.extend(_repeated(count))
    return lines


def _repeated(count: int) -> list[str]:
    more = count - RECURSIVE_CUTOFF
    if more <= 0:
        return []
    return [f"  [Previous line repeated {more} more time{'s' if more > 1 else ''}]\n"]


def _last_lines(exc: BaseException) -> list[str]:
    if isinstance(exc, SyntaxError):  # the line and a caret at the offset, as Python shows it
        import traceback

        return traceback.format_exception_only(type(exc), exc)
    kind = type(exc).__qualname__
    module = type(exc).__module__
    if module not in ("__main__", "builtins"):
        kind = f"{module if isinstance(module, str) else '<unknown>'}.{kind}"
    message = _safe_str(exc, "exception")
    lines = [f"{kind}: {message}\n" if message else f"{kind}\n"]
    try:
        notes = getattr(exc, "__notes__", None)
    except Exception as error:  # noqa: BLE001 - a property of the code's own
        notes = [f"Ignored error getting __notes__: {_safe_str(error, '__notes__', repr)}"]
    if isinstance(notes, collections.abc.Sequence):
        lines.extend(f"{line}\n" for note in notes for line in _safe_str(note, "note").split("\n"))
    elif notes is not None:
        lines.append(f"{_safe_str(notes, '__notes__', repr)}\n")
    return lines


def _safe_str(value: object, what: str, show: Callable[[object], str] = str) -> str:
    try:
        return show(value)
    except Exception:  # noqa: BLE001 - the code's own __str__ failed: say so, as Python does
        return f"<{what} {show.__name__}() failed>"
