"""Python: the existing path. Its tests run through suites/editing.py's judged unittest runner
(the model's code in a process apart from the one that reports), not through a driver plan."""

from __future__ import annotations

import sys
from typing import Any

from codetrial.core import TestResult
from codetrial.languages.base import Language, Plan, Workspace, language


@language("python")
class Python(Language):
    name, display, fence = "python", "Python", "python"
    extensions = (".py",)
    packages = "python3"
    build_files = ("conftest.py", "pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml",
                   "sitecustomize.py", "usercustomize.py")
    test_patterns = ("*_test.py", "test_*.py")
    unskipped = "nothing to un-skip (the track's tests carry no skip markers)"
    native = True  # graded by the suite's own unittest runner

    def tools(self) -> dict[str, list[str]]:
        return {"python": [sys.executable, "--version"]}

    def plan(self, ws: Workspace) -> Plan:
        raise TypeError("Python exercises are graded by suites/editing.py, not by a plan")

    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        raise TypeError("Python exercises are graded by suites/editing.py, not by a plan")

    def expected(self, sources: dict[str, str]) -> list[str]:
        raise TypeError("Python exercises are graded by suites/editing.py, not by a plan")
