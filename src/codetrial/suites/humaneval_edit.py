"""HumanEval as editing exercises: a stub file with signature and docstring, a unittest file."""

from __future__ import annotations

from pathlib import Path

from codetrial.core import Task
from codetrial.suites.base import suite
from codetrial.suites.editing import EditSuite
from codetrial.suites.grading import CallCheck
from codetrial.suites.humaneval import HumanEval

SOLUTION = "solution.py"
TEST_FILE = "solution_test.py"
INSTRUCTIONS = "Implement the function `{name}` in {file} so that it does what its docstring says."
TEST_TEMPLATE = """import unittest

from solution import *  # noqa: F401,F403 - tests may use helpers defined next to the function

{test}


class HumanEvalTest(unittest.TestCase):
    def test_{name}(self):
        check({name})
"""


@suite("humaneval-edit")
class HumanEvalEdit(EditSuite):
    name = "humaneval-edit"
    default_test_timeout = 10.0

    def load_tasks(self) -> list[Task]:
        return [self._as_edit_task(t) for t in HumanEval({}).load_tasks()]

    def _as_edit_task(self, task: Task) -> Task:
        text = INSTRUCTIONS.format(name=task.data["entry_point"], file=SOLUTION)
        return Task(task.id, self.name, text, task.data | {"stub": task.prompt})

    def version(self) -> str:
        return HumanEval({}).version()

    def hidden_paths(self) -> tuple[Path, ...]:
        return HumanEval({}).hidden_paths()

    def edit_files(self, task: Task) -> dict[str, str]:
        return {SOLUTION: task.data["stub"] + "    pass\n"}

    def reference_files(self, task: Task) -> dict[str, str]:
        return {SOLUTION: task.data["stub"] + task.data["canonical_solution"]}

    def pristine_files(self, task: Task) -> dict[str, str]:
        test = TEST_TEMPLATE.format(test=task.data["test"], name=task.data["entry_point"])
        return {TEST_FILE: test}

    def call_check(self, task: Task) -> CallCheck:
        data = task.data
        return CallCheck(prelude=data["stub"], test=data["test"], entry=data["entry_point"],
                         reference=data["stub"] + data["canonical_solution"])

    def test_modules(self, task: Task) -> list[str]:
        return [TEST_FILE.removesuffix(".py")]
