"""Length-prefixed JSON between the harness and a worker, and Program/Outcome <-> messages.

The frames are inside/frames.py's, which the worker speaks too; here they are read and written
without blocking, against a deadline.
"""

from __future__ import annotations

import base64
import json
import os
import select
import time
from dataclasses import fields
from typing import Any

from codetrial.inside.frames import HEADER, frame
from codetrial.sandbox.types import Limits, Outcome, Program

MAX_MESSAGE = 1 << 30


class ChannelError(Exception):
    """The worker did not answer in time, went away, or broke the protocol."""


def _wait(fd: int, events: int, deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise ChannelError("the worker did not answer in time")
    poller = select.poll()
    poller.register(fd, events)
    poller.poll(remaining * 1000)


def send(fd: int, obj: Any, deadline: float) -> None:
    view = memoryview(frame(json.dumps(obj).encode()))
    while view:
        _wait(fd, select.POLLOUT, deadline)
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            continue
        except BrokenPipeError as exc:
            raise ChannelError("the worker closed its input") from exc


def _read_exact(fd: int, n: int, deadline: float) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        _wait(fd, select.POLLIN, deadline)
        try:
            chunk = os.read(fd, min(n - len(buf), 1 << 20))
        except BlockingIOError:
            continue
        if not chunk:
            raise ChannelError("the worker exited")
        buf += chunk
    return bytes(buf)


def recv(fd: int, deadline: float) -> dict:
    (size,) = HEADER.unpack(_read_exact(fd, HEADER.size, deadline))
    if size > MAX_MESSAGE:
        raise ChannelError(f"the worker sent a {size}-byte message")
    try:
        msg = json.loads(_read_exact(fd, size, deadline))
    except ValueError as exc:
        raise ChannelError(f"the worker sent bad JSON: {exc}") from exc
    if not isinstance(msg, dict):
        raise ChannelError("the worker sent a message that is not an object")
    return msg


def to_request(program: Program, limits: Limits, ident: int, stream: bool = False) -> dict:
    """A Program with its Limits as one message; bytes files travel as base64. `stream`: the
    worker sends what the program prints while it runs, and takes a stop (see inside/channel)."""
    if (program.code is None) == (program.argv is None):
        raise ValueError("a Program needs exactly one of `code` and `argv`")
    if program.argv is not None and not program.argv:
        raise ValueError("Program.argv is empty")
    files = {name: _file(data) for name, data in program.files.items()}
    return {
        "id": ident, "code": program.code, "argv": list(program.argv or ()) or None,
        "files": files, "env": {str(k): str(v) for k, v in program.env.items()},
        "stdin": program.stdin, "limits": dict(vars(limits)),  # asdict deep-copies: 10x slower
        "collect": program.collect, "stream": stream,
    }


def _file(data: str | bytes) -> dict[str, str]:
    if isinstance(data, bytes):
        return {"b64": base64.b64encode(data).decode()}
    return {"text": data}


_OUTCOME_FIELDS = {f.name for f in fields(Outcome)}


def to_outcome(reply: dict) -> Outcome:
    return Outcome(**{k: v for k, v in reply.items() if k in _OUTCOME_FIELDS})
