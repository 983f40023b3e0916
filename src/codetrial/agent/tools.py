"""The agent's tools: what each one is called, takes and answers.

`run` executes a shell command in the sandbox, on a copy of the workspace, and brings back the
files the command left; the file tools act on that workspace directly (it holds only what the
agent may see: stubs, instructions and build files, never the tests). Paths are relative to the
workspace; anything else is refused, named in the answer, and recorded as tried.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from typing import Any

from codetrial.sandbox.bwrap import WORKDIR

READ_CAP = 20_000  # characters of a file the model is shown at once


def _tool(name: str, description: str, **params: str) -> dict[str, Any]:
    """An OpenAI-style function tool whose parameters are all strings, all required."""
    properties = {k: {"type": "string", "description": v} for k, v in params.items()}
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties,
                       "required": list(params)}}}


TOOLS = [
    _tool("run", "Run a shell command (bash) in the exercise's folder, without network; "
          "its exit status and output come back. The text files it writes stay for the next "
          "call; binaries and build folders do not.", command="the command line"),
    _tool("read_file", "Read a file of the exercise's folder.", path="a relative path"),
    _tool("write_file", "Create or replace a file of the exercise's folder.",
          path="a relative path", content="the whole new text of the file"),
    _tool("edit_file", "Replace the one occurrence of `search` in a file by `replace`.",
          path="a relative path", search="text that occurs exactly once",
          replace="the text to put in its place"),
    _tool("list_files", "List the files of the exercise's folder (or of one of its folders).",
          path="a relative folder; '.' for all"),
    {"type": "function", "function": {
        "name": "submit", "description": "Say the work is done: the hidden tests then run.",
        "parameters": {"type": "object", "properties": {}}}},
]
TOOL_NAMES = tuple(t["function"]["name"] for t in TOOLS)
REQUIRED = {t["function"]["name"]: tuple(t["function"]["parameters"].get("required", ()))
            for t in TOOLS}


@dataclass
class Call:
    """One tool call as the protocol understood it: a name, its arguments, or why not."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = ""
    problem: str = ""  # set: the call was malformed, and this is what the model is told

    def to_dict(self) -> dict[str, Any]:
        shown = {"name": self.name, "arguments": self.arguments, "id": self.id}
        return {**shown, "problem": self.problem} if self.problem else shown


def checked(name: str, arguments: Any, call_id: str = "") -> Call:
    """A Call whose problem says what a model would need to fix: an unknown tool, arguments
    that are not an object (or JSON text of one), a missing or non-string argument, text that
    is not UTF-8 (a lone surrogate) or holds a NUL."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}", strict=False)
        except json.JSONDecodeError as exc:
            return Call(name, {}, call_id, f"the arguments are not JSON ({exc.msg})")
        except (ValueError, RecursionError):  # nested deeper than the parser goes
            return Call(name, {}, call_id, "the arguments are not JSON (nested too deep)")
    if name not in TOOL_NAMES:
        return Call(name, {}, call_id, f"there is no tool {name!r}; the tools are "
                    + ", ".join(TOOL_NAMES))
    if not isinstance(arguments, dict):
        return Call(name, {}, call_id, "the arguments must be a JSON object")
    missing = [k for k in REQUIRED[name] if not isinstance(arguments.get(k), str)]
    if missing:
        return Call(name, {}, call_id, f"{name} needs the string argument(s) "
                    + ", ".join(missing))
    arguments = {k: arguments[k] for k in REQUIRED[name]}
    bad = [k for k, v in arguments.items() if "\0" in v or not _encodable(v)]
    if bad:
        return Call(name, {}, call_id, f"the argument(s) {', '.join(bad)} hold a NUL or "
                    "text that is not UTF-8")
    return Call(name, arguments, call_id)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def workspace_path(path: str) -> str | None:
    """The workspace-relative form of `path`, or None when it points outside the workspace."""
    path = path.strip()
    if path.startswith(WORKDIR + "/") or path == WORKDIR:
        path = path[len(WORKDIR):].lstrip("/")
    if path.startswith("/"):
        return None
    normal = posixpath.normpath(path or ".")
    if normal == ".." or normal.startswith("../"):
        return None
    return normal


def shown(text: str, cap: int = READ_CAP) -> str:
    """A long text as the model sees it: its start and its end, with the count left out."""
    if len(text) <= cap:
        return text
    head, tail = text[: cap // 4], text[-(cap - cap // 4):]
    return f"{head}\n... [{len(text) - cap} characters left out] ...\n{tail}"


def read_file(files: dict[str, str], path: str) -> tuple[str, bool]:
    if path not in files:
        return f"error: no file {path!r} (list_files shows what there is)", False
    return shown(files[path]), True


def write_file(files: dict[str, str], path: str, content: str) -> tuple[str, bool]:
    """The workspace stays a tree the sandbox can write: no file under a file, no file where
    a folder is, no name part over 255 bytes."""
    if path == ".":
        return "error: give a file's path", False
    parts = path.split("/")
    if any(len(part.encode()) > 255 for part in parts):
        return "error: a part of that path is over 255 bytes", False
    above = ["/".join(parts[:i]) for i in range(1, len(parts))]
    if any(p in files for p in above):
        return f"error: {next(p for p in above if p in files)} is a file, not a folder", False
    if any(p.startswith(path + "/") for p in files):
        return f"error: {path} is a folder", False
    files[path] = content
    return f"wrote {path} ({len(content.splitlines())} lines)", True


def edit_file(files: dict[str, str], path: str, search: str, replace: str) -> tuple[str, bool]:
    if path not in files:
        return f"error: no file {path!r}", False
    count = files[path].count(search) if search else 0
    if count != 1:
        where = "is empty" if not search else f"occurs {count} times in {path}"
        return f"error: the search text {where}; it must occur exactly once", False
    files[path] = files[path].replace(search, replace, 1)
    return f"edited {path}", True


def list_files(files: dict[str, str], folder: str) -> tuple[str, bool]:
    prefix = "" if folder == "." else folder.rstrip("/") + "/"
    found = sorted(p for p in files if p.startswith(prefix))
    if not found:
        return f"no files under {folder!r}", folder == "."
    return shown("\n".join(found)), True
