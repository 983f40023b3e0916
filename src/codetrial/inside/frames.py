"""Length-prefixed frames: a 4-byte big-endian length, then that many bytes.

Every channel speaks it: harness and worker (JSON messages), judge and subject, tests and
subject (proxy messages), the harness and the llama.cpp child.
"""

from __future__ import annotations

import json
import os
import struct

__unittest = True  # unittest leaves this module's frames out of the tracebacks it prints
__codetrial_proxy__ = True  # and so does the proxy's traceback cleaning (proxy.PROXY_MARK)
HEADER = struct.Struct(">I")
READ_CHUNK = 1 << 20


class FrameTooLarge(ValueError):
    """The other side announced a frame over the limit."""


def read_exact(fd: int, n: int) -> bytes | None:
    """`n` bytes, or None at the end of the input before them."""
    parts, need = [], n
    while need:
        chunk = os.read(fd, min(need, READ_CHUNK))
        if not chunk:
            return None
        parts.append(chunk)
        need -= len(chunk)
    return b"".join(parts)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def frame(data: bytes) -> bytes:
    return HEADER.pack(len(data)) + data


def send_frame(fd: int, data: bytes) -> None:
    write_all(fd, frame(data))


def recv_frame(fd: int, limit: int) -> bytes | None:
    """The next frame's bytes; None at the end of the input."""
    head = read_exact(fd, HEADER.size)
    if head is None:
        return None
    (size,) = HEADER.unpack(head)
    if size > limit:
        raise FrameTooLarge(f"the other side sent a {size}-byte message")
    return read_exact(fd, size)


def write_message(fd: int, message: object) -> None:
    send_frame(fd, json.dumps(message).encode())


def read_message(fd: int, limit: int) -> object | None:
    body = recv_frame(fd, limit)
    return None if body is None else json.loads(body)
