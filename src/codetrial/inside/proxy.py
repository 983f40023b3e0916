"""Objects of one process used from another: the unit tests' process and the model's (subject).

Standalone (stdlib and its parts: codetrial_frames, _handles, _conversions, _tracebacks,
_values): every sandbox worker preloads it as `codetrial_proxy`; the subject, a fresh
interpreter, loads them from their files. One `Connection` per process, over two pipes; calls
are re-entrant both ways (the subject may call a test's callback while a test waits for it).

Plain values (None, bool, int, float, complex, str, bytes, bytearray, memoryview contents, tuple,
list, dict, set, frozenset, range, Counter, Fraction, Decimal, datetime values, standard-library
enums) cross as copies; an instance of a subclass of a plain type crosses as the value its base
type's own C methods read, so no override of the model's is asked (unless its class adds
methods: then as a handle, which is never equal to a plain value). Anything else (a map, a zip, the
model's objects) crosses as a handle whose operators, attributes, iteration, context methods,
calls and repr are forwarded to the side that owns the object. A class crosses as a class of
the receiving side that mirrors its hierarchy (isinstance works); an exception class as a real
exception class with the same name and bases.

On the trusted side (`guarded=True`, the tests' process) nothing the other side sends is ever
run: decoding builds only plain values and proxies. The other side may not read attributes whose
names start with "_" (bar the operator methods), set any such name, nor receive frames, code,
modules or cells, so no chain of attributes leads from a callback to the tests' globals or
source. A handle compared (==, !=, <, ...) with a value of this side is not equal to it (identity
decides, as Python does when both sides say NotImplemented; ordering raises TypeError): no object
of the model's can say it equals an expected value. Two handles compare by the model's methods.
"""

from __future__ import annotations

import json

import codetrial_frames as frames
from codetrial_conversions import (
    _CALLS,
    _MUTABLE,
    _list,
    _pair,
)
from codetrial_handles import (
    MAX_FRAME,
    OPS,
    SPECIAL,
    ProxyError,
    pin_builtins,
    remote_module,  # noqa: F401 - the channel's API, re-exported
)
from codetrial_tracebacks import call_under, frame_list, stack_list  # noqa: F401 - the same
from codetrial_values import (
    Values,
)

__unittest = True  # unittest leaves this module's frames out of the tracebacks it prints
PROXY_MARK = "__codetrial_proxy__"  # in this module's globals: frames to drop from tracebacks
__codetrial_proxy__ = True

# ---------------------------------------------------------------- frames


send_frame = frames.send_frame


def recv_frame(fd: int) -> bytes | None:
    try:
        return frames.recv_frame(fd, MAX_FRAME)
    except frames.FrameTooLarge as exc:
        raise ProxyError(str(exc)) from None



# ---------------------------------------------------------------- the connection


class Connection(Values):
    """One side's end: what it lends (exports), what it holds of the other side (proxies), and
    the request/serve loop. `on_reply`/`extra` let the subject add what it recorded."""

    def __init__(self, inp: int, out: int, guarded: bool, name: str = "") -> None:
        self.inp, self.out, self.guarded, self.name = inp, out, guarded, name
        self.exports: dict[int, object] = {}
        self.export_ids: dict[int, int] = {}  # id(obj) -> export id
        self.proxies: dict[int, object] = {}  # the other side's export id -> our stand-in
        self.remote_of: dict[int, int] = {}  # id(stand-in) -> the other side's export id
        self.described: set[int] = set()
        self.closed = ""
        self.on_message = None  # called with each message received (the subject's records)
        self.extra = None  # called for fields to add to each message sent
        self.frames_of = None  # the subject: frames of an exception, for the other side
        self.around_call = None  # the tests' side: runs a call under the caller's frames
        self.stack_of = None  # the subject: its frames, sent with each call it makes
        import threading  # here: a worker that loads this module stays without it (_worker)

        self.lock = threading.RLock()

    # -------------------------------------------------------- sending and receiving

    def request(self, op: str, *args: object) -> object:
        """Ask the other side; serve what it asks meanwhile. One exchange at a time: threads
        (a test's 1000 concurrent deposits) take turns, nested calls of one thread go on."""
        with self.lock:
            message = {"q": op, "a": [self.encode(a) for a in args]}
            if self.stack_of is not None and op in _CALLS:
                message["f"] = self.stack_of()
            self._send(message)
            while True:
                message = self._receive()
                if "q" not in message:
                    result = self._result(message)
                    if "after" in message and op in _CALLS:
                        self._update(args[_CALLS[op]], args[_CALLS[op] + 1], message["after"])
                    return result
                self._send(self.handle(message))

    def serve(self) -> None:
        """Answer requests until the other side closes the channel."""
        while True:
            try:
                message = self._receive()
            except ProxyError:
                return
            self._send(self.handle(message))

    def _send(self, message: dict) -> None:
        if self.closed:
            raise ProxyError(self.closed)
        if self.extra is not None:
            message.update(self.extra())
        try:
            send_frame(self.out, json.dumps(message).encode())
        except (BrokenPipeError, OSError):
            self.closed = f"{self.name or 'the other side'} closed the channel"
            raise ProxyError(self.closed) from None

    def _receive(self) -> dict:
        if self.closed:
            raise ProxyError(self.closed)
        frame = recv_frame(self.inp)
        if frame is None:
            self.closed = f"{self.name or 'the other side'} ended before it answered"
            raise ProxyError(self.closed)
        try:
            message = json.loads(frame)
            if type(message) is not dict:
                raise ValueError("not an object")
        except (ValueError, RecursionError) as exc:
            self.closed = f"{self.name or 'the other side'} broke the channel: {exc}"
            raise ProxyError(self.closed) from None
        if self.on_message is not None:
            self.on_message(message)
        return message

    def _result(self, message: dict) -> object:
        try:
            if "x" in message:
                error = self.decode_exception(message["x"])
            else:
                return self.decode(message.get("v"))
        except (ValueError, TypeError, KeyError, IndexError, RecursionError) as exc:
            self.closed = f"{self.name or 'the other side'} broke the channel: {exc!r}"
            raise ProxyError(self.closed) from None
        raise error

    # -------------------------------------------------------- serving one request

    def handle(self, message: dict) -> dict:
        try:
            op, args = str(message["q"]), [self.decode(a) for a in message["a"]]
            reply = {"v": self.encode(self.perform(op, args, message.get("f")))}
            if op in _CALLS:
                at = _CALLS[op]
                changed = self._changed(args[at], args[at + 1], message["a"][at:])
                if changed:
                    reply["after"] = changed
            return reply
        except BaseException as exc:  # noqa: BLE001 - it crosses to the caller, as raised
            if self.closed:
                raise
            try:
                return {"x": self.encode_exception(exc)}
            except BaseException as again:  # noqa: BLE001
                return {"x": self.encode_exception(ProxyError(f"unsendable error: {again!r}"))}

    # A call's list, dict, set and bytearray arguments crossed as copies: what the call did to
    # them is sent back with its result and done to the caller's objects too.

    def _changed(self, pos: list, kw: dict, sent: list) -> list:
        """[[position or name, new value], ...] for the mutable arguments the call changed."""
        before = dict(enumerate(_list(sent[0]["L"]))) if type(sent[0]) is dict else {}
        named = {k: v for k, v in _list(sent[1]["d"])} if type(sent[1]) is dict else {}
        changed = []
        for key, value in [*enumerate(pos), *kw.items()]:
            if type(value) in _MUTABLE:
                now = self.encode(value)
                if now != (before if type(key) is int else named).get(key):
                    changed.append([key, now])
        return changed

    def _update(self, pos: list, kw: dict, changed: object) -> None:
        for key, data in (_pair(item) for item in _list(changed)):
            target = pos[key] if type(key) is int and 0 <= key < len(pos) else kw.get(key)
            new = self.decode(data)
            if type(target) is not type(new) or type(target) not in _MUTABLE:
                continue
            if type(target) in (list, bytearray):
                target[:] = new
            else:
                target.clear()
                target.update(new)

    def perform(self, op: str, args: list, frames: object) -> object:
        if op in ("call", "callattr"):
            if op == "callattr":
                self._check_name(args[1])
                args = [getattr(args[0], args[1]), *args[2:]]
            target, pos, kw = args
            if self.around_call is not None and frames:
                return self.around_call(frames, target, pos, kw)
            return target(*pos, **kw)
        if op == "getattr":
            self._check_name(args[1])
            return getattr(args[0], args[1])
        if op == "setattr":
            self._check_name(args[1], writing=True)
            return setattr(args[0], args[1], args[2])
        if op == "delattr":
            self._check_name(args[1], writing=True)
            return delattr(args[0], args[1])
        if op == "op":
            return OPS[args[0]](*args[1:])
        if op == "ping":
            return None
        if op == "import" and not self.guarded:
            import importlib

            return importlib.import_module(str(args[0]))
        raise ProxyError(f"unknown request {op!r}")

    def _check_name(self, name: object, writing: bool = False) -> None:
        if type(name) is not str:
            raise TypeError("attribute name must be a str")
        if self.guarded and name.startswith("_") and (writing or name not in SPECIAL):
            raise AttributeError(f"codetrial: the code under test may not "
                                 f"{'set' if writing else 'read'} {name!r} of the tests' objects")


pin_builtins(globals())
