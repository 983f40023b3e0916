"""whole-func: the whole-file format through function calling, write_file(files=[...])."""

from __future__ import annotations

import json
from typing import Any

from codetrial.editformats.base import Edit, EditFormat
from codetrial.editformats.funcargs import function_tool, text_field, tool_items
from codetrial.editformats.reference import changed_files
from codetrial.editformats.text import resolve_path, to_lf
from codetrial.models.base import ToolCall

TOOL = "write_file"

PROMPT = """\
Change files by calling the write_file tool. Its argument `files` is a list of objects, one
per file you change, each with the file's `path` and its complete new `content`: the entire
file, never a part of it and never with placeholders such as "# rest of the code unchanged".
Send only the files you change; a path that does not exist yet creates a new file.

Example arguments, changing hello.py:

{"files": [{"path": "hello.py", "content": "def hello():\\n    return \\"Hello, World!\\"\\n"}]}
"""


class WholeFuncFormat(EditFormat):
    name = "whole-func"
    uses_tools = True

    def system_prompt(self) -> str:
        return PROMPT

    def tools(self) -> list[dict[str, Any]]:
        return [function_tool(TOOL, "Write the complete new content of one or more files.",
                              "files", {"path": {"type": "string"},
                                        "content": {"type": "string"}})]

    def parse(self, text: str, tool_calls: list[ToolCall], known_files: list[str]) -> list[Edit]:
        return [_edit(item, known_files)
                for item in tool_items(tool_calls, text, TOOL, "files", "content")]

    def apply_edit(self, edit: Edit, content: str | None) -> tuple[str, str]:
        return edit.content, "wrote the whole file"

    def reference_reply(self, before: dict[str, str],
                        after: dict[str, str]) -> tuple[str, list[ToolCall]]:
        files = [{"path": path, "content": to_lf(after[path])}
                 for path in changed_files(before, after)]
        return "", [ToolCall(TOOL, json.dumps({"files": files}))]


def _edit(item: Any, known: list[str]) -> Edit:
    path = item.get("path") if isinstance(item, dict) else None
    content = text_field(item.get("content")) if isinstance(item, dict) else None
    if not isinstance(path, str) or content is None:
        return Edit(path if isinstance(path, str) else "", "whole",
                    error="each entry of `files` needs a `path` string and a `content` string")
    return Edit(resolve_path(path, known), "whole", content=content)
