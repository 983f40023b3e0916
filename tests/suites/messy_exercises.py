"""Exercism-layout exercises as messy as the real Python track, for the tests to build.

Written for codetrial (not copied from the track): a container class tested with `assertIn`
(custom-set), a socket wrapper tested through a helper module, mocks and context managers
(meter, like paasio), cells with callbacks (cells, like react), a file search with
`mock.patch("search.open", create=True)` (search, like grep), a bank whose own exception classes
are tested with assertRaises (bank), a tally that returns a collections.Counter and a map
and is built from a range (tally), and skipped tests. Beside them lie `.articles/` (with a
binary file), `.approaches/` and `.docs/`, which a test run never needs.
"""

from __future__ import annotations

from pathlib import Path

from tests.suites.exercism_fixture import make_exercises

CUSTOM_SET_EXAMPLE = '''class CustomSet:
    def __init__(self, elements=()):
        self.items = []
        for item in elements:
            self.add(item)

    def isempty(self):
        return not self.items

    def __contains__(self, element):
        return element in self.items

    def __iter__(self):
        return iter(sorted(self.items))

    def __len__(self):
        return len(self.items)

    def issubset(self, other):
        return all(item in other for item in self.items)

    def isdisjoint(self, other):
        return not any(item in other for item in self.items)

    def __eq__(self, other):
        return isinstance(other, CustomSet) and self.issubset(other) and other.issubset(self)

    def add(self, element):
        if element not in self.items:
            self.items.append(element)

    def intersection(self, other):
        return CustomSet(item for item in self.items if item in other)

    def __sub__(self, other):
        return CustomSet(item for item in self.items if item not in other)

    def __add__(self, other):
        return CustomSet([*self.items, *other])

    def __repr__(self):
        return f"CustomSet({sorted(self.items)})"
'''

CUSTOM_SET_TEST = '''import unittest

from custom_set import CustomSet


class CustomSetTest(unittest.TestCase):
    def test_empty(self):
        self.assertIs(CustomSet().isempty(), True)
        self.assertIs(CustomSet([1]).isempty(), False)

    def test_contains(self):
        sut = CustomSet([1, 2, 3])
        self.assertIn(1, sut)
        self.assertNotIn(4, sut)

    def test_subset_and_disjoint(self):
        self.assertIs(CustomSet([1, 2]).issubset(CustomSet([1, 2, 3])), True)
        self.assertIs(CustomSet([1, 4]).issubset(CustomSet([1, 2, 3])), False)
        self.assertIs(CustomSet([5]).isdisjoint(CustomSet([1, 2])), True)

    def test_equal_sets(self):
        self.assertEqual(CustomSet([3, 1, 2]), CustomSet([1, 2, 3]))
        self.assertNotEqual(CustomSet([1, 2]), CustomSet([1, 2, 3]))

    def test_add_and_len(self):
        sut = CustomSet([1])
        sut.add(2)
        sut.add(2)
        self.assertEqual(len(sut), 2)
        self.assertEqual(sorted(sut), [1, 2])
        self.assertEqual(list(sut), [1, 2])

    def test_operations(self):
        first, second = CustomSet([1, 2, 3]), CustomSet([2, 3, 4])
        self.assertEqual(first.intersection(second), CustomSet([2, 3]))
        self.assertEqual(first - second, CustomSet([1]))
        union = first + second
        self.assertIsInstance(union, CustomSet)
        self.assertEqual(union, CustomSet([1, 2, 3, 4]))
        self.assertEqual(repr(first - second), "CustomSet([1])")

    @unittest.skip("extra credit")
    def test_symmetric_difference(self):
        self.assertEqual(CustomSet([1]) ^ CustomSet([2]), CustomSet([1, 2]))
'''

METER_EXAMPLE = '''class MeteredSocket:
    def __init__(self, socket):
        self._socket = socket
        self._recv_bytes = self._recv_ops = self._send_bytes = self._send_ops = 0
        hook = globals().get("notify")  # a test may lend one
        if hook is not None:
            hook()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return self._socket.__exit__(exc_type, exc_val, exc_tb)

    def recv(self, bufsize, flags=0):
        data = self._socket.recv(bufsize, flags)
        self._recv_ops += 1
        self._recv_bytes += len(data)
        return data

    def send(self, data, flags=0):
        sent = self._socket.send(data, flags)
        self._send_ops += 1
        self._send_bytes += sent
        return sent

    def last_chunk(self, data):
        return memoryview(data)[-4:]

    @property
    def recv_ops(self):
        return self._recv_ops

    @property
    def recv_bytes(self):
        return self._recv_bytes

    @property
    def send_ops(self):
        return self._send_ops

    @property
    def send_bytes(self):
        return self._send_bytes
'''

METER_UTILS = '''import errno
import inspect
import io
import os

TEXT = b"Now is better than never. Although never is often better than right now. " * 7


class FakeError(Exception):
    pass


class WhoCalls:
    """Notes whether it was called from the solution's __init__, by looking at the stack."""

    def __init__(self):
        self.seen = []

    def __call__(self):
        frames = [(f.function, os.path.basename(f.filename)) for f in inspect.stack()]
        self.seen.append(("__init__", "meter.py") in frames)
        return self


class FakeSocket:
    def __init__(self, *, chunk=None, error=None):
        self.incoming = io.BytesIO(TEXT)
        self.sent = io.BytesIO()
        self.closed = False
        self.chunk = chunk
        self.error = error
        self.flags = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.closed = True
        return exc_type is not None and "quiet" in exc_val.args[0]

    def recv(self, bufsize, flags=0):
        if self.closed:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        if not isinstance(flags, int):
            raise TypeError("an integer is required")
        self.flags = flags
        if self.error is not None:
            raise self.error
        return self.incoming.read(bufsize if self.chunk is None else min(self.chunk, bufsize))

    def send(self, data, flags=0):
        if self.closed:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        self.flags = flags
        return self.sent.write(data if self.chunk is None else data[: self.chunk])
'''

METER_TEST = '''import errno
import os
import unittest
from unittest.mock import ANY, NonCallableMagicMock, patch

from test_utils import TEXT, FakeError, FakeSocket, WhoCalls

from meter import MeteredSocket


class MeterTest(unittest.TestCase):
    def test_context_manager(self):
        wrapped = FakeSocket()
        mock = NonCallableMagicMock(wraps=wrapped, autospec=True)
        mock.__exit__.side_effect = wrapped.__exit__
        with MeteredSocket(mock) as socket:
            self.assertFalse(mock.__enter__.called)
            socket.recv(30)
        mock.__exit__.assert_called_once_with(None, None, None)
        with self.assertRaisesRegex(OSError, os.strerror(errno.EBADF)):
            socket.recv(30)

    def test_error_passes_through_and_is_the_same_object(self):
        error = FakeError("loud")
        wrapped = FakeSocket(error=error)
        mock = NonCallableMagicMock(wraps=wrapped, autospec=True)
        mock.__exit__.side_effect = wrapped.__exit__
        with self.assertRaisesRegex(FakeError, "loud") as err:
            with MeteredSocket(mock) as socket:
                socket.recv(4096)
        mock.__exit__.assert_called_once_with(FakeError, err.exception, ANY)
        self.assertEqual(error, err.exception)

    def test_error_suppressed(self):
        wrapped = FakeSocket(error=FakeError("quiet please"))
        with MeteredSocket(wrapped) as socket:
            socket.recv(4096)
        self.assertTrue(wrapped.closed)

    def test_recv_counts(self):
        wrapped = FakeSocket(chunk=20)
        mock = NonCallableMagicMock(wraps=wrapped, autospec=True)
        received = b""
        with MeteredSocket(mock) as socket:
            for _ in range(5):
                received += socket.recv(4096)
        self.assertEqual(TEXT[:100], received)
        self.assertEqual(5, socket.recv_ops)
        self.assertEqual(100, socket.recv_bytes)
        self.assertEqual(5, mock.recv.call_count)

    def test_send_compared_with_a_buffer(self):
        wrapped = FakeSocket(chunk=257)
        with MeteredSocket(wrapped) as socket:
            sent = socket.send(TEXT)
            self.assertEqual(TEXT[:257], wrapped.sent.getbuffer())
        self.assertEqual(257, sent)
        self.assertEqual(1, socket.send_ops)

    def test_memoryview_result(self):
        socket = MeteredSocket(FakeSocket())
        self.assertEqual(b"ight", socket.last_chunk(b"alright"))
        self.assertEqual(b"ight", socket.last_chunk(bytearray(b"alright")))

    def test_flags_reach_the_socket(self):
        wrapped = FakeSocket()
        with MeteredSocket(wrapped) as socket:
            socket.recv(10, 24)
            self.assertEqual(24, wrapped.flags)
            with self.assertRaisesRegex(TypeError, "integer is required"):
                socket.recv(10, b"flags")

    @patch("meter.notify", create=True, new_callable=WhoCalls)
    def test_a_callback_sees_its_caller_on_the_stack(self, who):
        MeteredSocket(FakeSocket())
        self.assertEqual(who.seen, [True])

    def test_stats_read_only(self):
        socket = MeteredSocket(FakeSocket())
        with self.assertRaises(AttributeError):
            socket.send_ops = 0
        self.assertEqual(0, socket.send_ops)
'''

CELLS_EXAMPLE = '''class InputCell:
    def __init__(self, initial_value):
        self._value = initial_value
        self._dependents = []

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, new):
        self._value = new
        for cell in self._dependents:
            cell.update()


class ComputeCell:
    def __init__(self, inputs, compute_function):
        self._inputs = inputs
        self._compute = compute_function
        self._callbacks = []
        self._value = self._compute([cell.value for cell in inputs])
        for cell in inputs:
            cell._dependents.append(self)
        self._dependents = []

    @property
    def value(self):
        return self._value

    def update(self):
        new = self._compute([cell.value for cell in self._inputs])
        if new != self._value:
            self._value = new
            for callback in self._callbacks:
                callback(new)
        for cell in self._dependents:
            cell.update()

    def add_callback(self, callback):
        self._callbacks.append(callback)

    def remove_callback(self, callback):
        if callback in self._callbacks:
            self._callbacks.remove(callback)
'''

CELLS_TEST = '''import unittest
from unittest import mock

from cells import ComputeCell, InputCell


class CellsTest(unittest.TestCase):
    def test_compute_cell(self):
        source = InputCell(1)
        plus_one = ComputeCell([source], lambda inputs: inputs[0] + 1)
        self.assertEqual(plus_one.value, 2)
        source.value = 3
        self.assertEqual(plus_one.value, 4)

    def test_chained(self):
        source = InputCell(1)
        plus_one = ComputeCell([source], lambda inputs: inputs[0] + 1)
        times_ten = ComputeCell([plus_one], lambda inputs: inputs[0] * 10)
        source.value = 4
        self.assertEqual(times_ten.value, 50)

    def test_callbacks(self):
        source = InputCell(1)
        output = ComputeCell([source], lambda inputs: inputs[0] + 1)
        observed = []
        output.add_callback(observed.append)
        source.value = 3
        source.value = 3
        self.assertEqual(observed, [4])

    def test_removed_callback_and_mock(self):
        source = InputCell(1)
        output = ComputeCell([source], lambda inputs: inputs[0] * 2)
        first, second = mock.Mock(), mock.Mock()
        output.add_callback(first)
        output.add_callback(second)
        source.value = 2
        output.remove_callback(first)
        source.value = 5
        first.assert_called_once_with(4)
        self.assertEqual(second.call_args_list, [mock.call(4), mock.call(10)])

    def test_callback_sees_a_plain_value(self):
        source = InputCell(1)
        output = ComputeCell([source], lambda inputs: inputs[0] + 1)
        seen = {}

        def remember(value):
            seen["value"] = value
            seen["type"] = type(value)

        output.add_callback(remember)
        source.value = 9
        self.assertEqual(seen, {"value": 10, "type": int})
'''

SEARCH_EXAMPLE = '''def search(pattern, flags, files):
    numbered = "-n" in flags.split()
    found = []
    for name in files:
        with open(name) as handle:
            for number, line in enumerate(handle.readlines(), start=1):
                if pattern in line:
                    prefix = f"{name}:" if len(files) > 1 else ""
                    prefix += f"{number}:" if numbered else ""
                    found.append(prefix + line)
    return "".join(found)
'''

SEARCH_TEST = '''import io
import unittest
from unittest import mock

from search import search

FILES = {
    "odyssey.txt": "Tell me, O muse, of that ingenious hero\\nwho travelled far and wide\\n",
    "aeneid.txt": "I sing of arms and the man\\nwho first from the shores of Troy\\n",
}


def open_mock(name, *args, **kwargs):
    try:
        return io.StringIO(FILES[name])
    except KeyError:
        raise RuntimeError(f"no file {name!r}")


@mock.patch("search.open", name="open", side_effect=open_mock, create=True)
class SearchTest(unittest.TestCase):
    def test_one_file(self, mock_open):
        self.assertMultiLineEqual(search("muse", "", ["odyssey.txt"]),
                                  "Tell me, O muse, of that ingenious hero\\n")

    def test_numbered(self, mock_open):
        self.assertMultiLineEqual(search("who", "-n", ["aeneid.txt"]),
                                  "2:who first from the shores of Troy\\n")

    def test_two_files(self, mock_open):
        self.assertMultiLineEqual(
            search("who", "", ["odyssey.txt", "aeneid.txt"]),
            "odyssey.txt:who travelled far and wide\\naeneid.txt:who first from the shores of "
            "Troy\\n")
        self.assertEqual(mock_open.call_count, 2)

    def test_missing_file(self, mock_open):
        with self.assertRaisesRegex(RuntimeError, "no file"):
            search("x", "", ["iliad.txt"])
'''

BANK_EXAMPLE = '''import threading


class AccountError(ValueError):
    """Anything wrong with an account."""


class ClosedError(AccountError):
    pass


class Account:
    def __init__(self):
        self._balance = None
        self._lock = threading.Lock()

    def open(self):
        if self._balance is not None:
            raise AccountError("account already open")
        self._balance = 0

    def close(self):
        self._check()
        self._balance = None

    def _check(self):
        if self._balance is None:
            raise ClosedError("account not open")

    @property
    def balance(self):
        self._check()
        return self._balance

    def deposit(self, amount):
        with self._lock:
            self._check()
            if amount <= 0:
                raise ValueError("amount must be greater than 0")
            self._balance += amount

    def withdraw(self, amount):
        with self._lock:
            self._check()
            if amount > self._balance:
                raise AccountError("amount must be less than balance")
            self._balance -= amount
'''

BANK_TEST = '''import sys
import threading
import time
import unittest

from bank import Account, AccountError, ClosedError


class BankTest(unittest.TestCase):
    def test_deposit_and_withdraw(self):
        account = Account()
        account.open()
        account.deposit(100)
        account.withdraw(30)
        self.assertEqual(account.balance, 70)

    def test_closed_account(self):
        account = Account()
        with self.assertRaises(ValueError) as err:
            account.balance
        self.assertEqual(type(err.exception), ClosedError)
        self.assertEqual(err.exception.args[0], "account not open")

    def test_own_exception_classes(self):
        account = Account()
        account.open()
        with self.assertRaises(AccountError) as err:
            account.withdraw(1)
        self.assertEqual(str(err.exception), "amount must be less than balance")
        with self.assertRaises(AccountError):
            account.open()
        self.assertTrue(issubclass(ClosedError, AccountError))

    def test_builtin_error(self):
        account = Account()
        account.open()
        with self.assertRaisesRegex(ValueError, "greater than 0"):
            account.deposit(-5)

    @unittest.skipIf(sys.version_info < (3, 0), "old Python")
    def test_conditional_skip_not_taken(self):
        self.assertIsInstance(Account(), Account)

    def test_concurrent_transactions(self):
        account = Account()
        account.open()
        account.deposit(1000)

        def transact():
            account.deposit(5)
            time.sleep(0.001)
            account.withdraw(5)

        sys.setswitchinterval(1e-12)
        threads = [threading.Thread(target=transact) for _ in range(1000)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(account.balance, 1000)

    @unittest.skip("not yet")
    def test_interest(self):
        self.fail("never runs")
'''

# A tally, solved the way models often do: a collections.Counter returned where the tests expect
# a dict, a range handed to a constructor, a lazy map returned and listed by the test.
TALLY_EXAMPLE = '''import collections


class Tally:
    def __init__(self, items=()):
        self.counts = collections.Counter(items)

    def count(self):
        return self.counts

    def ranked(self):
        return map(lambda pair: pair[0], self.counts.most_common())


def tally(words):
    return collections.Counter(words.split())
'''

TALLY_TEST = '''import unittest

from tally import Tally, tally


class TallyTest(unittest.TestCase):
    def test_a_counter_is_a_dict(self):
        self.assertDictEqual(tally("to be or not to be"), {"to": 2, "be": 2, "or": 1, "not": 1})

    def test_a_range_argument(self):
        self.assertEqual(Tally(range(3)).count(), {0: 1, 1: 1, 2: 1})

    def test_a_lazy_result(self):
        self.assertEqual(list(Tally("abbccc").ranked()), ["c", "b", "a"])
        self.assertEqual(Tally("ab").count().most_common(1)[0][1], 1)
'''

MESSY = {
    "custom-set": {"solution": {"custom_set.py": "class CustomSet:\n    pass\n"},
                   "example": {".meta/example.py": CUSTOM_SET_EXAMPLE},
                   "test": {"custom_set_test.py": CUSTOM_SET_TEST}},
    "meter": {"solution": {"meter.py": "class MeteredSocket:\n    pass\n"},
              "example": {".meta/example.py": METER_EXAMPLE},
              "test": {"meter_test.py": METER_TEST}, "support": {"test_utils.py": METER_UTILS}},
    "cells": {"solution": {"cells.py": "class InputCell:\n    pass\n\n\nclass ComputeCell:\n"
                                       "    pass\n"},
              "example": {".meta/example.py": CELLS_EXAMPLE},
              "test": {"cells_test.py": CELLS_TEST}},
    "search": {"solution": {"search.py": "def search(pattern, flags, files):\n    pass\n"},
               "example": {".meta/example.py": SEARCH_EXAMPLE},
               "test": {"search_test.py": SEARCH_TEST}},
    "bank": {"solution": {"bank.py": "class Account:\n    pass\n"},
             "example": {".meta/example.py": BANK_EXAMPLE},
             "test": {"bank_test.py": BANK_TEST}},
    "tally": {"solution": {"tally.py": "class Tally:\n    pass\n\n\ndef tally(words):\n"
                                       "    pass\n"},
              "example": {".meta/example.py": TALLY_EXAMPLE},
              "test": {"tally_test.py": TALLY_TEST}},
}
for _slug, _spec in MESSY.items():
    _spec["docs"] = {"instructions.md": f"Implement {_slug}."}

# ".articles" and ".approaches" as the real track has them: notes, code, binary benchmark data
CLUTTER = {
    ".articles/performance/code/run_times.feather": b"ARROW1\x00\x00\xff\xfe\x89binary",
    ".articles/performance/content.md": b"# Performance\n",
    ".articles/config.json": b'{"articles": []}\n',
    ".approaches/introduction.md": b"# Approaches\n",
    ".approaches/config.json": b'{"approaches": []}\n',
    ".approaches/one-pass/snippet.txt": b"for x in xs: ...\n",
    ".docs/hints.md": b"Hints.\n",
    "__pycache__/stale.cpython-311.pyc": b"\x00\x01\x02\xff",
    "notes.bin": b"\xff\xfe\x00binary outside the known folders",
}


def make_messy_exercises(root: Path, layout: str = "track", names: list[str] | None = None,
                         examples: dict[str, str] | None = None) -> Path:
    """The messy exercises (and the clutter beside each); `examples` replaces an exercise's
    example solution (slug -> source), e.g. with a mutant."""
    specs = {slug: dict(spec) for slug, spec in MESSY.items() if not names or slug in names}
    for slug, text in (examples or {}).items():
        specs[slug]["example"] = {".meta/example.py": text}
    make_exercises(root, layout, exercises=specs)
    base = {"flat": root, "track": root / "exercises" / "practice",
            "multi": root / "python" / "exercises" / "practice"}[layout]
    for slug in specs:
        for rel, data in CLUTTER.items():
            path = base / slug / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    return root
