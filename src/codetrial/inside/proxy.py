"""Objects of one process used from another: the unit tests' process and the model's (subject).

Standalone (stdlib only): every sandbox worker preloads it as `codetrial_proxy`; the subject, a
fresh interpreter, loads it from its file. One `Connection` per process, over two pipes; calls
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

import binascii
import builtins
import json
import math
import operator
import sys
import types

import codetrial_frames as frames

__unittest = True  # unittest leaves this module's frames out of the tracebacks it prints
PROXY_MARK = "__codetrial_proxy__"  # in this module's globals: frames to drop from tracebacks
__codetrial_proxy__ = True
MAX_FRAME = 64 << 20
MAX_DEPTH = 200
_ATOMS = (type(None), bool, str)
_REFUSED = (types.FrameType, types.CodeType, types.ModuleType, types.CellType)

# Operator methods a handle forwards (when the owner's type has them), as functions of the owner.
BINARY = {name: getattr(operator, name) for name in (
    "__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__pow__",
    "__lshift__", "__rshift__", "__and__", "__or__", "__xor__", "__matmul__", "__lt__",
    "__le__", "__gt__", "__ge__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
    "__ifloordiv__", "__imod__", "__ipow__", "__ilshift__", "__irshift__", "__iand__",
    "__ior__", "__ixor__", "__getitem__", "__delitem__", "__contains__")}
REFLECTED = {f"__r{name[2:]}": fn for name, fn in BINARY.items() if name[2:-2] in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and", "or",
    "xor", "matmul")}
UNARY = {"__len__": len, "__iter__": iter, "__next__": next, "__bool__": bool,
         "__hash__": hash, "__repr__": repr, "__str__": str, "__int__": int,
         "__float__": float, "__complex__": complex, "__index__": operator.index,
         "__abs__": abs, "__neg__": operator.neg, "__pos__": operator.pos,
         "__invert__": operator.invert, "__reversed__": reversed, "__dir__": dir,
         "__bytes__": bytes}
OTHER = {"__setitem__": operator.setitem, "__format__": format, "__round__": round,
         "__enter__": lambda obj: obj.__enter__(),
         "__init__": lambda obj, args, kwargs: obj.__init__(*args, **kwargs),
         "__exit__": lambda obj, *a: obj.__exit__(*a),
         "__eq__": operator.eq, "__ne__": operator.ne}
OPS = {**BINARY, **REFLECTED, **UNARY, **OTHER}
_GUARDED = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"})
_OWNER_OF_REFLECTED = {name: f"__{name[3:]}" for name in REFLECTED}
SPECIAL = frozenset(OPS) | {"__call__"}


def _plain_base(value: object) -> object:
    """The plain value an instance of a subclass of a plain type holds, read by the base type's
    own methods; or the value itself."""
    kind = type(value)
    for base, read in _UNDERLYING:
        if kind is not base and isinstance(value, base):
            return read(value)
    return value


_UNDERLYING = (
    (bool, bool), (int, int.__int__), (float, float.__float__), (complex, complex.__complex__),
    (str, str.__str__), (bytes, lambda v: bytes.__getitem__(v, slice(None))),
    (bytearray, lambda v: bytearray(bytes(memoryview(v)))),
    (list, lambda v: list(list.__iter__(v))), (tuple, lambda v: tuple(tuple.__iter__(v))),
    (dict, lambda v: {k: dict.__getitem__(v, k) for k in dict.__iter__(v)}),
    (set, lambda v: set(set.__iter__(v))), (frozenset, lambda v: frozenset(frozenset.__iter__(v))),
)
_TIMES = frozenset({"datetime", "date", "time", "timedelta"})


def _loaded(module: str, name: str) -> object:
    """A class of a module already imported, or None: a value of it can only exist then (so the
    subject, a fresh interpreter, need not import decimal, fractions or datetime to start)."""
    return getattr(sys.modules.get(module), name, None)


def _b64(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).decode()


class ProxyError(Exception):
    """The other side ended, broke the channel, or was refused something."""


class Handle:
    """An object of the other process. Its class mirrors the owner's class; its methods forward
    (see `_forwarder`); nothing of its own but the reference."""

    __slots__ = ("_codetrial_ref",)

    def __getattr__(self, name: str) -> object:
        if name in _METHODS.get(type(self), ()):
            return Method(self, name)  # called at once as a rule: one exchange, not two
        return _conn(self).request("getattr", self, name)

    def __setattr__(self, name: str, value: object) -> None:
        _conn(self).request("setattr", self, name, value)

    def __delattr__(self, name: str) -> None:
        _conn(self).request("delattr", self, name)


_REF = Handle.__dict__["_codetrial_ref"]
_METHODS: dict = {}  # class of handles -> names of the functions its owner's class defines


class Method:
    """`handle.name` where the owner's class defines a function `name`: calling it asks the
    owner for getattr(obj, name)(...) in one exchange (the owner looks it up as Python does)."""

    __slots__ = ("owner", "name")

    def __init__(self, owner: Handle, name: str) -> None:
        self.owner, self.name = owner, name

    def __call__(self, *args, **kwargs):
        return _conn(self.owner).request("callattr", self.owner, self.name, list(args), kwargs)

    def __eq__(self, other: object) -> bool:
        return type(other) is Method and other.owner is self.owner and other.name == self.name

    def __hash__(self) -> int:
        return hash((id(self.owner), self.name))

    def __repr__(self) -> str:
        return f"<bound method {type(self.owner).__qualname__}.{self.name}>"


def _conn(handle: object) -> Connection:
    return _REF.__get__(handle)[0]


def _forwarder(name: str):
    if name == "__call__":
        def method(self, *args, **kwargs):
            return _conn(self).request("call", self, list(args), kwargs)
    elif name in _GUARDED:
        def method(self, other):
            conn = _conn(self)
            if conn.guarded and not conn.owns(other):  # never the model's say against ours
                return NotImplemented
            return conn.request("op", name, self, other)
    elif name in ("__sub__", "__rsub__"):
        def method(self, other):
            conn = _conn(self)
            if conn.guarded and not conn.owns(other) and _in_almost_equal():
                return NotImplemented  # the expected value must not reach the model's operator
            return conn.request("op", name, *((other, self) if name == "__rsub__" else
                                              (self, other)))
    elif name in _OWNER_OF_REFLECTED:
        def method(self, other):
            return _conn(self).request("op", name, other, self)
    elif name == "__init__":  # called again on purpose (`super().__init__()` of a stand-in)
        def method(self, *args, **kwargs):
            return _conn(self).request("op", name, self, list(args), kwargs)
    else:
        def method(self, *args):
            return _conn(self).request("op", name, self, *args)
    method.__name__ = name
    return method


def _in_almost_equal() -> bool:
    """Whether unittest's assert(Not)AlmostEqual asks (it computes `first - second`): the model's
    object would get the expected value and could answer a difference of 0. A handle is never
    almost equal to a plain value, as it is never equal to one: the subtraction is refused."""
    import unittest.case

    caller = sys._getframe(2).f_code
    case = unittest.case.TestCase
    return caller in (case.assertAlmostEqual.__code__, case.assertNotAlmostEqual.__code__)


class RemoteClass(type):
    """The class of handles whose owner's objects are of one class: calling it constructs on
    the owner's side, its attributes are the owner's class's."""

    def __call__(cls, *args, **kwargs):
        return _CLASS_CONN[cls].request("call", cls, list(args), kwargs)

    def __getattr__(cls, name: str) -> object:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _CLASS_CONN[cls].request("getattr", cls, name)

    def __setattr__(cls, name: str, value: object) -> None:
        _CLASS_CONN[cls].request("setattr", cls, name, value)

    def __delattr__(cls, name: str) -> None:
        _CLASS_CONN[cls].request("delattr", cls, name)


_CLASS_CONN: dict = {}


class RemoteModule(types.ModuleType):
    """A module of the other side (the model's): its names are read and set there."""

    _LOCAL = frozenset({"__name__", "__spec__", "__loader__", "__file__", "__path__",
                        "__package__", "__builtins__", "__cached__", "__doc__", "__dict__",
                        "__class__", "__codetrial_module__"})

    def __getattr__(self, name: str) -> object:
        if name in RemoteModule._LOCAL:
            raise AttributeError(name)
        conn, handle = self.__dict__["__codetrial_module__"]
        return conn.request("getattr", handle, name)

    def __setattr__(self, name: str, value: object) -> None:
        if name in RemoteModule._LOCAL:
            return super().__setattr__(name, value)
        conn, handle = self.__dict__["__codetrial_module__"]
        conn.request("setattr", handle, name, value)

    def __delattr__(self, name: str) -> None:
        if name in RemoteModule._LOCAL:
            return super().__delattr__(name)
        conn, handle = self.__dict__["__codetrial_module__"]
        conn.request("delattr", handle, name)

    def __dir__(self) -> list:
        conn, handle = self.__dict__["__codetrial_module__"]
        return conn.request("op", "__dir__", handle)


def remote_module(conn: Connection, name: str, handle: object) -> RemoteModule:
    module = RemoteModule(name)
    module.__dict__["__codetrial_module__"] = (conn, handle)
    return module


# ---------------------------------------------------------------- frames


send_frame = frames.send_frame


def recv_frame(fd: int) -> bytes | None:
    try:
        return frames.recv_frame(fd, MAX_FRAME)
    except frames.FrameTooLarge as exc:
        raise ProxyError(str(exc)) from None



# ---------------------------------------------------------------- the connection


class Connection:
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

    # -------------------------------------------------------- values

    def owns(self, value: object) -> bool:
        """Is `value` a stand-in for an object of the other side (reached through this)?"""
        return id(value) in self.remote_of or (isinstance(value, Handle)
                                               and _conn(value) is self)

    def encode(self, value: object, depth: int = 0) -> object:
        kind = type(value)
        if kind in _ATOMS:
            return value
        if depth > MAX_DEPTH:
            raise RecursionError("value nested too deep")
        if kind is int:
            return value if abs(value).bit_length() < 60 else {"i": hex(value)}
        if kind is float:
            return value if math.isfinite(value) else {"f": repr(value)}
        if kind in (list, tuple, set, frozenset):
            tag = {list: "L", tuple: "t", set: "s", frozenset: "fs"}[kind]
            return {tag: [self.encode(v, depth + 1) for v in value]}
        if kind is dict or (kind.__module__ == "collections" and kind is _loaded(
                "collections", "Counter")):  # a Counter: the standard library's own methods
            return {"d" if kind is dict else "ct": [
                [self.encode(k, depth + 1), self.encode(v, depth + 1)]
                for k, v in dict.items(value)]}
        plain = self._encode_scalar(value, kind)
        if plain is not None:
            return plain
        return self._encode_object(value, kind, depth)

    def _encode_scalar(self, value: object, kind: type) -> dict | None:
        if kind is bytes:
            return {"b": _b64(value)}
        if kind is bytearray:
            return {"ba": _b64(bytes(value))}
        if kind is memoryview:
            return {"b": _b64(value.tobytes())}
        if kind is complex:
            return {"c": [self.encode(value.real), self.encode(value.imag)]}
        if kind is range and all(abs(n).bit_length() < 60 for n in (
                value.start, value.stop, value.step)):
            return {"rg": [value.start, value.stop, value.step]}
        module = kind.__module__
        if module == "fractions" and kind is _loaded("fractions", "Fraction"):
            return {"q": [hex(value.numerator), hex(value.denominator)]}
        if module == "decimal" and kind is _loaded("decimal", "Decimal"):
            return {"m": kind.__str__(value)}
        if module == "datetime" and kind.__name__ in _TIMES and kind is _loaded(
                "datetime", kind.__name__):
            return {"dt": [kind.__name__, _time_state(value)]}
        return None

    def _encode_object(self, value: object, kind: type, depth: int) -> object:
        if kind is Method and _conn(value.owner) is self:
            return {"ma": [self.encode(value.owner), value.name]}
        remote = self.remote_of.get(id(value))
        if remote is None and isinstance(value, Handle) and _conn(value) is self:
            remote = _REF.__get__(value)[1]
        if remote is not None:
            return {"l": remote}
        enum = _loaded("enum", "Enum")
        if enum is not None and isinstance(value, enum) and _stdlib(kind.__module__):
            return {"e": [kind.__module__, kind.__qualname__, value.name]}
        lowered = _plain_base(value)
        if lowered is not value and not _functions(kind):  # a subclass with methods: a handle
            fields = _named_fields(kind, lowered)
            if fields:  # a namedtuple: a tuple whose fields the tests may read by name
                return {"nt": [fields, self.encode(lowered, depth + 1)]}
            return self.encode(lowered, depth + 1)
        if isinstance(value, type):
            return self._encode_class(value)
        if isinstance(value, types.BuiltinFunctionType) and getattr(
                builtins, getattr(value, "__name__", ""), None) is value:
            return {"bf": value.__name__}
        if self.guarded and isinstance(value, _REFUSED):
            raise ProxyError(f"codetrial: a {kind.__name__} of the tests' process cannot be "
                             "lent to the code under test")
        return {"h": [self._export(value), self._encode_class(kind, lent=True)]}

    def _export(self, value: object) -> int:
        key = self.export_ids.get(id(value))
        if key is None:
            key = len(self.exports) + 1
            self.exports[key] = value
            self.export_ids[id(value)] = key
        return key

    def _encode_class(self, kind: type, lent: bool = False) -> dict:
        """A builtin class as its name, unless an object of it is lent (a range, a map): the
        receiver's stand-in must then be a class of handles."""
        if not lent and getattr(builtins, kind.__name__, None) is kind:
            return {"B": kind.__name__}
        remote = self.remote_of.get(id(kind))
        if remote is not None:
            return {"l": remote}
        key = self._export(kind)
        if key in self.described:
            return {"k": key}
        self.described.add(key)
        bases = [self._encode_class(b) for b in kind.__bases__ if b is not object]
        special = sorted(n for n in SPECIAL if _has(kind, n))
        exc = issubclass(kind, BaseException)
        return {"k": key, "n": [str(kind.__name__), str(kind.__qualname__),
                                str(getattr(kind, "__module__", "?"))],
                "bases": bases, "ops": special, "exc": exc, "methods": _functions(kind),
                "unhashable": not _has(kind, "__hash__")}

    def decode(self, data: object, depth: int = 0) -> object:
        kind = type(data)
        if kind in _ATOMS or kind is int or kind is float:
            return data
        if kind is not dict or len(data) > 7 or depth > MAX_DEPTH:
            raise ValueError(f"not an encoded value: {kind.__name__}")
        if len(data) == 1:
            ((tag, body),) = data.items()
            if tag in _SEQUENCES:
                return _SEQUENCES[tag](self.decode(v, depth + 1) for v in _list(body))
            if tag in ("d", "ct"):
                pairs = {self.decode(k, depth + 1): self.decode(v, depth + 1)
                         for k, v in (_pair(p) for p in _list(body))}
                return pairs if tag == "d" else _counter(pairs)
            if tag == "nt":
                fields, values = _pair(body)
                return _named_tuple(_fields_of(fields), self.decode(values, depth + 1))
            decoded = _decode_scalar(tag, body)
            if decoded is not _NONE:
                return decoded
        return self._decode_object(data, depth)

    def _decode_object(self, data: dict, depth: int) -> object:
        if "l" in data:
            return self.exports[_int(data["l"])]
        if "h" in data:
            key, kind = _list(data["h"])
            if _int(key) in self.proxies:
                return self.proxies[key]
            kind = self._decode_class(kind)
            if isinstance(kind, type) and issubclass(kind, BaseException):
                return self._remember(key, _construct(kind, [], ""))  # raised, it has args
            if not isinstance(kind, RemoteClass):
                raise ValueError("a handle must be of a class of handles")
            return self._proxy(key, kind)
        if "e" in data:
            module, qualname, name = (str(p) for p in _list(data["e"]))
            return _stdlib_enum(module, qualname, name)
        if "ma" in data:
            owner, name = _list(data["ma"])
            self._check_name(name)
            return getattr(self.decode(owner, depth + 1), name)
        if "bf" in data:
            found = getattr(builtins, str(data["bf"]), None)
            if not isinstance(found, types.BuiltinFunctionType):
                raise ValueError("not a builtin function")
            return found
        return self._decode_class(data)

    def _proxy(self, key: int, kind: type) -> object:
        found = self.proxies.get(key)
        if found is None:
            found = object.__new__(kind)
            _REF.__set__(found, (self, key))
            self.proxies[key] = found
        return found

    def _remember(self, key: int, stand_in: object) -> object:
        self.proxies[key] = stand_in
        self.remote_of[id(stand_in)] = key
        return stand_in

    def _decode_class(self, data: object) -> type:
        if type(data) is not dict:
            raise ValueError("not a class")
        if "B" in data:
            found = getattr(builtins, str(data["B"]), None)
            if not isinstance(found, type):
                raise ValueError("not a builtin class")
            return found
        if "l" in data:
            return self.exports[_int(data["l"])]
        key = _int(data["k"])
        if key in self.proxies:
            return self.proxies[key]
        name, qualname, module = (str(p) for p in _list(data["n"]))
        bases = tuple(self._decode_class(b) for b in _list(data["bases"]))
        made = (_exception_class(name, qualname, module, bases) if data.get("exc") is True
                else self._handle_class(name, qualname, module, bases, data))
        self.proxies[key] = made
        self.remote_of[id(made)] = key
        _CLASS_CONN[made] = self
        return made

    def _handle_class(self, name: str, qualname: str, module: str, bases: tuple,
                      data: dict) -> type:
        ops = [str(n) for n in _list(data.get("ops", [])) if str(n) in SPECIAL]
        space = {n: _forwarder(n) for n in ops}
        space.update(__module__=module, __qualname__=qualname, __slots__=())
        for eq in ("__eq__", "__ne__"):
            space.setdefault(eq, _forwarder(eq))
        if data.get("unhashable") is True:
            space["__hash__"] = None
        bases = tuple(b for b in bases if isinstance(b, RemoteClass)) or (Handle,)
        try:
            made = RemoteClass(name, bases, space)
        except TypeError:  # an odd hierarchy: the class alone still works
            made = RemoteClass(name, (Handle,), space)
        _METHODS[made] = frozenset(str(n) for n in _list(data.get("methods", [])))
        return made

    # -------------------------------------------------------- exceptions

    def encode_exception(self, exc: BaseException) -> dict:
        """In the order the receiver decodes: the class, the object, its arguments."""
        kind = self._encode_class(type(exc))
        own = self.encode(exc)
        args = list(exc.args) if isinstance(exc.args, tuple) else []
        try:
            encoded_args = [self.encode(a) for a in args]
        except (ProxyError, RecursionError, TypeError, ValueError):
            encoded_args = [_text(exc)]
        frames = self.frames_of(exc) if self.frames_of is not None else []
        return {"cls": kind, "self": own, "args": encoded_args, "text": _text(exc),
                "frames": frames}

    def decode_exception(self, data: dict) -> BaseException:
        """The exception the other side raised, as one of ours (the same object again when it
        was ours or crossed before)."""
        if type(data) is not dict:
            raise ValueError("not an exception")
        own = data.get("self")
        if type(own) is dict and "l" in own:
            exc = self.exports[_int(own["l"])]
            if isinstance(exc, BaseException):
                return exc.with_traceback(None)
        if type(own) is dict and "h" in own:
            key = _int(_list(own["h"])[0])
            if isinstance(self.proxies.get(key), BaseException):
                return self.proxies[key]
        kind = self._decode_class(data["cls"])
        if not (isinstance(kind, type) and issubclass(kind, BaseException)):
            kind = _exception_class(str(getattr(kind, "__name__", "Error")), "", "", ())
        exc = _construct(kind, [self.decode(a) for a in _list(data.get("args", []))],
                         str(data.get("text", "")))
        if type(own) is dict and "h" in own:
            self._remember(_int(_list(own["h"])[0]), exc)
        frames = data.get("frames")
        if frames:
            exc = exc.with_traceback(fake_traceback(frames))
        return exc


def _construct(kind: type, args: list, text: str) -> BaseException:
    """kind(*args); a builtin that wants other arguments gets the text, or stands aside."""
    for attempt in (args, [text]):
        try:
            return kind(*attempt)
        except Exception:  # noqa: BLE001
            continue
    return _exception_class(kind.__name__, kind.__qualname__, "builtins", (Exception,))(text)


_NONE = object()
_MUTABLE = (list, dict, set, bytearray)
_CALLS = {"call": 1, "callattr": 2}  # where a call request's arguments start
_SEQUENCES = {"L": list, "t": tuple, "s": set, "fs": frozenset}


def _decode_scalar(tag: str, body: object) -> object:
    if tag == "i" and type(body) is str:
        return int(body, 16)
    if tag == "f" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag in ("b", "ba") and type(body) is str:
        data = binascii.a2b_base64(body, strict_mode=True)
        return data if tag == "b" else bytearray(data)
    if tag == "c":
        real, imag = _list(body)
        return complex(float(real if type(real) is not dict else _decode_scalar(
            *next(iter(real.items())))), float(imag if type(imag) is not dict else _decode_scalar(
                *next(iter(imag.items())))))
    if tag == "rg" and all(type(n) is int for n in _list(body)):
        return range(*body)
    if tag == "q":
        numerator, denominator = (int(str(p), 16) for p in _list(body))
        from fractions import Fraction

        return Fraction(numerator, denominator)
    if tag == "m" and type(body) is str:
        from decimal import Decimal

        return Decimal(body)
    if tag == "dt":
        name, state = _list(body)
        return _time_value(str(name), _list(state))
    return _NONE


def _named_fields(kind: type, lowered: tuple) -> list[str] | None:
    """A namedtuple class's field names, read from the class dicts (nothing of the model's
    runs): public identifiers, one per item."""
    for base in type.__dict__["__mro__"].__get__(kind):
        fields = type.__dict__["__dict__"].__get__(base).get("_fields")
        if fields is not None:
            break
    try:
        return _fields_of(list(fields)) if len(fields) == len(lowered) else None
    except (TypeError, ValueError):
        return None


def _fields_of(fields: object) -> tuple[str, ...]:
    names = tuple(_list(fields))
    if not names or len(names) > 255 or len(set(names)) != len(names) or not all(
            type(n) is str and n.isidentifier() and not n.startswith("_") for n in names):
        raise ValueError("not the fields of a namedtuple")
    return names


_NAMED: dict[tuple[str, ...], type] = {}


def _named_tuple(fields: tuple[str, ...], values: object) -> tuple:
    """A tuple whose items are also read by name, as the namedtuple's were: a class made here
    (properties over the items, no code from the other side), equal to the plain tuple."""
    if type(values) is not tuple or len(values) != len(fields):
        raise ValueError("a namedtuple's values do not fit its fields")
    kind = _NAMED.get(fields)
    if kind is None:
        space = {name: property(operator.itemgetter(i)) for i, name in enumerate(fields)}
        space.update(__slots__=(), _fields=fields, __repr__=lambda self: "({})".format(
            ", ".join(f"{n}={v!r}" for n, v in zip(fields, self, strict=True))))
        kind = _NAMED[fields] = type("namedtuple", (tuple,), space)
    return kind(values)


def _counter(pairs: dict) -> object:
    """A collections.Counter of decoded pairs (dict.update: no counting of the values)."""
    from collections import Counter

    made = Counter()
    dict.update(made, pairs)
    return made


def _list(body: object) -> list:
    if type(body) is not list:
        raise ValueError("malformed message")
    return body


def _pair(body: object) -> list:
    pair = _list(body)
    if len(pair) != 2:
        raise ValueError("malformed message")
    return pair


def _int(body: object) -> int:
    if type(body) is not int:
        raise ValueError("malformed reference")
    return body


def _functions(kind: type) -> list[str]:
    """Public names that the class (or a base) binds to a plain function."""
    names: dict[str, bool] = {}
    for base in type.__dict__["__mro__"].__get__(kind):
        for name, value in type.__dict__["__dict__"].__get__(base).items():
            if type(name) is str and not name.startswith("_"):
                names.setdefault(name, type(value) is types.FunctionType)
    return sorted(name for name, function in names.items() if function)


def _has(kind: type, name: str) -> bool:
    """Do instances of `kind` have the method `name` (looked up as Python does, on the type)?"""
    for base in type.__dict__["__mro__"].__get__(kind):
        space = type.__dict__["__dict__"].__get__(base)
        if name in space:
            return space[name] is not None
    return False


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:4000]
    except Exception:  # noqa: BLE001 - str() of a hostile exception may fail
        return type(exc).__name__


def _time_state(value: object) -> list:
    name = type(value).__name__
    if name == "timedelta":
        return [value.days, value.seconds, value.microseconds]
    if name == "date":
        return [value.toordinal()]
    if value.tzinfo is not None:
        raise ProxyError("codetrial: datetime values with a time zone do not cross")
    if name == "time":
        return [value.hour, value.minute, value.second, value.microsecond]
    return [value.year, value.month, value.day, value.hour, value.minute, value.second,
            value.microsecond]


def _time_value(name: str, state: list) -> object:
    import datetime

    parts = [_int(p) for p in state]
    if name == "date":
        return datetime.date.fromordinal(*parts)
    if name in _TIMES:
        return getattr(datetime, name)(*parts)
    raise ValueError("not a time value")


def _stdlib(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


def _stdlib_enum(module: str, qualname: str, name: str) -> object:
    import enum
    import importlib

    if not _stdlib(module):
        raise ValueError("not a standard-library enum")
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    if not (isinstance(found, type) and issubclass(found, enum.Enum)):
        raise ValueError("not an enum")
    return found[name]


def _exception_class(name: str, qualname: str, module: str, bases: tuple) -> type:
    """A real exception class standing for the other side's: same name, same hierarchy."""
    bases = tuple(b for b in bases if isinstance(b, type) and issubclass(b, BaseException))
    space = {"__module__": module or "builtins", "__qualname__": qualname or name}
    try:
        return type(name, bases or (Exception,), space)
    except TypeError:  # bases whose layouts conflict: the first alone
        return type(name, bases[:1] or (Exception,), space)


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


def pin_builtins(space: dict) -> None:
    """Bind the builtins a module of ours uses into its own namespace, as they are now: in the
    subject the model's code may replace builtins (its own), which must not break the channel."""
    for name in ("isinstance", "issubclass", "type", "len", "getattr", "setattr", "hasattr",
                 "str", "int", "float", "list", "dict", "tuple", "set", "frozenset", "repr",
                 "hash", "id", "iter", "next", "sorted", "any", "all", "bool", "object",
                 "super", "max", "min", "abs", "vars", "print", "range", "enumerate", "zip",
                 "reversed", "bytes", "bytearray", "memoryview", "complex", "callable",
                 "delattr", "format", "round", "open", "Exception", "BaseException",
                 "TypeError", "ValueError", "KeyError", "IndexError", "AttributeError",
                 "RecursionError", "OSError", "BrokenPipeError", "StopIteration"):
        space.setdefault(name, getattr(builtins, name))


pin_builtins(globals())
