"""The worker's end of the harness channel: requests in, replies out, and while a program runs,
what it has printed so far out and a stop in.

A request that asks for `stream` gets, while its program runs, messages {"id", "interim": true,
"stdout"} with the complete lines the program printed since the last one; the harness may then
answer {"stop": id}, and the program is stopped (its verdict is already decided). The harness
may have sent the next request ahead of that stop: it is kept, and served next.
"""

from __future__ import annotations

from collections import deque

import codetrial_frames as frames
from codetrial_system import MAX_MESSAGE


class Harness:
    def __init__(self, inp: int, out: int) -> None:
        self.fd, self.out = inp, out  # `fd`: what a running program's watch polls
        self.ahead: deque[dict] = deque()  # requests read while a program ran

    def next_request(self) -> dict | None:
        """The next request (None once the harness closed its end); stale stops are skipped."""
        while True:
            message = self.ahead.popleft() if self.ahead else self._read()
            if message is None or not is_stop(message):
                return message

    def reply(self, message: dict) -> None:
        frames.write_message(self.out, message)

    def interim(self, ident: object, stdout: str) -> None:
        frames.write_message(self.out, {"id": ident, "interim": True, "stdout": stdout})

    def listen(self, ident: object) -> str:
        """Read what the harness sent while program `ident` runs: "stop" (for it), "gone" (the
        harness closed its end), else "" (a request kept for later, or a stale stop)."""
        message = self._read()
        if message is None:
            return "gone"
        if not is_stop(message):
            self.ahead.append(message)
            return ""
        return "stop" if message["stop"] == ident else ""

    def _read(self) -> dict | None:
        message = frames.read_message(self.fd, MAX_MESSAGE)
        if message is not None and not isinstance(message, dict):
            raise ValueError("the harness sent a message that is not an object")
        return message


def is_stop(message: dict) -> bool:
    return list(message) == ["stop"]
