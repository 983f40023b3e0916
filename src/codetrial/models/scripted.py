"""The scripted contender: replays tool calls from a file, for testing an agent setup end to
end without a model (`--model script:FILE`).

FILE is JSON or YAML: a list of replies, or a mapping from task id to such a list (the task is
the one the first message names on its "Exercise:" line). A reply is one call
(`{"tool": "run", "arguments": {"command": "ls"}}`), a list of calls, or `{"text": "..."}`.
The n-th reply of a conversation is the script's n-th; past its end, the last one repeats.
Calls come as native tool calls, or written as text when the request offers no tools.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml

from codetrial.core import UsageError
from codetrial.models.base import Model, Reply, Request, ToolCall
from codetrial.models.registry import ModelOptions, backend

_EXERCISE = re.compile(r"^Exercise: (\S+)$", re.M)


def load_script(path: Path) -> list[Any] | dict[str, list[Any]]:
    try:
        script = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read ({exc})") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: not JSON or YAML ({str(exc).splitlines()[0]})") from None
    lists = script.values() if isinstance(script, dict) else [script]
    if not script or not all(isinstance(v, list) and v for v in lists):
        raise UsageError(f"{path}: a script is a non-empty list of replies, or a mapping from "
                         "task id to one")
    for replies in lists:
        for reply in replies:
            for call in reply if isinstance(reply, list) else [reply]:
                if not isinstance(call, dict) or not ({"tool", "text"} & call.keys()):
                    raise UsageError(f"{path}: a reply {call!r} needs 'tool' (and "
                                     "'arguments') or 'text'")
    return script


def _reply(step: Any, native: bool, position: int) -> Reply:
    calls = step if isinstance(step, list) else [step]
    text = "\n".join(str(c["text"]) for c in calls if "text" in c)
    tools = [ToolCall(str(c["tool"]), json.dumps(c.get("arguments") or {}),
                      f"script-{position}-{i}") for i, c in enumerate(calls) if "tool" in c]
    if not native:
        text += "".join(f'\n<tool_call>{{"name": "{t.name}", "arguments": {t.arguments}}}'
                        "</tool_call>" for t in tools)
        return Reply(text=text.strip())
    return Reply(text=text, tool_calls=tools)


class ScriptedModel(Model):
    supports_tools = True

    def __init__(self, path: Path) -> None:
        self.script = load_script(path)
        try:
            text = json.dumps(self.script, sort_keys=True, default=str)
        except TypeError:  # a mapping with keys of mixed types
            raise UsageError(f"{path}: task ids must all be text") from None
        digest = hashlib.sha256(text.encode()).hexdigest()
        self.name = f"script:{path.name}@{digest[:12]}"  # an edited script is a new contender

    def _replies(self, request: Request) -> list[Any]:
        if isinstance(self.script, list):
            return self.script
        first = next((str(m.get("content")) for m in request.messages or []
                      if m.get("role") == "user"), "")
        found = _EXERCISE.search(first)
        task = found.group(1) if found else ""
        if task not in self.script:
            return [{"text": f"the script has no replies for task {task!r}"}]
        return self.script[task]

    async def generate(self, request: Request) -> Reply:
        position = sum(1 for m in request.messages or [] if m.get("role") == "assistant")
        replies = self._replies(request)
        step = replies[min(position, len(replies) - 1)]
        return _reply(step, request.tools is not None, position)


@backend("script")
def _create(rest: str, options: ModelOptions) -> Model:
    if not rest:
        raise UsageError("script needs a file: --model script:FILE (see models/scripted.py)")
    return ScriptedModel(Path(rest))
