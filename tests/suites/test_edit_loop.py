"""The try loop and tamper-proof grading, driven by scripted replies through the real sandbox."""

import asyncio

from codetrial.core import Verdict
from codetrial.models.base import Model, Reply, Request
from codetrial.protocols import PROTOCOLS, SampleContext, Sampling
from codetrial.sandbox import Sandbox
from codetrial.suites import create_suite
from tests.suites.exercism_fixture import make_exercises

WRONG = "def two_fer(name='you'):\n    return 'nope'\n"
RIGHT = "def two_fer(name='you'):\n    return f'One for {name}, one for me.'\n"
FORCE_PASS = """import pytest, unittest
unittest.TestCase.assertEqual = lambda *a, **k: None
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""
GUTTED_TEST = ("import unittest\n\nclass T(unittest.TestCase):\n"
               "    def test_ok(self):\n        pass\n")


def whole(files: dict[str, str]) -> str:
    return "\n".join(f"{path}\n```python\n{text}```\n" for path, text in files.items())


class ScriptedModel(Model):
    """Stands in for a model: replies with the given texts in order, records the requests."""

    name = "scripted"

    def __init__(self, replies: list[str], finish: list[str] | None = None):
        self.replies = list(replies)
        self.finish = list(finish or [])
        self.requests: list[Request] = []

    async def generate(self, request: Request) -> Reply:
        self.requests.append(request)
        return Reply(text=self.replies.pop(0),
                     finish_reason=self.finish.pop(0) if self.finish else "stop")


def run_sample(tmp_path, replies, finish=None, **options):
    suite = create_suite("exercism", {"path": str(make_exercises(tmp_path, names=["two-fer"]))})
    [task] = suite.load_tasks()
    model = ScriptedModel(replies, finish)

    async def go():
        async with Sandbox(workers=1) as sandbox:
            ctx = SampleContext(suite, model, sandbox, Sampling(), 0,
                                {"edit_format": "whole", **options})
            return await PROTOCOLS.get("edit")().run(task, ctx)

    return asyncio.run(go()), model


def test_conftest_sitecustomize_and_edited_tests_cannot_fake_a_pass(tmp_path):
    reply = whole({"two_fer.py": WRONG, "conftest.py": FORCE_PASS,
                   "sitecustomize.py": "import os; os._exit(0)\n",
                   "two_fer_test.py": GUTTED_TEST})
    sample, _ = run_sample(tmp_path, [reply], tries=1)
    [attempt] = sample.attempts
    assert attempt.verdict == Verdict.FAILED
    assert {t.name.split(".")[-1]: t.verdict for t in attempt.tests} == {
        "test_a_name": Verdict.FAILED, "test_no_name": Verdict.FAILED}


def test_failed_tests_are_fed_back_and_the_second_try_passes(tmp_path):
    sample, model = run_sample(tmp_path, [whole({"two_fer.py": WRONG}),
                                          whole({"two_fer.py": RIGHT})], tries=2)
    assert [a.verdict for a in sample.attempts] == [Verdict.FAILED, Verdict.PASSED]
    feedback = model.requests[1].messages[-1]["content"]
    assert "tests are correct" in feedback and "nope" in feedback
    assert "/tmp/" not in feedback and " in 0." not in feedback


def test_unappliable_edit_is_reflected_then_counted_malformed(tmp_path):
    bad = "two_fer.py\n<<<<<<< SEARCH\nthis line is not there\n=======\nx = 1\n>>>>>>> REPLACE\n"
    sample, model = run_sample(tmp_path, [bad] * 4, tries=1, edit_format="diff")
    [attempt] = sample.attempts
    assert attempt.verdict == Verdict.MALFORMED
    assert attempt.details["malformed_replies"] == 4 and len(model.requests) == 4
    assert "two_fer.py" in model.requests[1].messages[-1]["content"]


def test_a_reply_the_output_budget_cut_short_is_counted_as_truncated(tmp_path):
    from codetrial.metrics.editing import edit_figures

    cut = whole({"two_fer.py": RIGHT})[:40]  # the fence never closes
    sample, _ = run_sample(tmp_path, [cut, whole({"two_fer.py": RIGHT})],
                           finish=["length", "stop"], tries=1)
    [attempt] = sample.attempts
    assert attempt.verdict == Verdict.PASSED
    assert attempt.details["truncated_replies"] == 1
    figures = edit_figures([sample])
    assert figures["truncated_replies"] == 1 and figures["malformed_replies"] == 1
