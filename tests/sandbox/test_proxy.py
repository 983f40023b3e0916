"""The proxies between the tests' process and the model's (inside/proxy.py), both ends in one
process here (a thread serves the model's end): what crosses as a copy, what as a handle, and
what the tests' end refuses."""

from __future__ import annotations

import collections
import datetime
import enum
import http
import json
import os
import sys
import threading
import types
from decimal import Decimal
from fractions import Fraction

import pytest

from codetrial.inside import standalone

proxy = standalone("proxy")

MODEL = '''
class Yes:
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

    def __lt__(self, other):
        return True

    __hash__ = object.__hash__


class Liar(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__


class Level(enum.IntEnum):
    LOW = 1


class OwnError(KeyError):
    pass


class SubError(OwnError):
    pass


def call(function, *args):
    return function(*args)


def peek(function, name):
    return getattr(function, name)


def fail(kind):
    raise {"own": SubError, "value": ValueError}[kind]("it broke", 7)


Pair = collections.namedtuple("Pair", "a b")


class Bag(list):
    def total(self):
        return sum(self)


class Zero:
    def __sub__(self, other):
        return 0

    def __rsub__(self, other):
        return 0


def grow(items, *, seen):
    items.append(len(items))
    seen["grown"] = True
    return None
'''


@pytest.fixture()
def tests_end():
    """The tests' end of a connection to a thread that serves module `model_module`."""
    module = types.ModuleType("model_module")
    module.__dict__.update(enum=enum, collections=collections)
    exec(MODEL, module.__dict__)
    sys.modules["model_module"] = module
    to_model_r, to_model_w = os.pipe()
    to_tests_r, to_tests_w = os.pipe()
    model_end = proxy.Connection(to_model_r, to_tests_w, guarded=False)
    thread = threading.Thread(target=model_end.serve, daemon=True)
    thread.start()
    conn = proxy.Connection(to_tests_r, to_model_w, guarded=True)
    yield conn, proxy.remote_module(conn, "model_module", conn.request("import", "model_module"))
    for fd in (to_model_w, to_tests_r):
        os.close(fd)
    thread.join(5)
    for fd in (to_model_r, to_tests_w):
        os.close(fd)
    del sys.modules["model_module"]


PLAIN = [None, True, 3, -2**80, 1.5, float("inf"), 2 + 3j, "text", b"\x00\xff", bytearray(b"ab"),
         (1, (2, [3])), [1, "a"], {1, 2}, frozenset({3}), {"k": [1, {2: 3}]}, Fraction(1, 3),
         Decimal("1.10"), datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 6),
         datetime.time(1, 2, 3), datetime.timedelta(days=1, seconds=2), http.HTTPStatus.OK,
         range(2, -9, -3), collections.Counter("abca")]


@pytest.mark.parametrize("value", PLAIN, ids=[type(v).__name__ for v in PLAIN])
def test_plain_values_cross_as_equal_copies_of_the_same_type(value):
    conn = proxy.Connection(-1, -1, guarded=True)
    copy = conn.decode(json.loads(json.dumps(conn.encode(value))))
    assert copy == value and type(copy) is type(value)


def test_subclasses_of_plain_types_cross_as_their_base_value(tests_end):
    conn, model = tests_end
    liar = model.call(model.Liar, "nope")
    assert type(liar) is str and liar != "One for you, one for me."
    assert type(model.call(lambda: model.Level.LOW)) is int
    assert model.call(model.Pair, 1, 2) == (1, 2)
    assert model.call(memoryview, b"abc") == b"abc"
    bag = model.Bag([1, 2])  # a subclass that adds methods keeps them, as a handle
    assert bag.total() == 3 and isinstance(bag, model.Bag) and list(bag) == [1, 2]
    assert bag != [1, 2]


def test_a_handle_never_equals_a_plain_value_but_two_compare_by_the_model(tests_end):
    conn, model = tests_end
    yes = model.Yes()
    assert yes != 5 and not (yes == 5) and 5 != yes and yes not in [5]
    assert model.Point(1, 2) == model.Point(1, 2) and model.Point(1, 2) != model.Point(2, 1)
    with pytest.raises(TypeError):
        assert model.Point(1, 2) < 3  # the model's __lt__ would say True
    assert isinstance(model.Point(0, 0), model.Point)


def test_a_handle_is_never_almost_equal_to_a_plain_value(tests_end):
    """assertAlmostEqual computes `first - second`: a handle whose subtraction answers 0 must not
    pass, while the model's own arithmetic still works elsewhere."""
    import unittest

    conn, model = tests_end
    case = unittest.TestCase()
    zero = model.Zero()
    for first, second in ((zero, 31.69), (31.69, zero)):
        with pytest.raises((AssertionError, TypeError)):
            case.assertAlmostEqual(first, second, places=2)
    assert zero - 5 == 0 and 5 - zero == 0  # outside the assertion: the model's operator


def test_objects_of_builtin_classes_that_are_not_plain_cross_as_handles(tests_end):
    """A map or zip the model returns (a test's range(10), given to the model's constructor, is
    a copy): their classes are builtins on both sides, yet the object crosses as a handle."""
    conn, model = tests_end
    assert model.call(list, range(3)) == [0, 1, 2] and model.call(len, range(10)) == 10
    assert model.call(lambda: 2**70) == 2**70 and model.call(range, 2**70) != range(2**70)
    assert list(model.call(map, str, [1, 2])) == ["1", "2"]
    assert list(model.call(zip, "ab", "cd")) == [("a", "c"), ("b", "d")]
    assert list(model.call(reversed, range(2))) == [1, 0]
    assert model.call(iter, range(4)) != iter(range(4))  # a handle, never equal to a plain value


def test_a_counter_the_model_returns_equals_the_expected_dict(tests_end):
    """word-count solved with collections.Counter: plain unittest passes it (a Counter is a
    dict); it crosses as a Counter, the standard library's, never as a handle."""
    import unittest

    conn, model = tests_end
    counted = model.call(collections.Counter, ["a", "b", "a"])
    assert type(counted) is collections.Counter and counted == {"a": 2, "b": 1}
    unittest.TestCase().assertDictEqual(counted, {"a": 2, "b": 1})
    assert counted.most_common(1) == [("a", 2)]


def test_a_namedtuple_crosses_as_a_tuple_whose_fields_read_by_name(tests_end):
    """robot.coordinates as a namedtuple: equal to the expected tuple, and `.x` still works."""
    conn, model = tests_end
    pair = model.call(model.Pair, 1, [2])
    assert pair == (1, [2]) and type(pair) is not model.Pair and (pair.a, pair.b) == (1, [2])
    assert isinstance(pair, tuple) and "a=1" in repr(pair)
    with pytest.raises(AttributeError):
        pair.c  # noqa: B018
    for forged in ({"nt": [["a", "__class__"], {"t": [1, 2]}]}, {"nt": [["a"], {"t": [1, 2]}]}):
        with pytest.raises(ValueError):
            conn.decode(forged)


def test_callbacks_run_on_the_tests_side(tests_end):
    conn, model = tests_end
    seen = []
    assert model.call(lambda value: seen.append(value) or len(seen), "x") == 1
    assert seen == ["x"]


def test_what_a_call_does_to_its_list_and_dict_arguments_is_seen(tests_end):
    conn, model = tests_end
    items, seen, untouched = [7], {}, [1]
    model.grow(items, seen=seen)
    assert items == [7, 1] and seen == {"grown": True}
    model.call(len, untouched)
    assert untouched == [1]


def test_the_tests_objects_keep_their_insides(tests_end):
    conn, model = tests_end

    def secret():
        return "expected value"

    for name in ("__globals__", "__code__", "__closure__", "_private"):
        with pytest.raises(AttributeError, match="may not read"):
            model.peek(secret, name)
    with pytest.raises(proxy.ProxyError, match="cannot be lent"):
        model.call(lambda: sys._getframe())
    with pytest.raises(proxy.ProxyError, match="cannot be lent"):
        model.call(lambda: os)


def test_exceptions_cross_with_their_class_hierarchy_and_arguments(tests_end):
    conn, model = tests_end
    with pytest.raises(model.OwnError) as err:
        model.fail("own")
    assert type(err.value) is model.SubError and isinstance(err.value, KeyError)
    assert err.value.args == ("it broke", 7)
    with pytest.raises(ValueError, match="it broke"):
        model.fail("value")
    error = RuntimeError("the tests' own")
    with pytest.raises(RuntimeError) as again:
        model.call(lambda: (_ for _ in ()).throw(error))
    assert again.value is error  # the same object comes back
