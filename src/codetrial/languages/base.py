"""What a language is to the polyglot exercises: its toolchain, how to un-skip, build, run and
read its tests. One module per language registers a `Language`; adding one is adding a module.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import shutil
import subprocess
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codetrial.core import TestResult, UsageError
from codetrial.core.registry import Registry
from codetrial.sandbox import Limits


@dataclass
class Workspace:
    """One exercise as it will be graded: the pristine files with the solution copied in."""

    slug: str
    files: dict[str, str]
    solution: list[str]  # the files the model may write
    tests: list[str]  # every test source, listed or not
    cache: Path | None = None  # warm builds (see cache.py), visible read-only in the sandbox
    pristine: dict[str, str] = field(default_factory=dict)  # as shipped: what warm builds use


@dataclass
class Plan:
    """Steps for the sandbox's driver (see _driver.py), and the report files to bring back."""

    steps: list[dict[str, Any]]
    collect: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # written next to the exercise
    names: dict[str, str] = field(default_factory=dict)  # a test's run name -> its own name
    decoys: dict[str, str] = field(default_factory=dict)  # run names honest code fails
    key: str = ""  # the results are the output line after this key (as report["keyed"])


class Language(ABC):
    name: str  # "go": the directory of the polyglot layout and the task id's prefix
    display: str  # "Go": how prompts name it
    fence: str  # the code fence's info string
    extensions: tuple[str, ...]  # solution files that say an exercise is in this language
    packages: str  # what to install when the toolchain is missing
    build_files: tuple[str, ...] = ()  # patterns always taken from the pristine exercise
    test_patterns: tuple[str, ...] = ()  # test sources besides those the config lists
    unskipped: str = ""  # what `unskip` does, for the run's settings
    source_dirs: tuple[str, ...] = ("",)  # where a file the model adds is built from
    memory_mb: int = 4096
    max_processes: int = 256
    native = False  # True: the suite grades it itself (Python), no plan

    @abstractmethod
    def tools(self) -> dict[str, list[str]]:
        """Tool name -> the command that prints its version."""

    @abstractmethod
    def plan(self, ws: Workspace) -> Plan:
        """How to build and run the exercise's tests in the sandbox."""

    @abstractmethod
    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        """Per-test results from the tools' machine-readable output."""

    def read(self, report: dict[str, Any]) -> tuple[list[TestResult], list[str]]:
        """The per-test results, and what in the tools' output no honest run prints (a test
        that reports twice, a result after the runner's last line): evidence that the code
        wrote its own results. One reading of the report gives both."""
        return self.parse(report), []

    @abstractmethod
    def expected(self, sources: dict[str, str]) -> list[str]:
        """The tests the test files define: each must report a pass."""

    def unskip(self, text: str) -> str:
        return text

    def is_build_file(self, path: str) -> bool:
        return any(fnmatch.fnmatch(path, p) for p in self.build_files)

    def is_test_file(self, path: str) -> bool:
        return any(fnmatch.fnmatch(path, p) for p in self.test_patterns)

    def may_add(self, path: str, pristine: dict[str, str]) -> bool:
        """A file the model created that the build takes too: a helper class, a header, a
        module. Never a test, a build file, a file the exercise ships, or one outside
        `source_dirs`."""
        from codetrial.editformats.text import new_path_problem  # only once something is graded

        return (path not in pristine and path.endswith(self.extensions)
                and new_path_problem(path) is None and not self.is_test_file(path)
                and not self.is_build_file(path)
                and any(path.startswith(d) for d in self.source_dirs))

    def shell_env(self) -> dict[str, str]:
        """Variables an agent's commands need for this toolchain ({wd}: the workdir)."""
        return {}

    def shell_path(self) -> list[str]:
        """Folders an agent's commands need on PATH for this toolchain."""
        return []

    def limits(self, base: Limits) -> Limits:
        """Compilers and VMs need more memory and threads than a Python test."""
        return Limits(wall_seconds=base.wall_seconds, cpu_seconds=base.cpu_seconds * 4,
                      memory_mb=max(base.memory_mb, self.memory_mb),
                      max_processes=max(base.max_processes, self.max_processes),
                      max_output_bytes=base.max_output_bytes, max_file_mb=512)

    def version(self) -> str:
        """Every tool's version; a UsageError naming the package when one is missing."""
        return _versions(type(self))


def sandbox_path() -> str:
    """PATH inside the sandbox (see sandbox/launch.py): the tools found there are the ones run."""
    return f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin"


@functools.cache
def _versions(cls: type[Language]) -> str:
    lang = cls()
    found = []
    for name, argv in lang.tools().items():
        exe = shutil.which(argv[0], path=sandbox_path()) if argv else None
        if exe is None:
            raise UsageError(f"{lang.display} exercises need {name}: install {lang.packages} "
                             f"(bash scripts/setup.sh --languages {lang.name})")
        done = subprocess.run([exe, *argv[1:]], capture_output=True, text=True, check=False,
                              timeout=60, env={**os.environ, "PATH": sandbox_path()})
        text = (done.stdout or done.stderr).strip().splitlines()
        line = text[0] if text else "?"
        found.append(line if line.startswith(name) else f"{name} {line}")
    return "; ".join(found)


LANGUAGES: Registry[type[Language]] = Registry("language", "codetrial.languages")
language = LANGUAGES.register


def get_language(name: str) -> Language:
    return LANGUAGES.get(name)()


def language_of(solution: list[str]) -> str:
    """The language whose file extensions the solution files have (python when none fits)."""
    for name in LANGUAGES.names():
        lang = get_language(name)
        if any(p.endswith(lang.extensions) for p in solution if not lang.is_build_file(p)):
            return name
    return "python"
