"""Frames of the other side: sent with calls and exceptions, shown as a real traceback.

Standalone (stdlib and the channel's other modules): part of `codetrial_proxy`."""

from __future__ import annotations

import sys
import types

from codetrial_conversions import (
    _int,
    _list,
)
from codetrial_handles import pin_builtins

__unittest = True  # unittest leaves this module's frames out of the tracebacks it prints
PROXY_MARK = "__codetrial_proxy__"  # in this module's globals: frames to drop from tracebacks
__codetrial_proxy__ = True

# ---------------------------------------------------------------- frames of the other side


def frame_list(tb: types.TracebackType | None, skip: tuple[str, ...]) -> list:
    """[file, line, function] of each frame of `tb` outside the files in `skip`."""
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename not in skip and not code.co_filename.startswith("<frozen"):
            frames.append([code.co_filename, tb.tb_lineno, code.co_name])
        tb = tb.tb_next
    return frames[-50:]


def stack_list(frame: types.FrameType | None, skip: tuple[str, ...]) -> list:
    """The same for the frames that lead to `frame`, outermost first."""
    frames = []
    while frame is not None:
        code = frame.f_code
        if code.co_filename not in skip and not code.co_filename.startswith("<frozen"):
            frames.append([code.co_filename, frame.f_lineno, code.co_name])
        frame = frame.f_back
    return frames[:50][::-1]


_CODES: dict = {}


def _frame_code(filename: str, line: int, name: str, call: bool) -> types.CodeType:
    """A tiny code object that claims to be `name` at `filename`:`line`."""
    key = (filename, line, name, call)
    code = _CODES.get(key)
    if code is None:
        body = "def f(__c): return __c()" if call else "__f = __s()"
        module = compile("\n" * max(line - 1, 0) + body, filename, "exec")
        if call:
            module = next(c for c in module.co_consts if isinstance(c, types.CodeType))
        code = _CODES[key] = module.replace(co_name=name, co_qualname=name)
    return code


def _frames(frames: object) -> list[tuple[str, int, str]]:
    found = []
    for item in _list(frames)[-50:]:
        filename, line, name = _list(item)
        found.append((str(filename), max(1, _int(line)), str(name) or "?"))
    return found


def fake_traceback(frames: object) -> types.TracebackType | None:
    """A traceback through the other side's frames (files, lines, function names), so that
    it prints as if the code had run here."""
    tb = None
    for filename, line, name in reversed(_frames(frames)):
        space = {"__s": sys._getframe}
        exec(_frame_code(filename, line, name, False), space)
        tb = types.TracebackType(tb, space["__f"], -1, line)
    return tb


def call_under(frames: object, function, *args, **kwargs) -> object:
    """function(*args, **kwargs) called below frames that claim to be the other side's callers
    (what inspect.stack() in a callback sees)."""
    call = lambda: function(*args, **kwargs)  # noqa: E731
    for filename, line, name in reversed(_frames(frames)):
        call = _bound(types.FunctionType(_frame_code(filename, line, name, True), {}), call)
    return call()


def _bound(outer, inner):
    return lambda: outer(inner)


pin_builtins(globals())
