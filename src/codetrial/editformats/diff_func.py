"""diff-func: SEARCH/REPLACE through function calling, replace_lines(edits=[...]); the lines
are found with the same forgiving cascade as the diff format."""

from __future__ import annotations

import json
from typing import Any

from codetrial.editformats.base import Edit, EditFormat
from codetrial.editformats.funcargs import function_tool, text_field, tool_items
from codetrial.editformats.matching import apply_replace
from codetrial.editformats.reference import changed_files, file_hunks, new_side, old_side
from codetrial.editformats.text import resolve_path
from codetrial.models.base import ToolCall

TOOL = "replace_lines"
_LINES = {"type": "array", "items": {"type": "string"}}

PROMPT = """\
Change files by calling the replace_lines tool. Its argument `edits` is a list of objects, each
with the file's `path`, `original_lines` (lines copied exactly from the file as it is now, with
their indentation: enough of them to pick out one place) and `updated_lines` (the lines that
take their place). Lines are strings without newline characters. Edits apply in order. Keep
each edit small and use several for changes in different places. To create a new file, give
its new path and an empty `original_lines`.

Example arguments, changing hello.py:

{"edits": [{"path": "hello.py",
            "original_lines": ["def hello():", "    pass"],
            "updated_lines": ["def hello():", "    return \\"Hello, World!\\""]}]}
"""


class DiffFuncFormat(EditFormat):
    name = "diff-func"
    uses_tools = True

    def system_prompt(self) -> str:
        return PROMPT

    def tools(self) -> list[dict[str, Any]]:
        return [function_tool(TOOL, "Replace lines of files with new lines.", "edits",
                              {"path": {"type": "string"}, "original_lines": _LINES,
                               "updated_lines": _LINES})]

    def parse(self, text: str, tool_calls: list[ToolCall], known_files: list[str]) -> list[Edit]:
        return [_edit(item, known_files)
                for item in tool_items(tool_calls, text, TOOL, "edits", "original_lines")]

    def apply_edit(self, edit: Edit, content: str | None) -> tuple[str, str]:
        return apply_replace(edit, content)

    def reference_reply(self, before: dict[str, str],
                        after: dict[str, str]) -> tuple[str, list[ToolCall]]:
        edits = [{"path": path, "original_lines": old_side(hunk),
                  "updated_lines": new_side(hunk)}
                 for path in changed_files(before, after)
                 for hunk in file_hunks(before.get(path), after[path])]
        return "", [ToolCall(TOOL, json.dumps({"edits": edits}))]


def _edit(item: Any, known: list[str]) -> Edit:
    fields = item if isinstance(item, dict) else {}
    path = fields.get("path")
    search = text_field(fields.get("original_lines", []))
    replace = text_field(fields.get("updated_lines"))
    if not isinstance(path, str) or search is None or replace is None:
        return Edit(path if isinstance(path, str) else "", "replace",
                    error="each entry of `edits` needs `path`, `original_lines` and "
                          "`updated_lines` (lists of strings)")
    return Edit(resolve_path(path, known), "replace", search=search, replace=replace)
