"""Find the lines an edit means, the way a forgiving editor would, and splice in the new ones.

The cascade, tried in order until one step finds the lines exactly once: the same lines; the
same lines but for trailing whitespace; the same lines with a uniform indentation offset (the
replacement is re-indented by the same offset, also across tabs and spaces); the same after
dropping spurious blank lines at the ends of the search; the same ignoring blank lines; and
finally `...` (or `# ...`) elision lines splitting the search into pieces that each match
once. A step that finds the lines more than once stops the cascade: guessing which place was
meant is not safe.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from codetrial.editformats.edits import Edit, EditNotApplied
from codetrial.editformats.text import join_lines, keep_ends, split_lines

# A comparator looks at a window of file lines and the search lines, and returns the
# replacement lines fitted to the file (re-indented), or None when the window is not a match.
Comparator = Callable[[list[str], list[str], list[str]], "list[str] | None"]


def is_elision(line: str) -> bool:
    """A line that stands for unchanged code: `...`, or `# ...` / `// ...`."""
    return line.strip().lstrip("#/").strip() in ("...", "…")


class NoMatch(EditNotApplied):
    """The search lines are nowhere in the file."""


class AmbiguousMatch(EditNotApplied):
    """The search lines are in the file more than once."""


@dataclass
class Located:
    start: int
    end: int
    lines: list[str]
    how: str


# ---------------------------------------------------------------- comparators


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _exact(window: list[str], search: list[str], replace: list[str]) -> list[str] | None:
    return replace if window == search else None


def _trailing(window: list[str], search: list[str], replace: list[str]) -> list[str] | None:
    """Equal but for trailing whitespace; lines the edit keeps keep the file's own text."""
    if not all(a.rstrip() == b.rstrip() for a, b in zip(window, search, strict=True)):
        return None
    kept = dict(zip(search, window, strict=True))
    return [kept.get(line, line) for line in replace]


def _same_text(window: list[str], search: list[str]) -> bool:
    return all(a.strip() == b.strip() for a, b in zip(window, search, strict=True))


def _prefix_offset(window: list[str], search: list[str], replace: list[str]) -> list[str] | None:
    """Every file line is P + its search line (or the reverse): shift the replacement by P."""
    if not _same_text(window, search):
        return None
    offsets = set()
    for have, want in zip(window, search, strict=True):
        if have.strip():
            offsets.add(_offset(_indent(have), _indent(want)))
    if len(offsets) != 1 or None in offsets:
        return None
    sign, prefix = offsets.pop()
    return [_shift(line, sign, prefix) for line in replace]


def _offset(have: str, want: str) -> tuple[str, str] | None:
    if have.endswith(want):
        return "add", have[: len(have) - len(want)]
    if want.endswith(have):
        return "cut", want[: len(want) - len(have)]
    return None


def _shift(line: str, sign: str, prefix: str) -> str:
    if not line.strip():
        return line
    if sign == "add":
        return prefix + line
    return line[len(prefix):] if line.startswith(prefix) else line.lstrip()


def _width_offset(tab: int) -> Comparator:
    """Indentation compared by width with tabs of `tab` columns: a model that wrote spaces
    where the file has tabs (or the reverse) still matches, and the replacement is written
    with the file's own indentation character."""

    def compare(window: list[str], search: list[str], replace: list[str]) -> list[str] | None:
        if not _same_text(window, search):
            return None
        pairs = [(a, b) for a, b in zip(window, search, strict=True) if a.strip()]
        deltas = {_width(_indent(a), tab) - _width(_indent(b), tab) for a, b in pairs}
        if len(deltas) != 1:
            return None
        delta = deltas.pop()
        tabs = any("\t" in _indent(line) for line in window)
        return [_reindent(line, delta, tab, tabs) for line in replace]

    return compare


def _width(indent: str, tab: int) -> int:
    return len(indent.expandtabs(tab))


def _reindent(line: str, delta: int, tab: int, tabs: bool) -> str:
    if not line.strip():
        return line
    width = max(0, _width(_indent(line), tab) + delta)
    indent = "\t" * (width // tab) + " " * (width % tab) if tabs else " " * width
    return indent + line.lstrip()


_STRICT: list[tuple[str, Comparator]] = [("exact", _exact), ("trailing whitespace", _trailing)]
_LOOSE: list[tuple[str, Comparator]] = [
    ("indentation", _prefix_offset),
    ("indentation (tabs of 4)", _width_offset(4)),
    ("indentation (tabs of 8)", _width_offset(8)),
]


# ---------------------------------------------------------------- locating


def _windows(file: list[str], search: list[str], compare: Comparator,
             replace: list[str]) -> list[tuple[int, int, list[str]]]:
    size = len(search)
    found = []
    for start in range(len(file) - size + 1):
        lines = compare(file[start:start + size], search, replace)
        if lines is not None:
            found.append((start, start + size, lines))
    return found


def _sparse_windows(file: list[str], search: list[str], compare: Comparator,
                    replace: list[str]) -> list[tuple[int, int, list[str]]]:
    """Windows over the non-blank lines only: blank lines may differ in number or place."""
    index = [i for i, line in enumerate(file) if line.strip()]
    wanted = [line for line in search if line.strip()]
    dense = [file[i] for i in index]
    return [(index[s], index[e - 1] + 1, lines)
            for s, e, lines in _windows(dense, wanted, compare, replace)]


def _pick(found: list[tuple[int, int, list[str]]], how: str) -> Located | None:
    if len(found) > 1:
        raise AmbiguousMatch(
            f"the lines to replace match {len(found)} places in the file; include more of the "
            "surrounding lines so that they match exactly one place")
    return Located(found[0][0], found[0][1], found[0][2], how) if found else None


def _trim_blank_ends(search: list[str], replace: list[str]) -> tuple[list[str], list[str]]:
    """Drop blank lines at both ends of the search, and at the ends of the replacement where
    it has them too (they were the same spurious lines)."""
    while search and not search[0].strip():
        search = search[1:]
        replace = replace[1:] if replace and not replace[0].strip() else replace
    while search and not search[-1].strip():
        search = search[:-1]
        replace = replace[:-1] if replace and not replace[-1].strip() else replace
    return search, replace


def locate(file: list[str], search: list[str], replace: list[str]) -> Located:
    """Run the cascade; raise NoMatch or AmbiguousMatch."""
    steps = [(how, cmp, _windows, search, replace) for how, cmp in _STRICT + _LOOSE]
    trimmed, trimmed_replace = _trim_blank_ends(search, replace)
    if trimmed != search:
        steps += [(f"{how}, spurious blank lines dropped", cmp, _windows, trimmed,
                   trimmed_replace) for how, cmp in _STRICT + _LOOSE]
    steps += [(f"{how}, blank lines ignored", cmp, _sparse_windows, trimmed, trimmed_replace)
              for how, cmp in _STRICT[1:] + _LOOSE]
    for how, compare, windows, wanted, fitted in steps:
        found = _pick(windows(file, wanted, compare, fitted), how)
        if found:
            return found
    raise NoMatch("these lines do not match lines of the file", join_lines(search))


# ---------------------------------------------------------------- replacing


def replace_once(content: str, search: str, replace: str) -> tuple[str, str]:
    """Replace the one place `search` means with `replace`; return (new content, how).
    An empty search appends to the file (that is how a new or empty file is filled)."""
    wanted, fitted = split_lines(search), split_lines(replace)
    if not any(line.strip() for line in wanted):
        return _append(content, replace), "appended to the end of the file"
    try:
        return _splice(content, locate(split_lines(content), wanted, fitted))
    except NoMatch:
        if not any(is_elision(line) for line in wanted):
            raise
    return _replace_pieces(content, wanted, fitted)


def _append(content: str, addition: str) -> str:
    """Add to the end; a file of blank lines only counts as empty and is replaced."""
    if not content.strip():
        return addition
    if content and not content.endswith("\n"):
        content += "\n"
    return content + addition


def _splice(content: str, found: Located) -> tuple[str, str]:
    """Put the new lines in place. An edit changes lines, not how the file ends: a file
    without a final newline keeps having none."""
    lines = keep_ends(content)
    lines[found.start:found.end] = [line + "\n" for line in found.lines]
    if lines and not content.endswith("\n"):
        lines[-1] = lines[-1].removesuffix("\n")
    note = "replaced " + (f"line {found.end}" if found.end - found.start == 1
                          else f"lines {found.start + 1}-{found.end}")
    return "".join(lines), note if found.how == "exact" else f"{note} ({found.how})"


def _pieces(lines: list[str]) -> list[list[str]]:
    pieces: list[list[str]] = [[]]
    for line in lines:
        if is_elision(line):
            pieces.append([])
        else:
            pieces[-1].append(line)
    return pieces


def _replace_pieces(content: str, search: list[str], replace: list[str]) -> tuple[str, str]:
    """`...` lines elide unchanged code: each piece between them is replaced on its own."""
    wanted, fitted = _pieces(search), _pieces(replace)
    if len(wanted) != len(fitted):
        raise NoMatch("the search and the replacement must have the same number of `...` lines",
                      join_lines(search))
    for piece, new in zip(wanted, fitted, strict=True):
        if not any(line.strip() for line in piece):
            if any(line.strip() for line in new):
                raise NoMatch("a part of the replacement between `...` lines has nothing to "
                              "replace", join_lines(search))
            continue
        content, _ = _splice(content, locate(split_lines(content), piece, new))
    return content, f"replaced {len(wanted)} pieces split by `...` lines"


def apply_replace(edit: Edit, content: str | None) -> tuple[str, str]:
    """Apply a SEARCH/REPLACE style edit; a new file can only be made with an empty search."""
    if content is None:
        if edit.search.strip():
            raise NoMatch("the file does not exist, so its lines cannot be found", edit.search)
        return edit.replace, "created"
    return replace_once(content, edit.search, edit.replace)


def count_exact(file: list[str], window: list[str]) -> int:
    """How often `window` occurs in `file` line for line (used to build unique references)."""
    size = len(window)
    return sum(1 for i in range(len(file) - size + 1) if file[i:i + size] == window)
