"""The run's local sandbox, begun before the command imports the engine.

Starting the sandbox's workers is most of a short run's wait, and it needs only the config:
`begin` builds it in a thread from the moment the command has parsed its options (this module
imports nothing heavy, so that moment comes early: the thread imports the sandbox), and
`start_executor` takes it with `take` when it wants the same workers, preload and hidden paths;
otherwise it is closed.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codetrial.runner.config import RunConfig
    from codetrial.runner.executors import LocalExecutor
    from codetrial.sandbox import Sandbox

Key = tuple[int, tuple[str, ...], tuple[str, ...]]  # workers, preload, hidden paths
# While the sandbox is built, the interpreter hands the GIL over this often (the default is
# 5 ms): the build thread mostly waits on system calls, and each time it wakes it would wait
# for the main thread, which imports, or on a cold run records every check's calls. That put
# the workers' start 0.3 s later on a cold run (2.19 -> 1.95 s for HumanEval), 0 on a warm one.
BUILD_SWITCH_SECONDS = 0.0005
# The command waits this long at most for the build thread to start the workers' processes:
# until then the thread's work is the run's critical path, and the command's imports would
# take half of the GIL from it (the processes started 145 ms after begin instead of 70).
HEAD_START_SECONDS = 0.5


class _Build:
    """One sandbox being built in a thread; `done` is set once it is built or has failed."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.switch = sys.getswitchinterval()  # restored once built
        self.done = threading.Event()
        self.spawned = threading.Event()  # set when the workers' processes exist
        self.key: Key | None = None
        self.sandbox: Sandbox | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        """Only what the workers' start needs is imported first (not the executors, nor
        asyncio): the processes start sooner, and import their own modules meanwhile."""
        try:
            from codetrial.runner.hidden import hidden_paths
            from codetrial.sandbox import Sandbox
            from codetrial.suites import create_suite

            suite = create_suite(self.config.suite, self.config.suite_options)
            workers, preload, hidden = self.key = (
                self.config.sandbox_workers, tuple(suite.preload), hidden_paths(suite))
            self.sandbox = Sandbox(workers=workers, preload=preload, hidden=hidden,
                                   spawned=self.spawned.set)
            self.sandbox.start()
        except BaseException as exc:  # noqa: BLE001 - prepare meets it again, and reports it
            self.error = exc
        finally:
            sys.setswitchinterval(self.switch)
            self.spawned.set()
            self.done.set()


_begun: list[_Build] = []  # at most one


def begin(config: RunConfig) -> None:
    """Start building the local sandbox `config` asks for, in a thread, and give the thread
    a head start: until the workers' processes exist, this thread waits."""
    if config.executor != "local" or _begun:
        return
    build = _Build(config)
    _begun.append(build)
    sys.setswitchinterval(min(build.switch, BUILD_SWITCH_SECONDS))
    threading.Thread(target=build.run, name="codetrial-early-sandbox", daemon=True).start()
    build.spawned.wait(HEAD_START_SECONDS)


async def take(workers: int, preload: tuple[str, ...], hidden: tuple[str, ...]
               ) -> LocalExecutor | None:
    """The sandbox begun earlier if it is the one wanted, else None (and it is closed). A
    build that failed gives None too: the caller starts one, and reports its failure."""
    import asyncio

    from codetrial.runner.executors import LocalExecutor

    if not _begun:
        return None
    build = _begun.pop()
    await asyncio.to_thread(build.done.wait)
    if build.sandbox is None:
        return None
    if build.key == (workers, tuple(preload), tuple(hidden)):
        return LocalExecutor(workers, preload, hidden, sandbox=build.sandbox)
    await build.sandbox.aclose()
    return None
