"""udiff: unified diffs in fenced ```diff blocks, applied without trusting line numbers.

Each hunk is located by its old side (context and removed lines) with the forgiving matching
cascade. When that fails, a good editor keeps trying: it reads the hunk first by judgement (a
line the file has is context; a line it lacks, unmarked or next to a change, was added and
lost its `+`), then with unmarked lines as context, then as added; it trims context lines
from either end until the old side matches exactly once; and as the last resort it splits a
hunk into one hunk per run of changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from codetrial.editformats.base import Edit, EditFormat, EditNotApplied, MalformedReply
from codetrial.editformats.matching import AmbiguousMatch, NoMatch, replace_once
from codetrial.editformats.reference import Op, changed_files, file_hunks, new_side, old_side
from codetrial.editformats.text import (
    join_lines,
    resolve_path,
    split_lines,
    to_lf,
)
from codetrial.models.base import ToolCall

HUNK = re.compile(r"^@@.*$")
GIT_META = re.compile(r"^(?:diff --git |index [0-9a-f]+\.\.|new file mode |deleted file mode )")

PROMPT = """\
Change files with unified diffs, like `diff -U3` writes them, in fenced ```diff blocks.

For each file, start with the header lines `--- path` and `+++ path`. Then write one hunk per
change. A hunk starts with a line `@@ ... @@` (line numbers are not needed and are ignored);
its lines start with a space for a line that stays, `-` for a line to remove and `+` for a
line to add. Copy the lines that stay and the removed lines exactly from the file, with their
indentation, and keep a few unchanged lines around each change so it can be found. When you
rewrite a function, remove all of its old lines and add all of its new ones. To create a new
file, use `--- /dev/null` and add every line with `+`.

Example, changing hello.py:

```diff
--- hello.py
+++ hello.py
@@ ... @@
 def hello():
-    pass
+    return "Hello, World!"
```
"""


class UdiffFormat(EditFormat):
    name = "udiff"

    def system_prompt(self) -> str:
        return PROMPT

    def parse(self, text: str, tool_calls: list[ToolCall], known_files: list[str]) -> list[Edit]:
        edits = _Reader(known_files).read(split_lines(to_lf(text)))
        if not edits:
            raise MalformedReply(_no_diff(text))
        return edits

    def apply_edit(self, edit: Edit, content: str | None) -> tuple[str, str]:
        if content is None:
            return _new_file(edit)
        return apply_hunk(content, edit.hunk)

    def reference_reply(self, before: dict[str, str],
                        after: dict[str, str]) -> tuple[str, list[ToolCall]]:
        parts = [_render(path, path in before, file_hunks(before.get(path), after[path], 2))
                 for path in changed_files(before, after)]
        return "\n".join(part for part in parts if part) or "No change is needed.", []


def _render(path: str, existed: bool, hunks: list[list[Op]]) -> str:
    if not hunks:
        return ""
    lines = [f"--- {path if existed else '/dev/null'}", f"+++ {path}"]
    for hunk in hunks:
        lines += ["@@ ... @@"] + [mark + line for mark, line in hunk]
    return "```diff\n" + join_lines(lines) + "```\n"


def _new_file(edit: Edit) -> tuple[str, str]:
    ops = read_ops(edit.hunk, lambda line: "+")
    if any(mark != "+" for mark, _ in ops):
        raise NoMatch("the file does not exist, so its lines cannot be found",
                      join_lines(old_side(ops)))
    return join_lines(new_side(ops)), "created"


# ---------------------------------------------------------------- parsing


class _Reader:
    """Walks the reply's lines: headers name the file, @@ lines start hunks, fences (and git's
    `diff --git`/`index` lines) end them."""

    def __init__(self, known: list[str]) -> None:
        self.known = known
        self.path: str | None = None
        self.hunk: list[str] | None = None
        self.edits: list[Edit] = []

    def read(self, lines: list[str]) -> list[Edit]:
        index = 0
        while index < len(lines):
            index = self._step(lines, index)
        self._close()
        return self.edits

    def _step(self, lines: list[str], index: int) -> int:
        line = lines[index]
        if line.startswith("--- ") and index + 1 < len(lines) \
                and lines[index + 1].startswith("+++ "):
            self._close()
            self.path = _header_path(lines[index + 1][4:], self.known)
            self.hunk = []
            return index + 2
        if HUNK.match(line):
            self._close()
            self.hunk = []
        elif line.startswith(("```", "~~~")) or GIT_META.match(line):
            self._close()
            self.hunk = None
        elif self.hunk is not None:
            self.hunk.append(line)
        return index + 1

    def _close(self) -> None:
        """Keep a hunk that changes something; trailing blank lines are layout, not context."""
        hunk = self.hunk or []
        while hunk and not hunk[-1]:
            hunk.pop()
        if any(line[:1] != " " and line.strip() and not line.startswith("\\") for line in hunk):
            self.edits.append(self._edit(hunk))
        self.hunk = [] if self.hunk is not None else None

    def _edit(self, hunk: list[str]) -> Edit:
        if self.path is None:
            only = self.known[0] if len(self.known) == 1 else ""
            return Edit(only, "udiff", hunk=hunk)
        if self.path == "":
            return Edit("", "udiff", hunk=hunk, error="deleting files is not supported")
        return Edit(self.path, "udiff", hunk=hunk)


def _header_path(header: str, known: list[str]) -> str:
    """The file a +++ line names ("" for a deletion), its timestamp and any b/ prefix removed
    (unless the exercise really has a folder of that name)."""
    path = header.split("\t")[0].strip()
    if path == "/dev/null":
        return ""
    if path in known or not path.startswith(("a/", "b/")):
        return resolve_path(path, known)
    return resolve_path(path[2:], known)


def _no_diff(text: str) -> str:
    if "```" in text:
        return ("No unified diff was found. The reply has code blocks, but in this format every "
                "change must be a diff: `--- path`, `+++ path`, then `@@ ... @@` hunks whose "
                "lines start with a space, `-` or `+`. Do not send whole files.")
    return "No unified diff was found in the reply. Make your changes with unified diffs."


# ---------------------------------------------------------------- applying


def read_ops(hunk: list[str], unmarked: Callable[[str], str]) -> list[Op]:
    """(mark, line) pairs; an empty line is blank context, `unmarked` decides the others."""
    ops: list[Op] = []
    for line in hunk:
        if line.startswith("\\"):
            continue
        if line[:1] in (" ", "-", "+"):
            ops.append((line[0], line[1:]))
        elif not line.strip():
            ops.append((" ", ""))
        else:
            ops.append((unmarked(line), line))
    return ops


def _readings(hunk: list[str], content: str) -> list[list[Op]]:
    """The ways to read a hunk, most likely first: by judgement, then unmarked lines as
    context, then unmarked lines as added."""
    present = {line.strip() for line in split_lines(content)}
    readings = [_lost_plus(read_ops(hunk, lambda line: " " if line.strip() in present
                                    else "+"), present),
                read_ops(hunk, lambda line: " "), read_ops(hunk, lambda line: "+")]
    return [ops for number, ops in enumerate(readings) if ops not in readings[:number]]


def _lost_plus(ops: list[Op], present: set[str]) -> list[Op]:
    """A "context" line the file does not have, next to a change, is an indented added line
    that lost its `+`: its first space was indentation, not a mark."""
    ops = list(ops)
    changed = True
    while changed:
        changed = False
        for i, (mark, line) in enumerate(ops):
            if mark == " " and line.strip() and line.strip() not in present \
                    and _next_to_change(ops, i):
                ops[i] = ("+", " " + line)
                changed = True
    return ops


def _next_to_change(ops: list[Op], index: int) -> bool:
    around = ops[max(0, index - 1):index] + ops[index + 1:index + 2]
    return any(mark != " " for mark, _ in around)


def apply_hunk(content: str, hunk: list[str]) -> tuple[str, str]:
    """Apply one hunk to a file's text; raise NoMatch or AmbiguousMatch."""
    readings = _readings(hunk, content)
    ambiguous: AmbiguousMatch | None = None
    for ops in _trims(readings):
        try:
            return replace_once(content, join_lines(old_side(ops)), join_lines(new_side(ops)))
        except AmbiguousMatch as exc:
            ambiguous = ambiguous or exc
        except NoMatch:
            continue
    split = _apply_split(content, readings[0])
    if split is not None:
        return split
    raise ambiguous or NoMatch("these lines do not match lines of the file",
                               join_lines(old_side(readings[0])))


def _trims(readings: list[list[Op]]):
    """Each reading with its context trimmed progressively from the ends: fewer lines first
    from neither end, then one, two, ... in total. A trimmed hunk must still find something."""
    yield from readings
    for total in range(1, max(_context_run(ops) for ops in readings) + 1):
        for ops in readings:
            lead, tail = _edge_context(ops)
            for cut in range(max(0, total - tail), min(lead, total) + 1):
                trimmed = ops[cut:len(ops) - (total - cut)]
                if any(line.strip() for line in old_side(trimmed)):
                    yield trimmed


def _edge_context(ops: list[Op]) -> tuple[int, int]:
    lead = next((i for i, (mark, _) in enumerate(ops) if mark != " "), len(ops))
    tail = next((i for i, (mark, _) in enumerate(reversed(ops)) if mark != " "), len(ops))
    return lead, tail


def _context_run(ops: list[Op]) -> int:
    return sum(_edge_context(ops))


def _apply_split(content: str, ops: list[Op]) -> tuple[str, str] | None:
    """Last resort: one hunk per run of changes, each with the context around it."""
    pieces = _split(ops)
    if len(pieces) < 2:
        return None
    for piece in pieces:
        try:
            content, _ = apply_hunk(content, [mark + line for mark, line in piece])
        except EditNotApplied:
            return None
    return content, f"applied as {len(pieces)} smaller hunks"


def _split(ops: list[Op]) -> list[list[Op]]:
    changes = [i for i, (mark, _) in enumerate(ops) if mark != " "]
    runs: list[list[int]] = []
    for i in changes:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    starts = [0] + [run[-1] + 1 for run in runs[:-1]]
    ends = [run[0] for run in runs[1:]] + [len(ops)]
    return [ops[start:end] for start, end in zip(starts, ends, strict=True)]
