"""Plain values: all that crosses from the code under test to the checks that judge it.

Standalone (stdlib only): the harness imports it as `codetrial.sandbox._plain`, and every sandbox
worker preloads it as `codetrial_plain`. A plain value is None, a bool, int, float, complex, str,
bytes, Fraction or Decimal, or a list, tuple, set, frozenset or dict of plain values: exactly
those types, never a subclass, so no object of the model's can lie about equality, length or
truth. `encode` turns any value into JSON-able data (lowering what it can: a namedtuple is a
tuple, an IntEnum an int, a numpy array what `.tolist()` gives; anything else becomes an Opaque);
`decode` rebuilds the plain value and refuses anything it did not make.
"""

from __future__ import annotations

import base64
import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

MAX_DEPTH = 100
ANSWER_PREFIX = "\x02codetrial-answer "  # starts each answer line a judged program prints
RANDOM_SEED = 20210707  # tests that draw random inputs draw the same ones on every run
MAX_INT_DIGITS = 4000  # int <-> str conversions are capped at 4300 digits by default
_SCALARS = (type(None), bool, str)


class Opaque:
    """A value that is not plain data: equal to nothing and without a truth value, so a check
    can neither pass on it nor be fooled by it."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError(f"a {self.type_name} has no truth value here: return plain values")

    def __repr__(self) -> str:
        return f"<{self.type_name}: {self.text}>"


def encode(value: Any, depth: int = 0, ask: bool = True) -> Any:
    """JSON-able data for `value`; raises RecursionError when nested more than 100 deep.

    With ask=False no method of the value's own is called (no .tolist()): for values met where
    the code under test may not run."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if depth > MAX_DEPTH:
        raise RecursionError(f"value nested more than {MAX_DEPTH} deep")
    if kind is int:
        return value if abs(value).bit_length() < 13000 else {"i": hex(value)}
    if kind is float:
        return value if math.isfinite(value) else {"f": repr(value)}
    if kind is list:
        return [encode(item, depth + 1, ask) for item in value]
    if kind in _TAGS:
        return {_TAGS[kind]: [encode(item, depth + 1, ask) for item in value]}
    if kind is dict:
        return {"d": [[encode(k, depth + 1, ask), encode(v, depth + 1, ask)]
                      for k, v in value.items()]}
    if kind is complex:
        return {"c": [encode(value.real), encode(value.imag)]}
    if kind is bytes:
        return {"b": base64.b64encode(value).decode()}
    if kind is Fraction and ask:  # Python classes: code in this process may have patched them
        return {"q": [encode(value.numerator), encode(value.denominator)]}
    if kind is Decimal and ask:
        return {"m": Decimal.__str__(value)}
    if kind is Opaque:
        return {"o": [value.type_name, value.text]}
    return encode(lower(value, ask), depth + 1, ask)


_TAGS = {tuple: "t", set: "s", frozenset: "fs"}
_DECIMAL = re.compile(r"-?(\d+(\.\d*)?(E[+-]?\d+)?|Infinity|s?NaN\d*)")
_KINDS = {tag: kind for kind, tag in _TAGS.items()}


# The data an instance of a subclass holds, read through the builtin type's own methods so that
# no override of the subclass (__eq__, __iter__, __str__ ...) has a say.
_UNDERLYING = (
    (int, int.__int__), (float, float.__float__), (complex, complex.__complex__),
    (str, str.__str__), (bytes, lambda v: bytes.__getitem__(v, slice(None))),
    (list, list.copy), (tuple, lambda v: tuple(tuple.__iter__(v))), (dict, dict.copy),
    (set, set.copy), (frozenset, lambda v: frozenset(frozenset.__iter__(v))),
)


def lower(value: Any, ask: bool = True) -> Any:
    """The plain value an object of another type stands for, or an Opaque."""
    kind = type(value)  # not value.__class__, which an object may fake
    for base, underlying in _UNDERLYING:
        if issubclass(kind, base):
            return underlying(value)
    tolist = getattr(value, "tolist", None) if ask else None
    if callable(tolist):
        return tolist()
    return Opaque(kind.__name__, _short_repr(value) if ask else "")


def _short_repr(value: Any) -> str:
    try:
        return repr(value)[:200]
    except Exception:  # noqa: BLE001 - any repr may fail; the type name is enough
        return "?"


def decode(data: Any, depth: int = 0) -> Any:
    """The plain value `encode` made; ValueError for anything else."""
    kind = type(data)
    if kind in _SCALARS or kind is int:
        return data
    if kind is float:
        return data
    if depth > MAX_DEPTH + 2:
        raise ValueError("nested too deep")
    if kind is list:
        return [decode(item, depth + 1) for item in data]
    if kind is not dict or len(data) != 1:
        raise ValueError(f"not an encoded value: {type(data).__name__}")
    ((tag, body),) = data.items()
    return _decode_tagged(tag, body, depth)


def _decode_tagged(tag: str, body: Any, depth: int) -> Any:
    if tag in _KINDS and type(body) is list:
        return _KINDS[tag](decode(item, depth + 1) for item in body)
    if tag == "d" and type(body) is list and all(type(p) is list and len(p) == 2 for p in body):
        return {decode(k, depth + 1): decode(v, depth + 1) for k, v in body}
    if tag == "i" and type(body) is str:
        return int(body, 16)
    if tag == "f" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "c" and type(body) is list and len(body) == 2:
        return complex(float(decode(body[0])), float(decode(body[1])))
    if tag == "b" and type(body) is str:
        return base64.b64decode(body, validate=True)
    if tag == "q" and type(body) is list and len(body) == 2:
        numerator, denominator = decode(body[0]), decode(body[1])
        if type(numerator) is int and type(denominator) is int and denominator > 0:
            return Fraction(numerator, denominator)
    if tag == "m" and type(body) is str and _DECIMAL.fullmatch(body):
        return Decimal(body)
    if tag == "o" and type(body) is list and len(body) == 2:
        return Opaque(str(body[0])[:100], str(body[1])[:200])
    raise ValueError(f"not an encoded value: tag {tag!r}")


def exception_named(name: str, message: str) -> Exception:
    """An exception the code under test raised, rebuilt on our side from its name: the builtin
    of that name when there is one, else a new class with the name (for the traceback's sake)."""
    import builtins

    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        return kind(message)
    safe = name if name.isidentifier() else "UnknownError"
    return type(safe, (Exception,), {"__module__": "builtins"})(message)


def is_plain(value: Any, depth: int = 0) -> bool:
    """Only builtin plain types, all the way down (no method of the value is called). Fraction
    and Decimal are left out: code running in this process could have patched them."""
    kind = type(value)
    if kind in _SCALARS or kind in (int, float, complex, bytes):
        return True
    if depth > MAX_DEPTH:
        return False
    if kind is list or kind in _TAGS:
        return all(is_plain(item, depth + 1) for item in value)
    if kind is dict:
        return all(is_plain(k, depth + 1) and is_plain(v, depth + 1) for k, v in value.items())
    return False


def as_plain(value: Any) -> Any:
    """The plain value `value` stands for, asking nothing of it (non-plain parts: Opaque)."""
    return decode(encode(value, ask=False))
