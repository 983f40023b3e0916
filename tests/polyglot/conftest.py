"""Fixtures for the polyglot tests: the exercises written once per session, one warm sandbox per
module, and a way to grade files of an exercise through the exercism suite."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codetrial.core import Task
from codetrial.sandbox import Sandbox
from codetrial.sandbox.procs import descendants
from codetrial.suites import create_suite
from codetrial.suites.base import Grade
from tests.conftest import host_leftovers
from tests.polyglot.exercises import Exercise, write_all


@pytest.fixture(scope="session")
def poly_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_all(tmp_path_factory.mktemp("polyglot") / "exercises")


@pytest.fixture(scope="module")
def sandbox(bubblewrap: None) -> Iterator[Sandbox]:
    with Sandbox(workers=2) as box:
        yield box
        leftovers = host_leftovers(box.uids) + [
            f"processes below bwrap {pid}" for pid in box.worker_pids if len(descendants(pid)) > 1]
        assert not leftovers, leftovers


Grader = Callable[..., list[Grade]]


@pytest.fixture(scope="module")
def grade(poly_root: Path, sandbox: Sandbox) -> Grader:
    """grade([(exercise, files), ...], timeout=30, root=poly_root): the grades, two at a time."""

    def run(jobs: list[tuple[Exercise, dict[str, str]]], timeout: float = 30,
            root: Path = poly_root) -> list[Grade]:
        suite = create_suite("exercism", {"path": str(root), "test_timeout": timeout})
        tasks: dict[str, Task] = {t.id: t for t in suite.load_tasks()}

        async def all_of() -> list[Grade]:
            return list(await asyncio.gather(*(
                suite.grade_files(tasks[e.task_id], files, sandbox) for e, files in jobs)))

        return asyncio.run(all_of())

    return run
