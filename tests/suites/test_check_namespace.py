"""The globals a check runs in: `import random` gives a generator of the check's own, seeded the
same way on every run, shared by the check's prompt and test, and never the harness's."""

from __future__ import annotations

import random

import pytest

from codetrial.inside import plain as _plain
from codetrial.inside.plain import RANDOM_SEED
from codetrial.sandbox import Outcome
from codetrial.suites import grading
from codetrial.suites.grading import CallCheck

DRAWS = CallCheck(
    prelude="import random\nFIRST = random.random()\n",
    test="import random as again\n\ndef check(candidate):\n"
         "    assert candidate(FIRST, again.random()) == 2\n",
    entry="pair",
    reference="def pair(a, b):\n    return 2\n",
)


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(grading, "_recorded", {})


def test_prompt_and_test_draw_from_one_generator_seeded_per_check(fresh):
    expected = random.Random(RANDOM_SEED)
    first, second = expected.random(), expected.random()
    harness_state = random.getstate()
    calls = grading.record_calls(DRAWS)
    assert calls == [_plain.encode(((first, second), {}))]
    assert random.getstate() == harness_state  # the harness's own generator is untouched
    answers = [{"value": _plain.encode(2)}]
    for _ in range(2):  # every replay draws the same inputs again
        assert grading.replay(DRAWS, calls, answers, Outcome(status="ok")).verdict == "passed"


def test_a_check_without_random_still_imports_other_modules(fresh):
    check = CallCheck(prelude="import math\n", test="def check(c):\n    assert c(math.pi)\n",
                      entry="f", reference="def f(x):\n    return x > 3\n")
    calls = grading.record_calls(check)
    assert calls == [_plain.encode(((3.141592653589793,), {}))]
