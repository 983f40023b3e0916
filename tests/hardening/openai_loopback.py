"""An OpenAI-compatible server on 127.0.0.1 that misbehaves on cue.

It serves /v1/models, /v1/completions and /v1/chat/completions; `answer(body)` gives a reply's
text, and `fault(body, attempt)` picks what goes wrong with the attempt-th request for the same
prompt (1-based): a fault name from FAULTS, or None for a proper reply.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("429", "500", "503", "429-now", "500-now", "503-now", "slow", "truncated", "reset",
          "empty")
SLOW_SECONDS = 3.0
USAGE = {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}


class FaultyOpenAI:
    def __init__(self, answer: Callable[[dict], str],
                 fault: Callable[[dict, int], str | None] = lambda body, attempt: None) -> None:
        self.answer, self.fault = answer, fault
        self.attempts: Counter[str] = Counter()
        self.injected: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.api = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def next_fault(self, body: dict) -> str | None:
        key = json.dumps(body.get("prompt") or body.get("messages"), sort_keys=True)
        with self._lock:
            self.attempts[key] += 1
            fault = self.fault(body, self.attempts[key])
            if fault:
                self.injected[fault] += 1
        return fault

    def __enter__(self) -> FaultyOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up on a slow reply: expected here


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [
                {"id": "x", "object": "model", "created": 0, "owned_by": "tests"}]})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        api: FaultyOpenAI = self.server.api
        fault = api.next_fault(body)
        if fault == "reset":
            return self._reset()
        if fault in ("429", "500", "503", "429-now", "500-now", "503-now"):
            status, now = int(fault[:3]), fault.endswith("-now")
            headers = {"Retry-After": "0" if now else "1"} if fault != "500" else {}
            return self._json(status, {"error": {"message": f"injected {fault}",
                                                 "type": "server_error"}}, headers)
        if fault == "slow":
            time.sleep(SLOW_SECONDS)
        payload = self._completion(body, api.answer(body), empty=fault == "empty")
        if fault == "truncated":
            data = json.dumps(payload).encode()
            return self._raw(200, data[: len(data) // 2])
        self._json(200, payload)

    def _completion(self, body: dict, text: str, empty: bool) -> dict:
        if self.path.endswith("/chat/completions"):
            choice = {"index": 0, "finish_reason": "stop",
                      "message": {"role": "assistant", "content": text}}
            kind = "chat.completion"
        else:
            choice = {"index": 0, "finish_reason": "stop", "text": text, "logprobs": None}
            kind = "text_completion"
        return {"id": "cmpl-1", "object": kind, "created": 0, "model": body.get("model", "x"),
                "choices": [] if empty else [choice], "usage": USAGE}

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self._raw(status, json.dumps(payload).encode(), headers)

    def _raw(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _reset(self) -> None:
        """Close with a TCP reset, before any byte of a response."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def log_message(self, *args: Any) -> None:
        pass
