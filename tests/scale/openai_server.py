"""Enough of an OpenAI-compatible API for the runner: /v1/models, /v1/completions and
/v1/chat/completions, with a fixed latency and 429s (with Retry-After) on chosen requests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from typing import Any

Answer = Callable[[dict[str, Any]], str]
USAGE = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


class OpenAIRoutes:
    """Request n (1-based, counting generations only) is refused when n is in `throttle`."""

    def __init__(self, answer: Answer, latency: float = 0.0, throttle: Collection[int] = (),
                 retry_after: str | None = "1") -> None:
        self.answer, self.latency = answer, latency
        self.throttle, self.retry_after = set(throttle), retry_after
        self.requests = self.throttled = self.answered = 0
        self._lock = threading.Lock()

    def __call__(self, method: str, path: str, body: dict[str, Any]
                 ) -> tuple[int, dict[str, str], Any]:
        if path.endswith("/models"):
            return 200, {}, MODELS
        with self._lock:
            self.requests += 1
            refuse = self.requests in self.throttle
            self.throttled += refuse
        if refuse:
            headers = {"Retry-After": self.retry_after} if self.retry_after else {}
            return 429, headers, {"error": {"message": "slow down", "type": "rate_limit"}}
        time.sleep(self.latency)
        with self._lock:
            self.answered += 1
        return 200, {}, completion(path, body, self.answer(body))


MODELS = {"object": "list", "data": [
    {"id": "fake", "object": "model", "created": 0, "owned_by": "tests"}]}


def completion(path: str, body: dict[str, Any], text: str) -> dict[str, Any]:
    """What /v1/chat/completions or /v1/completions answers with `text`."""
    if path.endswith("/chat/completions"):
        choice = {"index": 0, "finish_reason": "stop",
                  "message": {"role": "assistant", "content": text}}
        kind = "chat.completion"
    else:
        choice = {"index": 0, "finish_reason": "stop", "text": text, "logprobs": None}
        kind = "text_completion"
    return {"id": "cmpl-test", "object": kind, "created": 0, "model": body.get("model"),
            "choices": [choice], "usage": USAGE}
