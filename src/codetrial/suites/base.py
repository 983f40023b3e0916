"""What a suite is: where tasks come from and how a candidate is graded.

Protocols ask a suite for the pieces they need (a completion prompt, chat messages, stub files)
through the hooks below; a suite implements the hooks of the protocols it supports.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codetrial.core import Sample, Task, TestResult, UsageError, Verdict
from codetrial.core.registry import Registry
from codetrial.sandbox.judged import STDLIB

if TYPE_CHECKING:
    from codetrial.sandbox import Sandbox


@dataclass
class Grade:
    verdict: Verdict
    tests: list[TestResult] = field(default_factory=list)
    output: str = ""
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)


class Suite(ABC):
    name: str
    default_protocol: str = "completion"
    # modules its programs import, imported once per worker (the standard library's usual ones
    # unless a suite knows its programs' imports); codetrial's judges always are,
    # codetrial_unittest only if named (see sandbox.launch.Options)
    preload: tuple[str, ...] = STDLIB

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options

    @abstractmethod
    def load_tasks(self) -> list[Task]:
        """All tasks; raise UsageError naming the file and field on bad input."""

    @abstractmethod
    async def grade(self, task: Task, code: str, sandbox: Sandbox) -> Grade:
        """Run a candidate program against the task's tests in the sandbox."""

    def summarize(self, samples: list[Sample]) -> dict[str, Any]:
        """Suite-specific figures added to the run's summary and --json object."""
        return {}

    def version(self) -> str:
        """Version of the data the tasks come from, recorded with every run."""
        return ""

    def run_settings(self, tasks: list[Task]) -> dict[str, Any]:
        """What else a run of these tasks depends on (toolchains, ...), recorded with the run."""
        return {}

    def hidden_paths(self) -> tuple[Path, ...]:
        """Answer keys its programs must never see (canonical solutions, expected values, the
        data the tasks come from): the sandbox masks them. Programs get what they need through
        the request, so hiding the originals costs them nothing."""
        return ()

    # hooks for protocols -------------------------------------------------
    def completion_prompt(self, task: Task) -> str:
        raise self._unsupported("completion")

    def reference_completion(self, task: Task) -> str:
        raise self._unsupported("completion")

    def chat_messages(self, task: Task) -> list[dict[str, str]]:
        raise self._unsupported("chat")

    def reference_code(self, task: Task) -> str:
        raise self._unsupported("chat")

    def program_from_completion(self, task: Task, completion: str) -> str:
        return self.completion_prompt(task) + completion

    def program_from_code(self, task: Task, code: str) -> str:
        return code

    def _unsupported(self, protocol: str) -> UsageError:
        return UsageError(f"suite {self.name!r} does not support the {protocol!r} protocol")


SuiteFactory = Callable[[dict[str, Any]], Suite]
SUITES: Registry[SuiteFactory] = Registry("suite", "codetrial.suites")
suite = SUITES.register


def create_suite(name: str, options: dict[str, Any]) -> Suite:
    return SUITES.get(name)(options)


def select_tasks(tasks: list[Task], ids: list[str] | None, limit: int | None) -> list[Task]:
    """--tasks then --limit; an unknown id is a usage error, not a silently smaller run."""
    if ids:
        by_id = {t.id.rsplit("/", 1)[-1]: t for t in tasks}  # "HumanEval/3" or just "3"
        by_id.update({t.id: t for t in tasks})
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise UsageError(f"unknown task id(s): {', '.join(missing)}")
        tasks = [by_id[i] for i in ids]
    if limit is not None:
        if limit < 1:
            raise UsageError("--limit must be at least 1")
        tasks = tasks[:limit]
    return tasks
