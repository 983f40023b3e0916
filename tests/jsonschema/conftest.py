"""A fixture suite on disk, a real sandbox, and a helper that grades hand-written validators."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codetrial.core import Task
from codetrial.sandbox import Sandbox
from codetrial.suites import Grade, create_suite
from codetrial.suites.jsonschema import JsonSchemaSuite
from tests.jsonschema.fixture import make_suite


@pytest.fixture(scope="session")
def suite_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_suite(tmp_path_factory.mktemp("suite"))


@pytest.fixture(scope="session")
def sandbox():
    with Sandbox(workers=2) as box:
        yield box


@pytest.fixture(scope="session")
def fixture_suite(suite_root: Path) -> JsonSchemaSuite:
    return create_suite("jsonschema", {"suite_path": str(suite_root), "include": "format"})


@pytest.fixture(scope="session")
def tasks(fixture_suite: JsonSchemaSuite) -> dict[str, Task]:
    return {t.id: t for t in fixture_suite.load_tasks()}


@pytest.fixture
def grade(fixture_suite, tasks, sandbox):
    """grade(task_id, code) -> Grade, through the suite's real grader and sandbox."""

    def run(task_id: str, code: str) -> Grade:
        return asyncio.run(fixture_suite.grade(tasks[task_id], code, sandbox))

    return run
