"""The changes a perfect model would describe to turn `before` into `after`.

Each change is a hunk of (mark, line) pairs, marks ' ', '-', '+', computed with difflib. Its
old side is widened with surrounding lines until it occurs exactly once in the file as it is
when the hunk is applied (hunks apply in order), so every format's applier finds it with its
first, exact step. The diff format renders hunks as SEARCH/REPLACE blocks, udiff as @@ hunks,
diff-func as replace_lines arguments.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from codetrial.editformats.matching import count_exact
from codetrial.editformats.text import split_lines, to_lf

Op = tuple[str, str]


def changed_files(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Paths whose content differs (new files included), in the order of `after`."""
    return [path for path, content in after.items() if before.get(path) != content]


def old_side(hunk: list[Op]) -> list[str]:
    return [line for mark, line in hunk if mark != "+"]


def new_side(hunk: list[Op]) -> list[str]:
    return [line for mark, line in hunk if mark != "-"]


def file_hunks(old: str | None, new: str, context: int = 1) -> list[list[Op]]:
    """Hunks that turn `old` into `new` when applied in order; `context` lines of unchanged
    code are kept around each change (more are added where needed to be unique)."""
    a, b = split_lines(to_lf(old or "")), split_lines(to_lf(new))
    if not any(line.strip() for line in a):
        hunk = [("-", line) for line in a] + [("+", line) for line in b]
        return [hunk] if hunk else []  # blank lines only: an empty search replaces them
    current, offset, hunks = list(a), 0, []
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        if all(tag == "equal" for tag, *_ in group):
            continue
        hunk = _group_ops(group, a, b)
        start, end = group[0][1] + offset, group[-1][2] + offset
        hunk, start, end = _widen(current, hunk, start, end)
        current[start:end] = new_side(hunk)
        offset += len(new_side(hunk)) - len(old_side(hunk))
        hunks.append(hunk)
    return hunks


def _group_ops(group: list[tuple[str, int, int, int, int]], a: list[str],
               b: list[str]) -> list[Op]:
    hunk: list[Op] = []
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            hunk += [(" ", line) for line in a[i1:i2]]
            continue
        hunk += [("-", line) for line in a[i1:i2]] + [("+", line) for line in b[j1:j2]]
    return hunk


def _widen(current: list[str], hunk: list[Op], start: int,
           end: int) -> tuple[list[Op], int, int]:
    """Add unchanged lines on both sides until the old side is found exactly once. A window of
    blank lines only is never enough: an empty search means "append"."""
    while not _unique(current, start, end) and (start > 0 or end < len(current)):
        if start > 0:
            start -= 1
            hunk = [(" ", current[start])] + hunk
        if end < len(current):
            hunk = hunk + [(" ", current[end])]
            end += 1
    return hunk, start, end


def _unique(current: list[str], start: int, end: int) -> bool:
    window = current[start:end]
    return any(line.strip() for line in window) and count_exact(current, window) == 1
