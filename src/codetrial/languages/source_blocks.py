"""Where a function's body ends in C-like source (Go, Rust, C++, Java): the brace that closes
it, past comments, strings, raw strings and character literals. Used to copy test bodies
(see decoys.py); None when the text is not what it expected, and the test is left alone."""

from __future__ import annotations

import re
from collections.abc import Iterator

_CHAR = re.compile(r"'(?:\\.[^']*|[^\\'\n])'")  # 'a', '\n', '\u{1F600}'; else a lifetime
_RUST_RAW = re.compile(r'r(#*)"')


def body_end(text: str, start: int, backticks: bool = False) -> int | None:
    """The index of the `}` closing the `{` at `start`; `backticks`: Go's raw strings."""
    for index, depth in _braces(text, start, len(text), backticks):
        if depth == 0:
            return index
        if depth < 0:
            return None
    return None


def same_scope(text: str, start: int, stop: int, backticks: bool = False) -> bool:
    """Whether text[start:stop] closes no brace it did not open and leaves none open: a test
    after `start` and one after `stop` are then in the same block (module, class, describe)."""
    depth = 0
    for _, depth in _braces(text, start, stop, backticks):
        if depth < 0:
            return False
    return depth == 0


def _braces(text: str, start: int, stop: int, backticks: bool) -> Iterator[tuple[int, int]]:
    """(index, depth after it) for each brace of code in text[start:stop]; a comment or string
    that never ends yields (its start, -1): the text is not what it looks like."""
    depth, i = 0, start
    while i < stop:
        skip = _skip(text, i, backticks)
        if skip is None:
            yield i, -1
            return
        if skip > i:
            i = skip
            continue
        if text[i] in "{}":
            depth += 1 if text[i] == "{" else -1
            yield i, depth
        i += 1


def _skip(text: str, i: int, backticks: bool) -> int | None:
    """Past the comment, string or literal that starts at i (i itself when none does)."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return None if end < 0 else end + 2
    if text.startswith('"""', i):  # a Java text block
        end = text.find('"""', i + 3)
        return None if end < 0 else end + 3
    raw = _RUST_RAW.match(text, i) if text[i] == "r" and (i == 0 or not _word(text[i - 1])) \
        else None
    if raw:
        close = '"' + raw.group(1)
        end = text.find(close, raw.end())
        return None if end < 0 else end + len(close)
    if text[i] == '"':
        return _quoted_end(text, i)
    if text[i] == "'":
        char = _CHAR.match(text, i)
        return char.end() if char else i + 1
    if backticks and text[i] == "`":
        end = text.find("`", i + 1)
        return None if end < 0 else end + 1
    return i


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _quoted_end(text: str, i: int) -> int | None:
    i += 1
    while i < len(text) and text[i] != '"':
        if text[i] == "\n":
            return None
        i += 2 if text[i] == "\\" else 1
    return i + 1 if i < len(text) else None
