"""The command line begins the run's sandbox before it imports the engine (runner.early.begin):
prepare takes that sandbox when it wants the same one, closes it when it wants another, and
starts its own when the early build failed."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest

from codetrial.runner import RunConfig, early, executors, prepare
from codetrial.runner.hidden import hidden_paths
from codetrial.sandbox import Program, Sandbox
from codetrial.sandbox.procs import descendants
from codetrial.suites import create_suite


@pytest.fixture(autouse=True)
def no_leftover_start():
    early._begun.clear()
    yield
    assert not early._begun  # every test takes or drops what it began


def early_sandbox() -> Sandbox:
    build = early._begun[0]
    assert build.done.wait(60) and build.error is None, build.error
    return build.sandbox


def started_executor(config: RunConfig) -> executors.Executor:
    """The executor a run of `config` starts (a begun sandbox, if it fits), then closed."""
    suite = create_suite(config.suite, config.suite_options)

    async def started() -> executors.Executor:
        executor = await executors.start_executor(config, suite.preload, hidden_paths(suite))
        await executor.aclose()
        return executor

    return asyncio.run(started())


def test_prepare_takes_the_sandbox_begun_for_the_same_run(ct_home):
    config = RunConfig(suite="humaneval", model="reference", limit=2, cache=False)
    early.begin(config)
    begun = early_sandbox()

    async def prepared() -> tuple[object, str]:
        plan = await prepare(config, None)
        executor = await plan.executor
        outcome = await executor.run(Program(code="print(6 * 7)"))
        await plan.aclose()
        return executor, outcome.stdout

    executor, printed = asyncio.run(prepared())
    assert executor.sandbox is begun and printed == "42\n"
    assert begun.worker_pids == []  # closed with the plan


def test_a_sandbox_begun_for_other_options_is_closed_and_another_started(ct_home):
    before = set(descendants(os.getpid()))
    early.begin(RunConfig(suite="humaneval", model="reference", sandbox_workers=1))
    begun = early_sandbox()
    executor = started_executor(RunConfig(suite="humaneval", model="reference",
                                          sandbox_workers=2))
    assert executor.sandbox is not begun and executor.capacity == 2
    assert begun._closed and begun.worker_pids == []
    assert not set(descendants(os.getpid())) - before


def test_an_early_build_that_failed_leaves_prepare_to_report_the_error(ct_home):
    config = RunConfig(suite="no-such-suite", model="reference")
    early.begin(config)
    build = early._begun[0]
    assert build.done.wait(60) and "unknown suite" in str(build.error)

    async def started() -> executors.Executor:
        executor = await executors.start_executor(config, (), ())
        await executor.aclose()
        return executor

    assert isinstance(asyncio.run(started()), executors.LocalExecutor)


def test_the_gil_is_handed_over_often_only_while_the_sandbox_is_built(ct_home, monkeypatch):
    """The build is held until the test has looked: on a loaded machine it could otherwise
    be done (and the interval restored) before `begin` returns."""
    import sys

    import codetrial.sandbox as sandbox_package

    release, during = threading.Event(), []

    class HeldSandbox(Sandbox):
        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            super().__init__(*args, **kwargs)
            during.append(sys.getswitchinterval())
            release.wait(60)

    monkeypatch.setattr(sandbox_package, "Sandbox", HeldSandbox)
    before = sys.getswitchinterval()
    try:
        early.begin(RunConfig(suite="humaneval", model="reference", sandbox_workers=1))
        assert sys.getswitchinterval() <= early.BUILD_SWITCH_SECONDS
    finally:
        release.set()  # a failed look must not leave the build (and its worker) held
    begun = early_sandbox()
    assert during[0] <= early.BUILD_SWITCH_SECONDS and sys.getswitchinterval() == before
    early._begun.clear()
    begun.close()


def test_only_the_local_executor_is_begun_early(ct_home):
    early.begin(RunConfig(suite="humaneval", model="reference", executor="ray"))
    assert early._begun == []


def test_the_command_line_imports_nothing_heavy_before_it_begins_the_sandbox():
    """What the command imports to begin the sandbox (runner.early, the config) pulls in
    neither the engine nor the sandbox nor asyncio: the thread imports those."""
    import subprocess
    import sys

    probe = ("import sys, codetrial.runner.early, codetrial.runner.config; "
             "print(sorted(m for m in sys.modules if m.startswith(('codetrial.', 'asyncio'))))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True, cwd=Path(__file__).parent).stdout
    for heavy in ("codetrial.runner.engine", "codetrial.runner.executors", "codetrial.sandbox",
                  "codetrial.models", "codetrial.protocols", "codetrial.store.sqlite",
                  "asyncio"):
        assert f"'{heavy}'" not in loaded, loaded


def test_the_command_waits_for_the_workers_processes_but_not_for_them_to_be_ready(
        ct_home, monkeypatch):
    """begin's head start: the build thread alone holds the GIL until the workers' processes
    exist; the command goes on while they start (the bound raised: a slow machine is no
    failure)."""
    monkeypatch.setattr(early, "HEAD_START_SECONDS", 60.0)
    early.begin(RunConfig(suite="humaneval", model="reference", sandbox_workers=1))
    build = early._begun[0]
    assert build.spawned.is_set()
    begun = early_sandbox()
    early._begun.clear()
    begun.close()


def test_a_runs_arguments_begin_its_sandbox_before_they_are_parsed(ct_home):
    """`run humaneval ...`: the guess builds what the parsed options then ask for, once."""
    early.guess(["run", "humaneval", "--model", "reference", "--json"])
    guessed = early_sandbox()
    config = RunConfig(suite="humaneval", model="reference")
    early.begin(config)
    assert len(early._begun) == 1
    assert started_executor(config).sandbox is guessed and guessed._closed


def test_a_guess_is_kept_for_options_that_change_no_worker(ct_home):
    early.guess(["run", "humaneval", "-o", "test_timeout=5"])
    guessed = early_sandbox()
    config = RunConfig(suite="humaneval", model="reference",
                       suite_options={"test_timeout": "5"})
    early.begin(config)
    assert len(early._begun) == 1
    assert started_executor(config).sandbox is guessed


def test_a_wrong_guess_is_closed_and_the_options_sandbox_taken(ct_home):
    before = set(descendants(os.getpid()))
    early.guess(["run", "humaneval", "--workers", "1"])  # the guess knows no options
    guessed = early_sandbox()
    config = RunConfig(suite="humaneval", model="reference", sandbox_workers=1)
    early.begin(config)
    assert len(early._begun) == 2
    executor = started_executor(config)
    assert executor.sandbox is not guessed and executor.capacity == 1
    assert guessed._closed and not early._begun
    assert not set(descendants(os.getpid())) - before


@pytest.mark.parametrize("args", [[], ["run"], ["run", "--resume", "RUN"], ["report", "RUN"],
                                  ["run", "--help"], ["run", "humaneval", "--help"]])
def test_only_a_run_that_names_its_suite_is_guessed(args):
    early.guess(args)
    assert early._begun == []


def test_a_guess_for_a_run_elsewhere_is_closed_once_built(ct_home):
    early.guess(["run", "humaneval", "--executor", "ray"])
    build = early._begun[0]
    early.begin(RunConfig(suite="humaneval", model="reference", executor="ray"))
    assert early._begun == []
    assert build.done.wait(60) and build.sandbox is not None
    deadline = time.monotonic() + 30  # closed by the build's thread: `_closed` is set first,
    while time.monotonic() < deadline and not (  # then the workers are stopped
            build.sandbox._closed and build.sandbox.worker_pids == []):
        time.sleep(0.05)
    assert build.sandbox._closed and build.sandbox.worker_pids == []
