"""What every code-editing suite shares: stub files in, unit tests run on a pristine copy.

Grading copies the exercise as it was shipped and then overwrites only the solution files with
the model's versions, so a model-written conftest.py, sitecustomize.py or edited test file never
reaches the run. Tests run with unittest in a warm forked sandbox child (no interpreter start),
and every test's outcome is reported one by one, not read off an exit code.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from typing import Any

from codetrial.core import Sample, Task, TestResult, Verdict
from codetrial.sandbox import Limits, Program, Sandbox
from codetrial.suites.base import Grade, Suite
from codetrial.suites.grading import failure_text, verdict_of

TEST_RUNNER = '''
import sys, unittest
sys.path.insert(0, ".")
sys.dont_write_bytecode = True

class _Recorder(unittest.TextTestResult):
    outcomes = []
    def _note(self, test, verdict, err=None):
        message = self._exc_info_to_string(err, test) if err else ""
        _Recorder.outcomes.append((test.id(), verdict, message[-2000:]))
    def addSuccess(self, test):
        super().addSuccess(test); self._note(test, "passed")
    def addFailure(self, test, err):
        super().addFailure(test, err); self._note(test, "failed", err)
    def addError(self, test, err):
        super().addError(test, err); self._note(test, "error", err)
    def addSkip(self, test, reason):
        super().addSkip(test, reason); self._note(test, "skipped")
    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err); self._note(test, "passed")
    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test); self._note(test, "failed")

_suite = unittest.TestSuite()
for _name in TEST_MODULES:
    _suite.addTests(unittest.defaultTestLoader.loadTestsFromName(_name))
unittest.TextTestRunner(stream=sys.stderr, verbosity=2, resultclass=_Recorder).run(_suite)
__results__ = [list(o) for o in _Recorder.outcomes]
'''

_TIMING = re.compile(r"\b(in|took) \d+(\.\d+)?s\b")
_WORKDIR = re.compile(r"(/tmp/[\w.-]+/)+")


def clean_test_output(text: str, max_lines: int = 50) -> str:
    """What goes back to the model: no timings, no sandbox paths, the first lines only."""
    text = _WORKDIR.sub("", _TIMING.sub("", text))
    return "\n".join(text.splitlines()[:max_lines])


class EditSuite(Suite):
    """A suite whose tasks are edited through an edit format (see protocols/edit.py)."""

    default_protocol = "edit"
    default_test_timeout = 180.0

    @abstractmethod
    def edit_files(self, task: Task) -> dict[str, str]:
        """The solution files as the model first sees them (stubs)."""

    @abstractmethod
    def reference_files(self, task: Task) -> dict[str, str]:
        """The solution files of a perfect answer."""

    @abstractmethod
    def pristine_files(self, task: Task) -> dict[str, str]:
        """The whole exercise as shipped (tests included), before any solution is copied in."""

    @abstractmethod
    def test_modules(self, task: Task) -> list[str]:
        """Module names of the unit tests to run."""

    def instructions(self, task: Task) -> str:
        return task.prompt

    def limits(self) -> Limits:
        timeout = float(self.options.get("test_timeout", self.default_test_timeout))
        return Limits(wall_seconds=timeout, cpu_seconds=timeout, memory_mb=2048,
                      max_output_bytes=200_000)

    async def grade(self, task: Task, code: str, sandbox: Sandbox) -> Grade:
        return await self.grade_files(task, {next(iter(self.edit_files(task))): code}, sandbox)

    async def grade_files(self, task: Task, files: dict[str, str], sandbox: Sandbox) -> Grade:
        workdir = dict(self.pristine_files(task))
        workdir.update({p: files[p] for p in self.edit_files(task) if p in files})
        program = f"TEST_MODULES = {self.test_modules(task)!r}\n{TEST_RUNNER}"
        outcome = await sandbox.run(Program(code=program, files=workdir), self.limits())
        tests = _test_results(outcome.report)
        verdict = verdict_of(outcome)
        if verdict == Verdict.PASSED and not (tests and all(t.verdict == Verdict.PASSED
                                                            for t in tests)):
            verdict = Verdict.FAILED
        return Grade(verdict, tests, failure_text(outcome, limit=20_000), outcome.wall_seconds)

    def summarize(self, samples: list[Sample]) -> dict[str, Any]:
        from codetrial.metrics.editing import edit_figures

        return edit_figures(samples)


def _test_results(report: Any) -> list[TestResult]:
    results = []
    for row in report if isinstance(report, list) else []:
        name, verdict, message = (list(row) + ["", "", ""])[:3]
        if verdict == "skipped":
            continue
        results.append(TestResult(str(name), Verdict(verdict), str(message)))
    return results
