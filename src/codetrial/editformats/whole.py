"""whole: the model sends the complete new text of each file it changes, in a fenced block.

Parsing is the hard part. A file name is a path on the line before the fence (bold, in
backticks, with a colon, or named in a short sentence) or in the fence's info string. A block
ends at the last closing fence before the next file's name (or the end of the reply), so code
that itself holds a fence line (a string with ``` in it) stays whole; but when a block with a
language tag follows a closing fence, that closing fence ends the file (prose with a shell
example came after it).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from codetrial.editformats.base import Edit, EditFormat, MalformedReply
from codetrial.editformats.reference import changed_files
from codetrial.editformats.text import (
    Fence,
    block_fits,
    fence_for,
    fence_of,
    join_lines,
    language_for,
    path_candidate,
    path_heading,
    path_in_info,
    path_near,
    resolve_path,
    split_lines,
    to_lf,
)
from codetrial.models.base import ToolCall

PROMPT = """\
Reply with the complete new text of every file you change.

For each file, write its path on a line by itself, then a fenced code block that holds the
entire file, from its first line to its last. Whatever is in the block becomes the file, so
never leave anything out and never write placeholders such as "# rest of the code unchanged".
Send only the files you change. To create a new file, do the same with the new path.

Example, changing hello.py:

hello.py
```python
def hello(name):
    return f"Hello, {name}!"
```
"""

_DIFF_MARKERS = ("<<<<<<< SEARCH", ">>>>>>> REPLACE")


@dataclass
class Block:
    info: str
    path: str | None  # the raw name the reply gave, if any
    lines: list[str]
    closed: bool


class WholeFormat(EditFormat):
    name = "whole"

    def system_prompt(self) -> str:
        return PROMPT

    def parse(self, text: str, tool_calls: list[ToolCall], known_files: list[str]) -> list[Edit]:
        blocks = list(fenced_blocks(split_lines(to_lf(text)), known_files))
        named = [block for block in blocks if block.path]
        if named:
            return [_edit(block, resolve_path(block.path or "", known_files)) for block in named]
        if not blocks:
            raise MalformedReply("The reply has no fenced code block. Send each changed file as "
                                 "its path on a line by itself followed by a fenced block with "
                                 "the whole file.")
        return [_unnamed(blocks, known_files)]

    def apply_edit(self, edit: Edit, content: str | None) -> tuple[str, str]:
        return edit.content, "wrote the whole file"

    def reference_reply(self, before: dict[str, str],
                        after: dict[str, str]) -> tuple[str, list[ToolCall]]:
        changed = {path: to_lf(after[path]) for path in changed_files(before, after)}
        fence = fence_for("\n".join(changed.values()))  # one level: inner fences stay inside
        parts = [_render(path, content, fence) for path, content in changed.items()]
        return "\n".join(parts) or "No change is needed.", []


def _render(path: str, content: str, fence: str) -> str:
    body = content if content.endswith("\n") or not content else content + "\n"
    return f"{path}\n{fence}{language_for(path)}\n{body}{fence}\n"


def _edit(block: Block, path: str) -> Edit:
    content = join_lines(block.lines)
    if not block.closed:
        return Edit(path, "whole", error="its code block is never closed (was the reply cut "
                                         "off?); send the whole file again")
    if any(marker in content for marker in _DIFF_MARKERS) or _looks_like_udiff(block.lines):
        return Edit(path, "whole", error="the block holds a diff, not a file; in this format "
                                         "send the complete new text of the file")
    return Edit(path, "whole", content=content)


def _looks_like_udiff(lines: list[str]) -> bool:
    head = [line for line in lines if line.strip()][:2]
    return len(head) == 2 and head[0].startswith("--- ") and head[1].startswith("+++ ")


def _unnamed(blocks: list[Block], known: list[str]) -> Edit:
    """No block has a name: with one exercise file, its longest fitting block is that file (a
    whole file is usually the biggest block); with several files there is no telling."""
    if len(known) != 1:
        raise MalformedReply("The code blocks have no file names. Write each file's path on a "
                             "line by itself just before its code block.")
    fitting = [block for block in blocks if block_fits(block.info, known[0])]
    if not fitting:
        raise MalformedReply(f"No code block holds {known[0]}. Write the path on a line by "
                             "itself, then the whole file in a fenced code block.")
    return _edit(max(fitting, key=lambda block: len(block.lines)), known[0])


# ---------------------------------------------------------------- finding the blocks


def fenced_blocks(lines: list[str], known: list[str]):
    """Every fenced block of the reply with the file name that introduces it."""
    index = 0
    while index < len(lines):
        fence = fence_of(lines[index])
        if fence is None:
            index += 1
            continue
        end = _closing(lines, index, fence, known)
        stop = len(lines) if end is None else end
        name = (path_in_info(fence.info) or _name_before(lines, index, known)
                or _name_inside(lines[index + 1:stop], known))
        yield Block(fence.info, name, lines[index + 1:stop], end is not None)
        index = stop + 1


def _name_before(lines: list[str], index: int, known: list[str]) -> str | None:
    previous = next((line for line in reversed(lines[:index]) if line.strip()), "")
    return None if fence_of(previous) else path_near(previous, known)


def _name_inside(body: list[str], known: list[str]) -> str | None:
    """A first line like `# hello.py` naming an exercise file (the line stays in the code)."""
    first = body[0].lstrip() if body else ""
    if not first.startswith(("#", "//")):
        return None
    named = path_candidate(first.lstrip("#/ "), known)
    return named if named in known else None


def _closing(lines: list[str], start: int, fence: Fence, known: list[str]) -> int | None:
    """The last closing fence before the next file's header, unless a tagged block follows
    one of the closing fences (then that one)."""
    stop = _next_header(lines, start + 1, fence, known)
    closers = [i for i in range(start + 1, stop) if fence.closes(lines[i])]
    for here, there in pairwise(closers):
        if any(_tagged(lines[i]) for i in range(here + 1, there)):
            return here
    return closers[-1] if closers else None


def _tagged(line: str) -> bool:
    fence = fence_of(line)
    return fence is not None and bool(fence.info)


def _next_header(lines: list[str], start: int, fence: Fence, known: list[str]) -> int:
    """Where the next file begins: a fence naming a file, or a file name just before a fence
    (fences shorter than ours, or of the other character, are inside the code)."""
    for i in range(start, len(lines)):
        opener = fence_of(lines[i])
        if opener and opener.info and opener.run.startswith(fence.run) \
                and path_in_info(opener.info):
            return i
        after = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
        if after is None or not lines[i].strip() or fence_of(lines[i]):
            continue
        following = fence_of(lines[after])
        if following and following.run.startswith(fence.run) \
                and path_heading(lines[i], known) \
                and _opens(lines, after, following, fence):
            return i
    return len(lines)


def _opens(lines: list[str], index: int, opener: Fence, level: Fence) -> bool:
    """A tagged fence always opens a block. A bare one opens a block when the fences of our
    level from it to the end pair up (an even count); an odd count makes it our closer."""
    if opener.info:
        return True
    ours = [f for f in map(fence_of, lines[index:]) if f and f.run.startswith(level.run)]
    return len(ours) % 2 == 0
