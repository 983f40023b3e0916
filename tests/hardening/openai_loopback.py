"""An OpenAI-compatible server on 127.0.0.1 that misbehaves on cue.

It serves /v1/models, /v1/completions and /v1/chat/completions (tests/scale's loopback server and
answers); `answer(body)` gives a reply's text, and `fault(body, attempt)` picks what goes wrong
with the attempt-th request for the same prompt (1-based): a fault name from FAULTS, or None for
a proper reply.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from tests.scale.loopback import RESET, LoopbackServer
from tests.scale.openai_server import MODELS, completion

FAULTS = ("429", "500", "503", "429-now", "500-now", "503-now", "slow", "truncated", "reset",
          "empty")
STATUSES = ("429", "500", "503", "429-now", "500-now", "503-now")
SLOW_SECONDS = 3.0


class FaultyOpenAI:
    def __init__(self, answer: Callable[[dict], str],
                 fault: Callable[[dict, int], str | None] = lambda body, attempt: None) -> None:
        self.answer, self.fault = answer, fault
        self.attempts: Counter[str] = Counter()
        self.injected: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._server = LoopbackServer(self.route)

    @property
    def base_url(self) -> str:
        return f"{self._server.url}/v1"

    def next_fault(self, body: dict) -> str | None:
        key = json.dumps(body.get("prompt") or body.get("messages"), sort_keys=True)
        with self._lock:
            self.attempts[key] += 1
            fault = self.fault(body, self.attempts[key])
            if fault:
                self.injected[fault] += 1
        return fault

    def route(self, method: str, path: str, body: dict[str, Any]
              ) -> tuple[int, dict[str, str], Any]:
        if method == "GET":
            found = path.rstrip("/").endswith("/models")
            return (200, {}, MODELS) if found else (404, {}, {"error": {"message": "not found"}})
        fault = self.next_fault(body)
        if fault == "reset":
            return 0, {}, RESET
        if fault in STATUSES:
            headers = {"Retry-After": "0" if fault.endswith("-now") else "1"}
            return int(fault[:3]), headers if fault != "500" else {}, {
                "error": {"message": f"injected {fault}", "type": "server_error"}}
        if fault == "slow":
            time.sleep(SLOW_SECONDS)
        payload = completion(path, body, self.answer(body))
        if fault == "empty":
            payload["choices"] = []
        if fault == "truncated":
            data = json.dumps(payload).encode()
            return 200, {}, data[: len(data) // 2]
        return 200, {}, payload

    def __enter__(self) -> FaultyOpenAI:
        self._server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.__exit__(*exc)
