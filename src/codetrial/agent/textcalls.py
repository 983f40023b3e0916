"""Tool calls written as text, for models without a tool-calling interface (the embedded one).

The format asked for is the one small instruct models are trained on:
`<tool_call>{"name": "run", "arguments": {"command": "ls"}}</tool_call>`. Read forgivingly: a
missing closing tag, a fenced JSON block or a bare JSON object that names a tool count too;
`tool`/`function` for `name` and `args`/`parameters`/`input` for `arguments` are taken, and
so is OpenAI's `{"type": "function", "function": {...}}`; raw
newlines inside strings (code written without escaping) are accepted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from codetrial.agent.tools import TOOLS, Call, checked

_TAGGED = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)  # linear: no \s* around
_FENCED = re.compile(r"```(?:json)?\s*\n(\{.*?\})\s*```", re.S)
NAME_KEYS = ("name", "tool", "function")
# a reply ends with its first call (its closing tag is cut off: read as missing), before a
# small model goes on to write the results itself
STOPS = ("</tool_call>", "\nTool results:")
ARGUMENT_KEYS = ("arguments", "args", "parameters", "input")


def instructions() -> str:
    """The system prompt's part that says how to call tools in text."""
    lines = []
    for tool in TOOLS:
        fn = tool["function"]
        args = ", ".join(f'"{k}": "..."' for k in fn["parameters"].get("properties", {}))
        lines.append(f'- {fn["name"]} {{{args}}}: {fn["description"]}')
    return ("Call a tool by writing, on its own, a JSON object between <tool_call> tags:\n"
            '<tool_call>{"name": "run", "arguments": {"command": "ls"}}</tool_call>\n'
            "Write one call per reply; its result comes back in the next message. The "
            "tools:\n" + "\n".join(lines))


def _objects(text: str) -> list[str]:
    found = _TAGGED.findall(text)
    if found:
        return found
    found = _FENCED.findall(text)
    if found:
        return found
    start = text.find("{")
    return [text[start:]] if start >= 0 and any(f'"{k}"' in text for k in NAME_KEYS) else []


def _decoded(raw: str) -> Any:
    """The first JSON value in `raw` (what follows it is ignored)."""
    raw = raw.strip()
    try:
        return json.JSONDecoder(strict=False).raw_decode(raw)[0]
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        return None


def parse(text: str, step: int) -> list[Call]:
    """The calls in a reply; a call that cannot be read is a Call with a problem."""
    calls = []
    for index, raw in enumerate(_objects(text)):
        call_id = f"text-{step}-{index}"
        value = _decoded(raw)
        if isinstance(value, dict) and isinstance(value.get("function"), dict):
            value = value["function"]  # the OpenAI shape, written out as text
        if not isinstance(value, dict):
            calls.append(Call("?", {}, call_id, "the call is not a JSON object"))
            continue
        name = next((value[k] for k in NAME_KEYS if isinstance(value.get(k), str)), None)
        if name is None:
            calls.append(Call("?", {}, call_id, 'the call names no tool ("name")'))
            continue
        arguments = next((value[k] for k in ARGUMENT_KEYS if k in value), {})
        calls.append(checked(name, arguments, call_id))
    return calls


def written(call: Call) -> str:
    """A call as this format writes it (the reference contender's replies)."""
    body = json.dumps({"name": call.name, "arguments": call.arguments})
    return f"<tool_call>{body}</tool_call>"


def results_message(results: list[tuple[Call, str]]) -> str:
    """The tools' answers as the next user message."""
    parts = [f"[{call.name}] {answer}" for call, answer in results]
    return "Tool results:\n\n" + "\n\n".join(parts)
