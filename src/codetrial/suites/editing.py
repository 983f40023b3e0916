"""What every code-editing suite shares: stub files in, unit tests run on a pristine copy.

Grading copies the exercise as it was shipped and then overwrites only the solution files with
the model's versions, so a model-written conftest.py, sitecustomize.py or edited test file never
reaches the run. Tests run with plain unittest in a warm forked sandbox child, and the model's
code in a fresh interpreter beside it that never sees the tests (inside/unittest.py): the
tests reach it through proxies. A test the files define that does not pass, for whatever reason,
is not a pass; what the model's code tried (reading the tests, introspecting frames, patching
unittest) is in `Grade.details["tried"]` and never changes the verdict.
"""

from __future__ import annotations

import posixpath
import re
from abc import abstractmethod
from typing import Any

from codetrial.agent.shell import Toolchain
from codetrial.core import Sample, Task, TestResult, Verdict
from codetrial.languages import scan
from codetrial.sandbox import Limits, Program, Sandbox
from codetrial.sandbox.judged import STDLIB, UNITTEST_MODULE, judged_program
from codetrial.suites.base import Grade, Suite
from codetrial.suites.grading import CallCheck, failure_text, grade_by_value, verdict_of

# Processes and threads of a test run: tests that start 1000 threads (bank-account) keep many
# alive while they take turns calling the model's code in its own process.
MAX_THREADS = 1200
INSTRUCTIONS_FILE = "INSTRUCTIONS.md"  # in an agent's workspace
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
    preload = (UNITTEST_MODULE, *STDLIB)

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

    def prompt_language(self, task: Task) -> tuple[str, str]:
        """How prompts name the task's language, and its code fences' info string."""
        return "Python", "python"

    def workspace_files(self, task: Task) -> dict[str, str]:
        """What an agent's workspace starts with: the stubs and the instructions, never a
        test (see protocols/agent.py)."""
        return {**self.edit_files(task), INSTRUCTIONS_FILE: self.instructions(task)}

    def hidden_names(self, task: Task) -> list[str]:
        """Names of the hidden tests, for noticing an agent that looks for them."""
        workspace = self.workspace_files(task)
        return sorted({posixpath.basename(p) for p in self.pristine_files(task)
                       if p not in workspace})

    def toolchain(self, task: Task) -> Toolchain:
        """How an agent's commands run for this task."""
        return Toolchain(self.limits())

    def limits(self) -> Limits:
        timeout = float(self.options.get("test_timeout", self.default_test_timeout))
        return Limits(wall_seconds=timeout, cpu_seconds=timeout, memory_mb=2048,
                      max_output_bytes=200_000, max_processes=MAX_THREADS)

    async def grade(self, task: Task, code: str, sandbox: Sandbox) -> Grade:
        return await self.grade_files(task, {next(iter(self.edit_files(task))): code}, sandbox)

    def call_check(self, task: Task) -> CallCheck | None:
        """A suite whose test is one check(candidate) of one function returns that check, to be
        judged by value instead of by unittest: no object of the model's can then compare equal
        to an expected value (see grading.grade_by_value). None: run the unit tests."""
        return None

    async def grade_files(self, task: Task, files: dict[str, str], sandbox: Sandbox) -> Grade:
        check = self.call_check(task)
        stubs = self.edit_files(task)
        if check is not None and len(stubs) == 1:
            [(path, stub)] = stubs.items()
            return await grade_by_value(check, files.get(path, stub), sandbox, self.limits())
        workdir = dict(self.pristine_files(task))
        workdir.update({p: files[p] for p in self.edit_files(task) if p in files})
        program = judged_program("run_unittests", self.test_modules(task), sorted(stubs),
                                 module=UNITTEST_MODULE)
        outcome = await sandbox.run(Program(code=program, files=workdir), self.limits())
        report = outcome.report if isinstance(outcome.report, dict) else {}
        tests = _test_results(report.get("tests"))
        verdict = verdict_of(outcome)
        if verdict == Verdict.PASSED and not (tests and all(t.verdict == Verdict.PASSED
                                                            for t in tests)):
            verdict = Verdict.FAILED
        tried = [str(t) for t in report.get("tried") or []]
        tried += scan.tried("python", {p: files[p] for p in sorted(stubs) if p in files})
        return Grade(verdict, tests, failure_text(outcome, limit=20_000), outcome.wall_seconds,
                     details={"tried": tried} if tried else {})

    def summarize(self, samples: list[Sample]) -> dict[str, Any]:
        from codetrial.metrics.agent import agent_figures
        from codetrial.metrics.editing import edit_figures

        return {**edit_figures(samples), **agent_figures(samples)}


def _test_results(report: Any) -> list[TestResult]:
    results = []
    for row in report if isinstance(report, list) else []:
        name, verdict, message = (list(row) + ["", "", ""])[:3]
        if verdict == "skipped":
            continue
        results.append(TestResult(str(name), Verdict(verdict), str(message)))
    return results
