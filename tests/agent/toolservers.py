"""OpenAI and Anthropic APIs on loopback that drive an agent through native tool calls.

Each plays a fixed sequence of calls (the n-th assistant turn of a conversation is the n-th
entry) and checks the conversation as the providers do: the tools are offered, and every call
of the previous assistant turn is answered, by id, before anything else (OpenAI: a `tool`
message per call; Anthropic: `tool_result` blocks in the next user turn). A conversation that
breaks a rule is refused with a 400.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from tests.scale.loopback import LoopbackServer

Calls = list[list[tuple[str, Any]]]  # per turn, its calls (arguments: an object, or raw text)
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what both APIs accept as a tool's name


class ToolServer:
    def __init__(self, turns: Calls) -> None:
        self.turns = turns
        self.bodies: list[dict[str, Any]] = []
        self.refused: list[str] = []
        self._lock = threading.Lock()
        self.server = LoopbackServer(self.route)

    def __enter__(self) -> ToolServer:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    def turn(self, position: int) -> list[tuple[str, dict[str, Any]]]:
        return self.turns[min(position, len(self.turns) - 1)]

    def route(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, dict, Any]:
        if method == "GET":
            return 200, {}, self.model_listing(path)
        with self._lock:
            self.bodies.append(body)
        problem = self.problem(body)
        if problem:
            self.refused.append(problem)
            return 400, {}, self.error(problem)
        return 200, {}, self.reply(body)


class OpenAIToolServer(ToolServer):
    @property
    def base_url(self) -> str:
        return f"{self.server.url}/v1"

    def model_listing(self, path: str) -> Any:
        return {"object": "list", "data": [{"id": "agent-test", "object": "model",
                                            "created": 0, "owned_by": "tests"}]}

    def error(self, message: str) -> Any:
        return {"error": {"type": "invalid_request_error", "message": message}}

    def problem(self, body: dict[str, Any]) -> str | None:
        if not body.get("tools"):
            return "no tools offered"
        messages = body["messages"]
        for i, message in enumerate(messages):
            for call in message.get("tool_calls") or []:
                if not NAME.match(call["function"]["name"]):
                    return f"messages[{i}]: invalid tool name {call['function']['name']!r}"
                try:
                    json.loads(call["function"]["arguments"])
                except ValueError:
                    return f"messages[{i}]: tool call arguments are not JSON"
            ids = [c["id"] for c in message.get("tool_calls") or []]
            answered = [m.get("tool_call_id") for m in messages[i + 1:i + 1 + len(ids)]]
            if ids and answered != ids:
                return f"tool calls {ids} must be answered by tool messages, got {answered}"
        return None

    def reply(self, body: dict[str, Any]) -> Any:
        position = sum(1 for m in body["messages"] if m["role"] == "assistant")
        calls = [{"id": f"call_{position}_{i}", "type": "function", "function": {
            "name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
            for i, (name, args) in enumerate(self.turn(position))]
        message = {"role": "assistant", "content": None if calls else "", "tool_calls": calls}
        return {"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


class AnthropicToolServer(ToolServer):
    @property
    def base_url(self) -> str:
        return self.server.url

    def model_listing(self, path: str) -> Any:
        name = path.rsplit("/", 1)[1]
        return {"type": "model", "id": name, "display_name": name,
                "created_at": "2025-01-01T00:00:00Z"}

    def error(self, message: str) -> Any:
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}

    def problem(self, body: dict[str, Any]) -> str | None:
        if not body.get("tools") or any("input_schema" not in t for t in body["tools"]):
            return "tools must be offered with an input_schema"
        messages = body["messages"]
        for i, message in enumerate(messages):
            if message["role"] not in ("user", "assistant"):
                return f"messages: unexpected role {message['role']!r}"
            if not message["content"] or (isinstance(message["content"], str)
                                          and not message["content"].strip()):
                return (f"messages.{i}: all messages must have non-empty content except for "
                        "the optional final assistant message")
            blocks = message["content"] if isinstance(message["content"], list) else []
            ids = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            if not ids:
                continue
            after = messages[i + 1]["content"] if i + 1 < len(messages) else []
            results = [b.get("tool_use_id") for b in after if isinstance(b, dict)
                       and b.get("type") == "tool_result"] if isinstance(after, list) else []
            if results[:len(ids)] != ids:
                return f"tool_use ids {ids} were found without tool_result blocks after them"
        return None

    def reply(self, body: dict[str, Any]) -> Any:
        position = sum(1 for m in body["messages"] if m["role"] == "assistant")
        content = [{"type": "tool_use", "id": f"toolu_{position}_{i}", "name": name,
                    "input": args} for i, (name, args) in enumerate(self.turn(position))]
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                "content": content, "stop_reason": "tool_use", "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 20}}
