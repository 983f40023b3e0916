"""The run's local sandbox, begun before the command imports the engine.

Starting the sandbox's workers is most of a short run's wait, and it needs only the suite, its
options and the number of workers: `guess` begins it from the raw arguments before the command
line framework is imported (`codetrial run SUITE ...`: the suite's defaults), `begin` once the
options are parsed (kept if the guess was right), each in a thread (this module imports nothing
heavy: the thread imports the sandbox). `start_executor` takes the build with `take` when it
wants the same workers, preload and hidden paths; every other build is closed.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING

from codetrial.runner.defaults import DEFAULT_WORKERS

if TYPE_CHECKING:
    from codetrial.runner.config import RunConfig
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

    def __init__(self, suite: str, options: dict, workers: int) -> None:
        self.wanted = (suite, options, workers)
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
            from codetrial.sandbox import Sandbox

            self.key = sandbox_key(*self.wanted)
            workers, preload, hidden = self.key
            self.sandbox = Sandbox(workers=workers, preload=preload, hidden=hidden,
                                   spawned=self.spawned.set)
            self.sandbox.start()
        except BaseException as exc:  # noqa: BLE001 - prepare meets it again, and reports it
            self.error = exc
        finally:
            sys.setswitchinterval(self.switch)
            self.spawned.set()
            self.done.set()

    def close_when_built(self) -> None:
        """Close the sandbox once built, in a thread: nobody waits for one not wanted."""
        def close() -> None:
            self.done.wait()
            if self.sandbox is not None:
                self.sandbox.close()
        threading.Thread(target=close, name="codetrial-early-close", daemon=True).start()


_begun: list[_Build] = []  # the guess and, if the options proved it wrong, the right one


def guess(args: list[str]) -> None:
    """`codetrial run SUITE ...`: begin the sandbox SUITE's defaults ask for, before the
    options are even parsed (begin keeps it if they agree, takes another if not)."""
    asks_help = "--help" in args
    if len(args) > 1 and args[0] == "run" and not args[1].startswith("-") and not asks_help:
        _start(_Build(args[1], {}, DEFAULT_WORKERS))


def begin(config: RunConfig) -> None:
    """Start building the local sandbox `config` asks for, in a thread, unless a guess
    already builds it (a wrong guess is closed when the right one is taken)."""
    if config.executor != "local":
        while _begun:
            _begun.pop().close_when_built()
        return
    wanted = (config.suite, config.suite_options, config.sandbox_workers)
    if any(build.wanted == wanted for build in _begun) or _guess_fits(wanted):
        return
    _start(_Build(*wanted))


def _guess_fits(wanted: tuple[str, dict, int]) -> bool:
    """Whether a sandbox begun already is the one `wanted` needs, though its options differ
    (`-o test_timeout=5` changes no worker)."""
    known = [build.key for build in _begun if build.key is not None]
    if not known:
        return False
    try:
        return sandbox_key(*wanted) in known
    except Exception:  # noqa: BLE001 - a bad option: prepare reports it
        return False


def sandbox_key(suite: str, options: dict, workers: int) -> Key:
    """What a suite's sandbox is made of: workers, preload, hidden paths."""
    from codetrial.runner.hidden import hidden_paths
    from codetrial.suites import create_suite

    made = create_suite(suite, options)
    return workers, tuple(made.preload), hidden_paths(made)


def _start(build: _Build) -> None:
    """Give the thread a head start: until the workers' processes exist, this thread waits."""
    if _begun:  # the interval to restore is the one from before any build
        build.switch = _begun[0].switch
    _begun.append(build)
    sys.setswitchinterval(min(build.switch, BUILD_SWITCH_SECONDS))
    threading.Thread(target=build.run, name="codetrial-early-sandbox", daemon=True).start()
    build.spawned.wait(HEAD_START_SECONDS)


async def take(workers: int, preload: tuple[str, ...], hidden: tuple[str, ...]
               ) -> Sandbox | None:
    """The sandbox begun earlier if it is the one wanted, else None; every other is closed.
    A build that failed gives None too: the caller starts one, and reports its failure."""
    import asyncio

    taken = None
    while _begun:
        build = _begun.pop()
        await asyncio.to_thread(build.done.wait)
        if build.sandbox is None:
            continue
        if taken is None and build.key == (workers, tuple(preload), tuple(hidden)):
            taken = build.sandbox
        else:
            await build.sandbox.aclose()
    return taken
