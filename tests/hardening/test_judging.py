"""The pieces that keep grading honest, one at a time: plain values, checks by value (and their
fallback, the check apart from the code), and the guarded unittest runner."""

from __future__ import annotations

import asyncio
import json
import math

import pytest

from codetrial.core import Verdict
from codetrial.inside import plain
from codetrial.sandbox import Limits, Sandbox
from codetrial.suites import create_suite
from codetrial.suites.grading import CallCheck, grade_by_value
from tests.hardening.square_check import HANGS_AFTER_A_WRONG_ANSWER, SQUARE, Counting
from tests.suites.exercism_fixture import make_exercises, write

LIMITS = Limits(wall_seconds=3, cpu_seconds=3)


@pytest.fixture(scope="module")
def sandbox(bubblewrap):
    with Sandbox(workers=2, mode="bubblewrap") as sb:
        yield sb


def grade(sandbox: Sandbox, check: CallCheck, code: str):
    return asyncio.run(grade_by_value(check, code, sandbox, LIMITS))


# ---------------------------------------------------------------- plain values


def test_plain_values_round_trip_and_liars_do_not():
    class Liar(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    values = [None, True, 3, 10**5000, -0.0, 2.5, 1j, "ü", b"\0", [1, (2, {3})],
              {"k": frozenset({1})}]
    for value in values:
        assert plain.decode(json.loads(json.dumps(plain.encode(value)))) == value
    assert math.isnan(plain.decode(plain.encode(float("nan"))))
    assert plain.decode(plain.encode(Liar("no"))) == "no" and type(
        plain.decode(plain.encode(Liar("no")))) is str
    opaque = plain.decode(plain.encode(object()))
    assert opaque != opaque and opaque != 1
    with pytest.raises(TypeError):
        bool(opaque)
    for bad in ({"x": 1}, {"t": 3}, {"d": [[1]]}, {"o": "?"}, object()):
        with pytest.raises(ValueError):
            plain.decode(bad)


def test_fractions_and_decimals_cross_only_from_another_process():
    from decimal import Decimal
    from fractions import Fraction

    class Half(Fraction):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = Fraction.__hash__

    for value in (Fraction(13, 21), Decimal("0.5625"), Decimal("-1E+5"), [Fraction(1, 2)]):
        back = plain.decode(json.loads(json.dumps(plain.encode(value))))
        assert back == value and repr(back) == repr(value)
    assert type(plain.decode(plain.encode(Half(1, 2)))) is plain.Opaque
    # in the judging process itself (ask=False) they are classes the code could have patched
    assert type(plain.as_plain(Fraction(1, 2))) is plain.Opaque
    assert not plain.is_plain(Decimal(1))
    for bad in ({"q": [1, 0]}, {"q": [1.5, 2]}, {"m": "1e5"}, {"m": "x"}):
        with pytest.raises(ValueError):
            plain.decode(bad)


# ---------------------------------------------------------------- checks by value

CHAINED = CallCheck(prelude="", entry="sq", reference="def sq(n):\n    return n * n\n",
                    test="def check(candidate):\n"
                         "    r = candidate(2)\n"
                         "    assert r in (4, -4)\n"
                         "    assert candidate(r) == 16\n")


def test_a_wrong_answer_before_a_hang_is_a_failure_not_a_timeout(sandbox):
    # the answers stream out as they are given: the test sees the wrong one and fails there
    result = grade(sandbox, SQUARE, HANGS_AFTER_A_WRONG_ANSWER)
    assert result.verdict == Verdict.FAILED
    assert "assert candidate(3) == 9" in result.output


def test_the_wrong_answer_ends_the_program_and_a_slow_right_one_runs_once(sandbox):
    """Judged as the answers stream out: the hang after a wrong answer is stopped, not waited
    for to the limit, and an answer slower than the first streaming runs only once."""
    counting = Counting(sandbox)
    hung = asyncio.run(grade_by_value(SQUARE, HANGS_AFTER_A_WRONG_ANSWER, counting,
                                      Limits(wall_seconds=60)))
    assert (hung.verdict, counting.ended) == (Verdict.FAILED, ["stopped"])
    assert hung.seconds < 30
    slow = "import time\ndef sq(n):\n    time.sleep(0.1)\n    return n * n\n"
    assert grade(sandbox, SQUARE, slow).verdict == Verdict.PASSED
    assert asyncio.run(grade_by_value(SQUARE, slow, counting, LIMITS)).verdict == "passed"
    assert counting.ended == ["stopped", "ok"]


def test_judging_streamed_answers_leaves_the_lines_other_messages_quote_alone():
    """A streaming program's answers are judged in a sandbox thread while the event loop
    formats other samples' tracebacks: that judgment must not swap the check's source lines."""
    import linecache

    from codetrial.inside.plain import ANSWER_PREFIX
    from codetrial.suites.grading import TEST_FILE, _Decided, record_calls

    calls = record_calls(SQUARE)  # on the loop's thread, before the program runs
    mine = (1, None, ["another task's check\n"], TEST_FILE)
    linecache.cache[TEST_FILE] = mine
    printed = ANSWER_PREFIX + json.dumps({"value": plain.encode(10)}) + "\n"
    assert _Decided(SQUARE, calls)(printed)  # sq(3) == 10: decided, failed
    assert linecache.cache[TEST_FILE] is mine


def answer_line(value: object) -> str:
    from codetrial.inside.plain import ANSWER_PREFIX

    return ANSWER_PREFIX + json.dumps({"value": plain.encode(value)}) + "\n"


def test_a_streaming_watch_judges_each_new_answer_once(monkeypatch):
    """What a program printed is handed to its watch whole each time, grown by whole lines:
    the watch reads only the new lines, and runs the check again only for a new answer."""
    from codetrial.suites import grading

    judged: list[int] = []
    replay = grading.replay
    monkeypatch.setattr(grading, "replay", lambda check, calls, answers, *rest, **kw: (
        judged.append(len(answers)), replay(check, calls, answers, *rest, **kw))[1])
    watch = grading._Decided(SQUARE, grading.record_calls(SQUARE))
    printed = "thinking\n"
    assert not watch(printed) and judged == []  # no answer yet
    printed += answer_line(9)
    assert not watch(printed)  # right so far: the test wants the next answer
    printed += "still thinking\n" + '\x02codetrial-answer {"tried": ["x"]}\n'
    assert not watch(printed) and judged == [1]  # no new answer: not judged again
    printed += answer_line(15)
    assert watch(printed) and judged == [1, 2]  # sq(4) == 15: decided, failed
    garbled = grading._Decided(SQUARE, grading.record_calls(SQUARE))
    printed = answer_line(9) + "\x02codetrial-answer {not json\n"
    assert not garbled(printed) and not garbled(printed + answer_line(15))
    assert judged == [1, 2, 1]  # nothing after an answer line that is not JSON counts


def test_answer_lines_a_program_prints_itself_pass_nothing_and_are_named(sandbox):
    """Printed answers are judged only while a program runs or once it was killed; a program
    that ran to its end is judged on what its judge gave, and what it printed is named."""
    from codetrial.suites.grading import FORGED_ANSWERS, UNFINISHED

    forged = ("def sq(n):\n"
              "    print('\\x02codetrial-answer {\"value\": 9}')\n"
              "    print('\\x02codetrial-answer {\"value\": 16}')\n"
              "    return 0\n")
    result = grade(sandbox, SQUARE, forged)
    assert result.verdict == Verdict.FAILED
    assert FORGED_ANSWERS in result.details["tried"]
    hang = "import time\n" + forged.replace("    return 0", "    time.sleep(100)")
    hung = asyncio.run(grade_by_value(SQUARE, hang, sandbox, Limits(wall_seconds=1)))
    assert hung.verdict == Verdict.TIMEOUT  # the right answers were printed, none returned
    assert UNFINISHED in hung.details["tried"]
    for honest in ("def sq(n):\n    return n ** 2\n",
                   "def sq(n):\n    print('thinking')\n    return n + 6\n"):
        assert FORGED_ANSWERS not in grade(sandbox, SQUARE, honest).details.get("tried", [])


def test_right_answers_pass_and_what_the_check_says_is_kept(sandbox):
    assert grade(sandbox, SQUARE, "def sq(n):\n    return n ** 2\n").verdict == Verdict.PASSED
    wrong = grade(sandbox, SQUARE, "def sq(n):\n    print('thinking')\n    return n + 6\n")
    assert wrong.verdict == Verdict.FAILED
    assert "candidate(4) == 16" in wrong.output and "thinking" in wrong.output
    assert "codetrial-answer" not in wrong.output


def test_another_path_through_the_test_is_judged_apart(sandbox):
    right = grade(sandbox, CHAINED, "def sq(n):\n    return -n * n if n == 2 else n * n\n")
    assert right.verdict == Verdict.PASSED and right.details == {"judged": "apart"}
    liar = """
class Yes:
    def __eq__(self, other): return True
    __hash__ = object.__hash__
def sq(n):
    return -4 if n == 2 else Yes()
"""
    assert grade(sandbox, CHAINED, liar).verdict == Verdict.FAILED
    exits = grade(sandbox, CHAINED, "import os\ndef sq(n):\n    os._exit(0)\n")
    assert exits.verdict == Verdict.ERROR
    spin = grade(sandbox, CHAINED, "def sq(n):\n    if n != 2:\n        while True: pass\n"
                                   "    return -4\n")
    assert spin.verdict == Verdict.TIMEOUT


def test_random_inputs_are_the_same_on_every_run(sandbox):
    suite = create_suite("humaneval", {})
    [task] = [t for t in suite.load_tasks() if t.id == "HumanEval/53"]  # add(x, y), random
    code = "def add(x, y):\n    return x + y\n"
    grades = [asyncio.run(suite.grade(task, code, sandbox)) for _ in range(2)]
    assert [g.verdict for g in grades] == [Verdict.PASSED] * 2


# ---------------------------------------------------------------- the guarded unittest runner

TWO_MODULES = """import unittest

from two_fer import two_fer


class SecondTest(unittest.TestCase):
    def test_alice(self):
        self.assertEqual(two_fer("Alice"), "One for Alice, one for me.")

    @unittest.skip("not this one")
    def test_skipped(self):
        self.fail("skipped tests do not run")

    def test_in_subtests(self):
        for name in ("Bob", "Eve"):
            with self.subTest(name=name):
                self.assertEqual(two_fer(name), f"One for {name}, one for me.")
"""
RIGHT = "def two_fer(name='you'):\n    return f'One for {name}, one for me.'\n"


def two_module_exercise(tmp_path):
    root = make_exercises(tmp_path / "ex", names=["two-fer"])
    exercise = root / "two-fer"
    write(exercise / "second_test.py", TWO_MODULES)
    config = json.loads((exercise / ".meta" / "config.json").read_text())
    config["files"]["test"].append("second_test.py")
    write(exercise / ".meta" / "config.json", json.dumps(config))
    suite = create_suite("exercism", {"path": str(root), "test_timeout": "10"})
    [task] = suite.load_tasks()
    return suite, task


def grade_files(sandbox, suite, task, solution: str):
    return asyncio.run(suite.grade_files(task, {"two_fer.py": solution}, sandbox))


def test_tests_run_from_their_pristine_copy_with_skips_and_subtests(sandbox, tmp_path):
    suite, task = two_module_exercise(tmp_path)
    good = grade_files(sandbox, suite, task, RIGHT)
    assert good.verdict == Verdict.PASSED, good.output
    assert {t.name.split(".")[-1] for t in good.tests} == {
        "test_no_name", "test_a_name", "test_alice", "test_in_subtests"}
    gut = ("open('second_test.py', 'w').write('import unittest\\n"
           "class SecondTest(unittest.TestCase):\\n    pass\\n')\n")
    overwritten = grade_files(sandbox, suite, task, gut + RIGHT.replace("{name}", "{name}!"))
    assert overwritten.verdict == Verdict.FAILED
    assert {t.name.split(".")[-1] for t in overwritten.tests if t.verdict != "passed"} == {
        "test_no_name", "test_a_name", "test_alice", "test_in_subtests"}


@pytest.mark.parametrize("trick,verdict", [
    ("import unittest\nraise unittest.SkipTest('no')", "error"),  # not unittest's, over there
    ("import unittest.case\nraise unittest.case._ShouldStop()", "error"),
])
def test_leaving_a_subtest_early_is_not_a_pass(sandbox, tmp_path, trick, verdict):
    suite, task = two_module_exercise(tmp_path)
    body = "\n        ".join(trick.splitlines())
    guard = f"    if name in ('Bob', 'Eve'):\n        {body}\n    return"
    code = RIGHT.replace("    return", guard)
    result = grade_files(sandbox, suite, task, code)
    assert result.verdict == Verdict.FAILED
    rows = {t.name.split(".")[-1]: t.verdict for t in result.tests}
    assert rows["test_in_subtests"] == verdict and rows["test_alice"] == "passed"


def test_tampering_changes_nothing_and_is_named(sandbox, tmp_path):
    """unittest patched in the model's own process: the tests' process never sees it."""
    suite, task = two_module_exercise(tmp_path)
    code = "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n" + (
        RIGHT.replace("One for", "None for"))
    result = grade_files(sandbox, suite, task, code)
    assert result.verdict == Verdict.FAILED
    assert "patch:unittest.case.TestCase.assertEqual" in result.details["tried"]


SELF_UNDOING = """
import unittest
_real = unittest.TestCase.assertEqual


def _once(self, *args, **kwargs):  # stands in for one assertion, then puts the real one back
    unittest.TestCase.assertEqual = _real


def two_fer(name='you'):
    if name != 'Bob':
        return 'nope'
    unittest.TestCase.assertEqual = _once  # Bob is answered right; Eve's check is looked up next
    return f'One for {name}, one for me.'
"""


def test_a_patch_that_undoes_itself_inside_the_assertion_is_caught(sandbox, tmp_path):
    suite, task = two_module_exercise(tmp_path)
    result = grade_files(sandbox, suite, task, SELF_UNDOING)
    rows = {t.name.split(".")[-1]: t.verdict for t in result.tests}
    assert result.verdict != Verdict.PASSED and rows["test_in_subtests"] != "passed", rows
    assert "patch:unittest.case.TestCase.assertEqual" in result.details["tried"]


CALLBACK_TEST = """
import unittest

from two_fer import two_fer


class CallbackTest(unittest.TestCase):
    def test_an_assertion_in_a_callback_of_the_code(self):
        def check(text):
            self.assertIn('one for me', text)
            return text

        self.assertEqual(two_fer('Ann', check), 'One for Ann, one for me.')
"""


def grade_against(sandbox, tmp_path, test_file: str, code: str):
    """two-fer with its test file replaced by `test_file`, graded on `code`."""
    root = make_exercises(tmp_path / "ex", names=["two-fer"])
    write(root / "two-fer" / "two_fer_test.py", test_file)
    suite = create_suite("exercism", {"path": str(root), "test_timeout": "10"})
    [task] = suite.load_tasks()
    return grade_files(sandbox, suite, task, code)


def test_an_assertion_the_code_calls_back_is_checked_not_refused(sandbox, tmp_path):
    code = ("def two_fer(name='you', then=lambda text: text):\n"
            "    return then(f'One for {name}, one for me.')\n")
    assert grade_against(sandbox, tmp_path, CALLBACK_TEST, code).verdict == Verdict.PASSED


HONEST_HABITS_TEST = """
import unittest
from unittest import mock

from two_fer import two_fer


class TwoFerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.expected = 'One for you, one for me.'

    def test_no_name(self):
        self.assertEqual(two_fer(), self.expected)

    def test_with_a_mock(self):
        with mock.patch('two_fer.DEFAULT', 'Ann'):
            self.assertEqual(two_fer(), 'One for Ann, one for me.')

    @mock.patch('os.path.exists', return_value=True)
    def test_with_the_os_patched(self, exists):
        self.assertEqual(two_fer('Bo'), 'One for Bo, one for me.')
"""


def test_honest_habits_raise_no_alarm(sandbox, tmp_path):
    """setUpClass storing data, unittest.mock (on os too), a solution that imports asyncio."""
    code = ("import asyncio\nDEFAULT = 'you'\n\n\ndef two_fer(name=None):\n"
            "    return f'One for {name or DEFAULT}, one for me.'\n")
    result = grade_against(sandbox, tmp_path, HONEST_HABITS_TEST, code)
    assert result.verdict == Verdict.PASSED, [(t.name, t.message) for t in result.tests]


SOURCE_READING_TEST = """
import inspect
import unittest

from two_fer import two_fer


class TwoFerTest(unittest.TestCase):
    def test_reads_its_own_source(self):
        self.assertIn("reads_its_own_source", inspect.getsource(type(self)))
        self.assertEqual(two_fer(), "One for you, one for me.")
"""


def test_tests_still_read_their_own_source(sandbox, tmp_path):
    """The test files are gone from the disk (the model's process must not read them), yet
    inspect.getsource in the tests' process works: they are served from memory."""
    result = grade_against(sandbox, tmp_path, SOURCE_READING_TEST, RIGHT)
    assert result.verdict == Verdict.PASSED, result.output


def test_tracebacks_go_through_the_model_s_file_as_plain_unittest_s_do(sandbox, tmp_path):
    """The output the model gets back: the test's frame, then its own frames with its file
    names and lines, and none of the proxies' (as under plain unittest)."""
    suite, task = two_module_exercise(tmp_path)
    code = ("def helper(name):\n    return name.upper() + 1\n\n\n"
            "def two_fer(name='you'):\n    return helper(name)\n")
    result = grade_files(sandbox, suite, task, code)
    assert result.verdict == Verdict.FAILED
    error = next(t.message for t in result.tests if t.name.endswith("test_alice"))
    assert 'second_test.py", line 8, in test_alice' in error
    assert 'two_fer.py", line 6, in two_fer' in error
    assert 'two_fer.py", line 2, in helper\n    return name.upper() + 1' in error
    assert error.rstrip().endswith('TypeError: can only concatenate str (not "int") to str')
    assert "codetrial" not in result.output and "_proxy" not in result.output


def test_a_solution_that_does_not_import_is_an_error(sandbox, tmp_path):
    suite, task = two_module_exercise(tmp_path)
    result = grade_files(sandbox, suite, task, "def two_fer(:\n")
    assert result.verdict == Verdict.ERROR and "SyntaxError" in result.output


def test_humaneval_edit_is_judged_by_value(sandbox):
    suite = create_suite("humaneval-edit", {})
    [task] = [t for t in suite.load_tasks() if t.id == "HumanEval/0"]
    liar = ("class Yes:\n    def __eq__(self, other): return True\n"
            "    __hash__ = object.__hash__\n"
            "def has_close_elements(numbers, threshold):\n    return Yes()\n")
    [(path, _)] = suite.edit_files(task).items()
    lied = asyncio.run(suite.grade_files(task, {path: liar}, sandbox))
    right = asyncio.run(suite.grade_files(task, suite.reference_files(task), sandbox))
    assert (lied.verdict, right.verdict) == (Verdict.FAILED, Verdict.PASSED)


MOCK_SINK_TEST = """
import unittest
from unittest import mock

from two_fer import two_fer


class TwoFerTest(unittest.TestCase):
    def test_sends_the_greeting(self):
        sink = mock.MagicMock()
        two_fer('Ann', sink)
        sink.send.assert_called_with('One for Ann, one for me.')
        self.assertEqual(sink.send.call_count, 1)

    def test_a_method_of_the_test(self):
        two_fer('Bo', self, record=True)
        self.assertEqual(self.seen, 'One for Bo, one for me.')

    def record(self, text):
        self.seen = text
"""


@pytest.mark.parametrize("tamper", [
    "sink.send.assert_called_with = lambda *a, **k: None",
    "del sink.send.call_count",
    "sink.send.call_args_list = []",
    "setattr(sink, 'assertEqual', lambda *a: None)",
])
def test_the_code_may_not_rewrite_what_a_test_object_checks_with(sandbox, tmp_path, tamper):
    """A mock handed to the code: its assertions and recorded calls, and the test's methods,
    are the tests' own; replacing them is refused and named, while plain attributes and calls
    still work (the honest control)."""
    honest = ("def two_fer(name, sink, record=False):\n"
              "    text = f'One for {name}, one for me.'\n"
              "    sink.record(text) if record else sink.send(text)\n")
    assert grade_against(sandbox, tmp_path, MOCK_SINK_TEST, honest).verdict == Verdict.PASSED
    forged = ("def two_fer(name, sink, record=False):\n    try:\n        " + tamper + "\n"
              "    except AttributeError:\n        pass\n"
              "    if record:\n        sink.seen = f'One for {name}, one for me.'\n")
    result = grade_against(sandbox, tmp_path, MOCK_SINK_TEST, forged)
    verdicts = {t.name.rsplit(".", 1)[-1]: t.verdict for t in result.tests}
    assert verdicts["test_sends_the_greeting"] == Verdict.FAILED, result.output
    assert any(t.startswith("patch:") for t in result.details["tried"]), result.details


PYTHON_TRICKS = {  # each with the wrong answer for Eve, and named from the source under tried
    "raises the tests' control exceptions":
        "import unittest.case\n    if name == 'Eve':\n        raise unittest.case._ShouldStop()",
    "signals other processes":
        "import os, signal\n    if name == 'Eve':\n        for pid in range(1, 400):\n"
        "            if pid != os.getpid():\n                try:\n"
        "                    os.kill(pid, signal.SIGKILL)\n                except OSError:\n"
        "                    pass",
    "prints test results":
        "import os, sys\n    if name == 'Eve':\n"
        "        sys.stderr.write('-' * 70 + '\\nRan 4 tests in 0.001s\\n\\nOK\\n')\n"
        "        sys.stderr.flush()\n        os._exit(0)",
    "reads inherited descriptors":
        "import os\n    for fd in range(3, 10):\n        try:\n"
        "            os.write(fd, b'{\"tests\": []}')\n        except OSError:\n            pass",
}


@pytest.mark.parametrize("kind", sorted(PYTHON_TRICKS))
def test_python_tricks_fail_and_are_named(sandbox, tmp_path, kind):
    suite, task = two_module_exercise(tmp_path)
    trick = PYTHON_TRICKS[kind]
    code = RIGHT.replace("    return", f"    {trick}\n    if name == 'Eve':\n"
                                       "        return 'nope'\n    return")
    result = grade_files(sandbox, suite, task, code)
    assert result.verdict != Verdict.PASSED, result.output
    assert any(t.startswith(kind + ": ") for t in result.details.get("tried", [])), result.details
