"""The pieces values are rebuilt from: scalars, named tuples, times, enums and exception
classes of the standard library, each checked before it is built.

Standalone (stdlib and the channel's other modules): part of `codetrial_proxy`."""

from __future__ import annotations

import binascii
import operator
import sys
import types

from codetrial_handles import (
    _TIMES,
    ProxyError,
    pin_builtins,
)

__unittest = True  # unittest leaves this module's frames out of the tracebacks it prints
PROXY_MARK = "__codetrial_proxy__"  # in this module's globals: frames to drop from tracebacks
__codetrial_proxy__ = True

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


pin_builtins(globals())
