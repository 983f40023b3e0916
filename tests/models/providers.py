"""OpenAI and Anthropic APIs on 127.0.0.1 that behave as the providers document them.

What they enforce (from the providers' documentation, not from codetrial's code):
- OpenAI reasoning models refuse `max_tokens` ("use max_completion_tokens") and any
  temperature or top_p but 1; other models refuse `reasoning_effort`. Reasoning tokens are part of
  `completion_tokens` and reported in `completion_tokens_details`; a reply that reaches the
  budget (reasoning included) is cut there with finish_reason "length".
- Anthropic's API version 2026-10-21 refuses temperature, top_p and top_k at any value; 2023-06-01
  takes them, except for models that refuse sampling settings altogether. With thinking on,
  temperature may only be 1, top_p only 0.95 to 1, and max_tokens must exceed the thinking
  budget; the reply starts with a `thinking` block, and output_tokens counts the thinking too
  (`output_tokens_details.thinking_tokens`).
Tokens are counted as one per four characters.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable
from typing import Any

from tests.scale.loopback import LoopbackServer

Answer = Callable[[dict[str, Any]], str]
Reply = tuple[int, dict[str, str], Any]
REASONING_SPENT = {"low": 64, "medium": 256, "high": 1024}  # tokens thought before answering


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def cut(text: str, budget: int) -> tuple[str, bool]:
    """The text within `budget` tokens, and whether it had to be cut."""
    return (text, False) if tokens(text) <= budget else (text[: max(budget, 0) * 4], True)


class Provider:
    """Records every generation request's body and headers; serves on loopback."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self.server = LoopbackServer(self.route)

    def record(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.bodies.append(body)
            self.headers.append(self.server.request_headers)

    def route(self, method: str, path: str, body: dict[str, Any]) -> Reply:
        raise NotImplementedError

    def __enter__(self) -> Provider:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)


class OpenAIProvider(Provider):
    def __init__(self, answer: Answer, reasoning_models: tuple[str, ...] = ("o-test",)) -> None:
        super().__init__(answer)
        self.reasoning_models = reasoning_models

    @property
    def base_url(self) -> str:
        return f"{self.server.url}/v1"

    def route(self, method: str, path: str, body: dict[str, Any]) -> Reply:
        if method == "GET":
            return 200, {}, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "tests"}
                for m in ("gpt-4o", *self.reasoning_models)]}
        self.record(body)
        refused = self.refusal(body)
        if refused:
            return 400, {}, {"error": {"type": "invalid_request_error", **refused}}
        return 200, {}, self.completion(body)

    def refusal(self, body: dict[str, Any]) -> dict[str, str] | None:
        if body["model"] not in self.reasoning_models:
            if "reasoning_effort" in body:
                return {"param": "reasoning_effort", "code": "unsupported_parameter",
                        "message": "Unsupported parameter: 'reasoning_effort' is not "
                                   "supported with this model."}
            return None
        if "max_tokens" in body:
            return {"param": "max_tokens", "code": "unsupported_parameter",
                    "message": "Unsupported parameter: 'max_tokens' is not supported with this "
                               "model. Use 'max_completion_tokens' instead."}
        for name in ("temperature", "top_p"):
            if name in body and body[name] != 1:
                return {"param": name, "code": "unsupported_value",
                        "message": f"Unsupported value: '{name}' does not support "
                                   f"{body[name]} with this model. Only the default (1) value "
                                   "is supported."}
        return None

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        reasoning = (REASONING_SPENT[body.get("reasoning_effort", "medium")]
                     if body["model"] in self.reasoning_models else 0)
        budget = body.get("max_completion_tokens") or body.get("max_tokens") or 1 << 30
        text, was_cut = cut(self.answer(body), budget - reasoning)
        prompt = tokens(json.dumps(body.get("messages") or body.get("prompt")))
        chat = "messages" in body
        choice: dict[str, Any] = {"index": 0, "finish_reason": "length" if was_cut else "stop"}
        if chat:
            choice["message"] = {"role": "assistant", "content": text}
        else:
            choice.update(text=text, logprobs=None)
        return {"id": "cmpl-1", "object": "chat.completion" if chat else "text_completion",
                "created": 0, "model": body["model"], "choices": [choice],
                "usage": {"prompt_tokens": prompt,
                          "completion_tokens": tokens(text) + reasoning,
                          "total_tokens": prompt + tokens(text) + reasoning,
                          "completion_tokens_details": {"reasoning_tokens": reasoning},
                          "prompt_tokens_details": {"cached_tokens": 0}}}


class AnthropicProvider(Provider):
    SAMPLING = ("temperature", "top_p", "top_k")

    def __init__(self, answer: Answer, refuses_sampling: tuple[str, ...] = ("claude-new",),
                 thinking_spent: int = 300) -> None:
        super().__init__(answer)
        self.refuses_sampling, self.thinking_spent = refuses_sampling, thinking_spent

    @property
    def base_url(self) -> str:
        return self.server.url

    def route(self, method: str, path: str, body: dict[str, Any]) -> Reply:
        if method == "GET":
            name = path.rsplit("/", 1)[1]
            return 200, {}, {"type": "model", "id": name, "display_name": name,
                             "created_at": "2025-01-01T00:00:00Z"}
        self.record(body)
        refused = self.refusal(body)
        if refused:
            return 400, {}, {"type": "error",
                             "error": {"type": "invalid_request_error", "message": refused}}
        return 200, {}, self.message(body)

    def refusal(self, body: dict[str, Any]) -> str | None:
        version = self.server.request_headers.get("anthropic-version")
        sampling = [name for name in self.SAMPLING if name in body]
        if sampling and (version != "2023-06-01" or body["model"] in self.refuses_sampling):
            return f"{sampling[0]}: Extra inputs are not permitted"
        thinking = body.get("thinking") or {}
        if thinking.get("type") != "enabled":
            return None
        if thinking["budget_tokens"] >= body["max_tokens"]:
            return "max_tokens must be greater than thinking.budget_tokens"
        if body.get("temperature", 1) != 1:
            return "temperature may only be set to 1 when thinking is enabled"
        if not 0.95 <= body.get("top_p", 1) <= 1:
            return "top_p must be between 0.95 and 1 when thinking is enabled"
        return None

    def message(self, body: dict[str, Any]) -> dict[str, Any]:
        thinking = (body.get("thinking") or {}).get("type") == "enabled"
        spent = min(self.thinking_spent, body["thinking"]["budget_tokens"]) if thinking else 0
        text, was_cut = cut(self.answer(body), body["max_tokens"] - spent)
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if thinking:
            content.insert(0, {"type": "thinking", "thinking": "Let me think." * 10,
                               "signature": "sig"})
        output = tokens(text) + spent
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                "content": content, "stop_reason": "max_tokens" if was_cut else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": tokens(json.dumps(body["messages"])),
                          "output_tokens": output,
                          "output_tokens_details": {"thinking_tokens": spent}}}
