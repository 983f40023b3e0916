"""A JSON HTTP server on 127.0.0.1 in a background thread: real sockets for testing API clients.

Each test gives it a route, `(method, path, body) -> (status, headers, payload)`; the payload is
sent as JSON, or as is when it is bytes (a truncated body), or the connection is reset when it is
RESET. The server counts the requests it is handling at once, so a test can check what a client
let through.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Route = Callable[[str, str, dict[str, Any]], tuple[int, dict[str, str], Any]]
RESET = object()  # a payload: close the connection with a TCP reset, before any byte of a reply


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default 5 makes a burst of connections wait for SYN retries

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up on a slow reply: expected in these tests


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real API servers do
    wbufsize = 1 << 16  # headers and body leave in one segment: no Nagle/delayed-ACK stall
    disable_nagle_algorithm = True
    server: _Server

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._serve("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._serve("POST")

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        loopback: LoopbackServer = self.server.loopback  # type: ignore[attr-defined]
        loopback.request_headers = {k.lower(): v for k, v in self.headers.items()}
        with loopback.counting():
            status, headers, payload = loopback.route(method, self.path, body)
        if payload is RESET:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class LoopbackServer:
    """`request_headers` holds, in the thread running a route, that request's headers."""

    def __init__(self, route: Route) -> None:
        self.route = route
        self._headers = threading.local()
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.loopback = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def request_headers(self) -> dict[str, str]:
        return getattr(self._headers, "value", {})

    @request_headers.setter
    def request_headers(self, value: dict[str, str]) -> None:
        self._headers.value = value

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @contextmanager
    def counting(self) -> Iterator[None]:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            yield
        finally:
            with self._lock:
                self.in_flight -= 1

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

