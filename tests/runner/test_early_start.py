"""The command line begins the run's sandbox before it imports the engine (executors.begin_local):
prepare takes that sandbox when it wants the same one, closes it when it wants another, and
starts its own when the early build failed."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from codetrial.runner import RunConfig, executors, prepare
from codetrial.runner.hidden import hidden_paths
from codetrial.sandbox import Program
from codetrial.sandbox.procs import descendants
from codetrial.suites import create_suite


@pytest.fixture(autouse=True)
def no_leftover_start():
    executors._early.clear()
    yield
    assert not executors._early  # every test takes or drops what it began


def early_executor() -> executors.LocalExecutor:
    _, local = executors._early[0].result(timeout=60)
    return local


def test_prepare_takes_the_sandbox_begun_for_the_same_run(ct_home):
    config = RunConfig(suite="humaneval", model="reference", limit=2, cache=False)
    executors.begin_local(config)
    begun = early_executor()

    async def prepared() -> tuple[object, str]:
        plan = await prepare(config, None)
        executor = await plan.executor
        outcome = await executor.run(Program(code="print(6 * 7)"))
        await plan.aclose()
        return executor, outcome.stdout

    executor, printed = asyncio.run(prepared())
    assert executor is begun and printed == "42\n"
    assert begun.sandbox.worker_pids == []  # closed with the plan


def test_a_sandbox_begun_for_other_options_is_closed_and_another_started(ct_home):
    before = set(descendants(os.getpid()))
    executors.begin_local(RunConfig(suite="humaneval", model="reference", sandbox_workers=1))
    begun = early_executor()
    suite = create_suite("humaneval", {})
    config = RunConfig(suite="humaneval", model="reference", sandbox_workers=2)

    async def started() -> executors.Executor:
        executor = await executors.start_executor(config, suite.preload, hidden_paths(suite))
        await executor.aclose()
        return executor

    executor = asyncio.run(started())
    assert executor is not begun and executor.capacity == 2
    assert begun.sandbox._closed and begun.sandbox.worker_pids == []
    assert not set(descendants(os.getpid())) - before


def test_an_early_build_that_failed_leaves_prepare_to_report_the_error(ct_home):
    config = RunConfig(suite="no-such-suite", model="reference")
    executors.begin_local(config)
    with pytest.raises(Exception, match="unknown suite"):
        executors._early[0].result(timeout=60)

    async def started() -> executors.Executor:
        executor = await executors.start_executor(config, (), ())
        await executor.aclose()
        return executor

    assert isinstance(asyncio.run(started()), executors.LocalExecutor)


def test_only_the_local_executor_is_begun_early(ct_home):
    executors.begin_local(RunConfig(suite="humaneval", model="reference", executor="ray"))
    assert executors._early == []


def test_the_command_line_imports_no_engine_before_it_begins_the_sandbox():
    """What begin_local needs (executors, and through it the sandbox) does not pull in the
    engine, the models or the protocols."""
    import subprocess
    import sys

    probe = ("import sys, codetrial.runner.executors; "
             "print(sorted(m for m in sys.modules if m.startswith('codetrial.')))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True, cwd=Path(__file__).parent).stdout
    for heavy in ("codetrial.runner.engine", "codetrial.models", "codetrial.protocols",
                  "codetrial.store.sqlite"):
        assert f"'{heavy}'" not in loaded, loaded
