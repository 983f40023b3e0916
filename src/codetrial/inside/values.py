"""How values cross the channel: plain values as copies, everything else as a handle (the
Connection's encoding half).

Standalone (stdlib and the channel's other modules): part of `codetrial_proxy`."""

from __future__ import annotations

import builtins
import math
import types

from codetrial_conversions import (
    _NONE,
    _SEQUENCES,
    _construct,
    _counter,
    _decode_scalar,
    _exception_class,
    _fields_of,
    _functions,
    _has,
    _int,
    _list,
    _named_fields,
    _named_tuple,
    _pair,
    _stdlib,
    _stdlib_enum,
    _text,
    _time_state,
)
from codetrial_handles import (
    _ATOMS,
    _CLASS_CONN,
    _METHODS,
    _REF,
    _REFUSED,
    _TIMES,
    MAX_DEPTH,
    SPECIAL,
    Handle,
    Method,
    ProxyError,
    RemoteClass,
    _b64,
    _conn,
    _forwarder,
    _loaded,
    _plain_base,
    pin_builtins,
)
from codetrial_tracebacks import (
    fake_traceback,
)

__unittest = True  # unittest leaves this module's frames out of the tracebacks it prints
PROXY_MARK = "__codetrial_proxy__"  # in this module's globals: frames to drop from tracebacks
__codetrial_proxy__ = True

class Values:
    """What crosses the channel: values encoded and decoded (the Connection's half that
    knows no pipes)."""


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


pin_builtins(globals())
