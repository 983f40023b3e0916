"""Tool-call plumbing for the function-calling formats: tool schemas, and reading the JSON
arguments from tool calls or, when a small model writes them out as text, from the reply."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from codetrial.editformats.edits import MalformedReply
from codetrial.editformats.text import to_lf
from codetrial.models.base import ToolCall

_DECODER = json.JSONDecoder(strict=False)  # strict=False: raw newlines inside strings


def function_tool(name: str, description: str, list_key: str,
                  item_properties: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI function tool whose one argument is a list of objects."""
    item = {"type": "object", "properties": item_properties,
            "required": list(item_properties), "additionalProperties": False}
    parameters = {"type": "object", "properties": {list_key: {"type": "array", "items": item}},
                  "required": [list_key], "additionalProperties": False}
    return {"type": "function",
            "function": {"name": name, "description": description, "parameters": parameters}}


def tool_items(tool_calls: list[ToolCall], text: str, tool: str, list_key: str,
               item_key: str) -> list[Any]:
    """The objects of `list_key` in the arguments of the calls, or of the JSON in the text when
    there were no calls. Also accepts a bare item (an object with `path` and `item_key`) and
    arguments wrapped as {"name", "arguments"} or sent as a JSON string."""
    if tool_calls:
        sources = [_loads(call.arguments) for call in tool_calls]
    else:
        sources = list(json_values(to_lf(text)))
    items = [item for source in sources for item in _find(source, list_key, item_key)]
    if not items:
        raise MalformedReply(_nothing_found(tool_calls, sources, tool, list_key))
    return items


def _nothing_found(tool_calls: list[ToolCall], sources: list[Any], tool: str,
                   list_key: str) -> str:
    if not tool_calls:
        return f"The reply has no tool call. Make your changes by calling the {tool} tool."
    names = ", ".join(sorted({call.name for call in tool_calls}))
    if all(source is None for source in sources):
        return (f"The arguments of the {names} call are not valid JSON. Call {tool} again with "
                "one JSON object as arguments.")
    return (f"The reply called {names}, but no `{list_key}` list could be read from the "
            f"arguments. Call {tool} with JSON arguments holding a `{list_key}` list.")


def _loads(text: str) -> Any:
    """Lenient JSON: the whole text, else the first object in it, else None."""
    try:
        return _DECODER.decode(text.strip())
    except ValueError:
        return next(json_values(text), None)


def json_values(text: str) -> Iterator[Any]:
    """Every top-level JSON object in free text, in order, skipping what does not parse."""
    index = text.find("{")
    while index != -1:
        try:
            value, end = _DECODER.raw_decode(text, index)
        except ValueError:
            index = text.find("{", index + 1)
            continue
        yield value
        index = text.find("{", end)


def _find(value: Any, list_key: str, item_key: str) -> list[Any]:
    """Walk a JSON value down to the list of edits, through whatever wraps it."""
    if isinstance(value, str):
        nested = value.lstrip().startswith(("{", "["))
        return _find(_loads(value), list_key, item_key) if nested else []
    if isinstance(value, list):
        return [item for entry in value for item in _find(entry, list_key, item_key)]
    if not isinstance(value, dict):
        return []
    if isinstance(value.get(list_key), list):
        return value[list_key]
    if "path" in value and item_key in value:
        return [value]
    return [item for entry in value.values() for item in _find(entry, list_key, item_key)]


def text_field(value: Any) -> str | None:
    """A file text given as a string or as a list of lines (without newlines); None if it is
    neither."""
    if isinstance(value, str):
        return to_lf(value)
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(to_lf(line).rstrip("\n") + "\n" for line in value)
    return None
