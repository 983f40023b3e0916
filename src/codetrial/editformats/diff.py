"""diff: SEARCH/REPLACE blocks. The SEARCH part quotes lines of the file, the REPLACE part
says what they become; matching is forgiving (see `matching`).

Markers of 5 to 9 characters are accepted (`<<<<<<< SEARCH`, `=======`, `>>>>>>> REPLACE`).
The file name is on the line just before the block or before its opening fence; a block
without one belongs to the file of the block before it, or to the only file of the exercise.
"""

from __future__ import annotations

import re

from codetrial.editformats.base import Edit, EditFormat, MalformedReply
from codetrial.editformats.matching import apply_replace
from codetrial.editformats.reference import changed_files, file_hunks, new_side, old_side
from codetrial.editformats.text import (
    fence_for,
    fence_of,
    join_lines,
    language_for,
    path_in_info,
    path_near,
    resolve_path,
    split_lines,
    to_lf,
)
from codetrial.models.base import ToolCall

HEAD = re.compile(r"^\s*<{5,9}\s*(?:SEARCH|ORIGINAL)\s*$", re.IGNORECASE)
DIVIDER = re.compile(r"^\s*={5,9}\s*$")
TAIL = re.compile(r"^\s*>{5,9}\s*(?:REPLACE|UPDATED)\s*$", re.IGNORECASE)

PROMPT = """\
Change files with SEARCH/REPLACE blocks. Each block has:

1. the path of the file, on a line by itself;
2. an opening fence, such as ```python;
3. the line <<<<<<< SEARCH;
4. lines copied exactly from the file as it is now, with the same indentation, comments and
   blank lines: enough of them to pick out one place in the file;
5. the line =======;
6. the lines that should take their place;
7. the line >>>>>>> REPLACE;
8. the closing fence.

Keep blocks small: quote only the lines that change plus a few around them, and use several
blocks for changes in different places (they apply in order, top to bottom). To move code, use
one block to delete it and another to insert it. To create a new file, use its new path and an
empty SEARCH part. Do not send whole files.

Example, changing hello.py:

hello.py
```python
<<<<<<< SEARCH
def hello():
    pass
=======
def hello():
    return "Hello, World!"
>>>>>>> REPLACE
```
"""


class DiffFormat(EditFormat):
    name = "diff"

    def system_prompt(self) -> str:
        return PROMPT

    def parse(self, text: str, tool_calls: list[ToolCall], known_files: list[str]) -> list[Edit]:
        lines = split_lines(to_lf(text))
        edits: list[Edit] = []
        index = 0
        while index < len(lines):
            if not HEAD.match(lines[index]):
                index += 1
                continue
            path = _path(lines, index, known_files, edits)
            edit, index = _read_block(lines, index, path)
            edits.append(edit)
        if not edits:
            raise MalformedReply(_no_blocks(text))
        return edits

    def apply_edit(self, edit: Edit, content: str | None) -> tuple[str, str]:
        return apply_replace(edit, content)

    def reference_reply(self, before: dict[str, str],
                        after: dict[str, str]) -> tuple[str, list[ToolCall]]:
        blocks = [render_block(path, join_lines(old_side(hunk)), join_lines(new_side(hunk)))
                  for path in changed_files(before, after)
                  for hunk in file_hunks(before.get(path), after[path])]
        return "\n".join(blocks) or "No change is needed.", []


def render_block(path: str, search: str, replace: str) -> str:
    fence, size = fence_for(search + replace), marker_size(search, replace)
    return (f"{path}\n{fence}{language_for(path)}\n{'<' * size} SEARCH\n{search}{'=' * size}\n"
            f"{replace}{'>' * size} REPLACE\n{fence}\n")


def _path(lines: list[str], head: int, known: list[str], edits: list[Edit]) -> str:
    """The name before the block (or its fence); else the previous block's file; else the
    exercise's only file; else none (apply reports it)."""
    raw = _name_before(lines, head, known)
    if raw:
        return resolve_path(raw, known)
    if edits:
        return edits[-1].path
    return known[0] if len(known) == 1 else ""


def _name_before(lines: list[str], head: int, known: list[str]) -> str | None:
    previous = [line for line in lines[:head] if line.strip()][-2:]
    if not previous:
        return None
    fence = fence_of(previous[-1])
    if fence is None:
        return path_near(previous[-1], known)
    if fence.info:
        named = path_in_info(fence.info)
        if named:
            return named
    return path_near(previous[0], known) if len(previous) == 2 else None


def _read_block(lines: list[str], head: int, path: str) -> tuple[Edit, int]:
    """Read the SEARCH and REPLACE parts; an unfinished block becomes an edit with an error.
    When the code itself has a line like =======, the divider as long as the head wins."""
    end = next((i for i in range(head + 1, len(lines))
                if TAIL.match(lines[i]) or HEAD.match(lines[i])), len(lines))
    dividers = [i for i in range(head + 1, end) if DIVIDER.match(lines[i])]
    if end == len(lines) or HEAD.match(lines[end]) or not dividers:
        return _unfinished(path, lines[head + 1:dividers[0] if dividers else end]), end
    size = _size(lines[head])
    divider = next((i for i in dividers if _size(lines[i]) == size), dividers[0])
    return Edit(path, "replace", search=join_lines(lines[head + 1:divider]),
                replace=join_lines(lines[divider + 1:end])), end + 1


def _size(marker: str) -> int:
    stripped = marker.strip()
    return len(stripped) - len(stripped.lstrip(stripped[:1]))


def marker_size(search: str, replace: str) -> int:
    """A marker length that no line of the code has as a run of `=`, so the divider is clear."""
    taken = {len(line.strip()) for line in (search + replace).split("\n")
             if DIVIDER.match(line)}
    return next((size for size in (7, 9, 8, 6, 5) if size not in taken), 7)


def _unfinished(path: str, search: list[str]) -> Edit:
    """A block cut short; apply reports it and still applies the complete blocks."""
    return Edit(path, "replace", search=join_lines(search),
                error="the block is not finished with ======= and >>>>>>> REPLACE lines (was "
                      "the reply cut off?)")


def _no_blocks(text: str) -> str:
    """Say what came instead of SEARCH/REPLACE blocks, so the model can correct itself."""
    if any(fence_of(line) for line in text.split("\n")):
        return ("No SEARCH/REPLACE blocks were found. The reply has code blocks, but in this "
                "format every change must be a SEARCH/REPLACE block: the file path, a fence, "
                "<<<<<<< SEARCH, the exact current lines, =======, the new lines, "
                ">>>>>>> REPLACE. Do not send whole files.")
    return ("No SEARCH/REPLACE blocks were found in the reply. Make your changes with "
            "SEARCH/REPLACE blocks.")
