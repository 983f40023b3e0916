"""What the other side's objects become here: handles, forwarded operators, mirrored
classes and modules; and the builtins every module of the channel pins.

Standalone (stdlib and the channel's other modules): part of `codetrial_proxy`."""

from __future__ import annotations

import binascii
import builtins
import operator
import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codetrial_proxy import Connection

__unittest = True  # unittest leaves this module's frames out of the tracebacks it prints
PROXY_MARK = "__codetrial_proxy__"  # in this module's globals: frames to drop from tracebacks
__codetrial_proxy__ = True

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


pin_builtins(globals())
