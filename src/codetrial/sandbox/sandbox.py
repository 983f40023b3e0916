"""The sandbox: a pool of warm workers, each running one untrusted program at a time.

The pool is thread-based rather than bound to one event loop: each worker is driven by
blocking, deadline-checked I/O in threads of the pool's own (two per worker: one waits for the
answer to the program it runs, one has sent it the next), so `run` works from any event loop
and `run_sync` from plain code. Worker processes are all spawned from one more thread that lives
until the workers are stopped: bwrap's --die-with-parent fires when the spawning *thread* exits.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from codetrial.sandbox import bwrap
from codetrial.sandbox.launch import BUBBLEWRAP, Options
from codetrial.sandbox.mode import resolve_mode
from codetrial.sandbox.slot import Slot, Watch
from codetrial.sandbox.types import Limits, Outcome, Program

PIPELINE_DEPTH = 2  # programs in one worker's hands: the one it runs and the next (see Slot)
PIPELINE_BELOW_SECONDS = 0.1  # the next is sent ahead only while programs run shorter
TYPICAL_WEIGHT = 0.2  # of the latest program in the running average of how long they run


class _Countdown:
    """Calls `done` once, at the `count`-th tick or at `finish`, whichever comes first."""

    def __init__(self, count: int, done: Callable[[], None]) -> None:
        self.count, self.done = count, done
        self.lock = threading.Lock()

    def tick(self) -> None:
        with self.lock:
            self.count -= 1
            if self.count != 0:
                return
        self.done()

    def finish(self) -> None:
        with self.lock:
            if self.count <= 0:
                return
            self.count = 0
        self.done()


def _close_slots(slots: list[Slot], spawner: ThreadPoolExecutor) -> None:
    for slot in slots:  # every worker is told at once, then each is waited for
        slot.settle(keep=True)
        if slot.worker is not None:
            slot.worker.end_input()
    for slot in slots:
        slot.close()
    spawner.shutdown(wait=True)


class Sandbox:
    """Runs Programs under Limits in isolated, warm worker processes.

    `Sandbox(workers=2, mode=None)`; mode None picks bubblewrap when it works (see
    `detect_mode`). Workers start lazily and are replaced when they die or misbehave.
    `hidden`: paths no program may see (a suite's answer keys); bubblewrap masks those its
    binds would show, the process mode cannot mask any (`unmasked` lists what stays visible).
    `preload`: modules each worker imports once for its programs; None (the default) loads
    all of codetrial's judging modules and the usual standard library (judged.STDLIB), a tuple
    (a suite's `preload`) only what it names besides the judges, `codetrial_unittest` only when
    named (see launch.Options).
    `spawned`: called once every worker's first process exists (or could not be made), before
    they are ready, or at the latest when the constructor returns.
    """

    def __init__(self, workers: int = 2, mode: str | None = None, *, tmpfs_mb: int = 512,
                 margin_seconds: float = 5.0, preload: tuple[str, ...] | None = None,
                 hidden: tuple[str, ...] = (),
                 spawned: Callable[[], None] = lambda: None) -> None:
        if workers < 1:
            raise ValueError("a sandbox needs at least one worker")
        if tmpfs_mb < 1:
            raise ValueError(f"tmpfs_mb={tmpfs_mb}: a sandbox needs at least 1 MB of /tmp")
        self.hidden = tuple(str(p) for p in hidden)
        options = Options(tmpfs_mb=tmpfs_mb, hidden=self.hidden,
                          preload=None if preload is None else tuple(preload))
        # a thread per worker, so that they start side by side; each lives until the workers
        # stop (see the module docstring)
        spawner = ThreadPoolExecutor(workers, thread_name_prefix="codetrial-sandbox-spawn")
        countdown = _Countdown(workers, spawned)
        self._slots = [Slot(options, margin_seconds, spawner, countdown.tick)
                       for _ in range(workers)]
        self._finalizer = weakref.finalize(self, _close_slots, self._slots, spawner)
        try:
            self.mode, self.mode_reason = resolve_mode(mode, trial=self._trial)
        except BaseException:
            self._finalizer()
            raise
        finally:
            countdown.finish()
        for slot in self._slots:
            slot.mode = self.mode
            if self.mode != BUBBLEWRAP:  # bubblewrap workers started for nothing
                slot.settle(keep=False)
        if self.unmasked:
            self.mode_reason += ("; these answer keys cannot be masked and stay visible: "
                                 + ", ".join(self.unmasked))
        self._taking = threading.Condition()  # guards `_taken` and `_typical`
        self._taken = {slot: 0 for slot in self._slots}  # programs given to each slot
        self._typical = 0.0  # seconds a program runs, lately (a running average)
        self._executor = ThreadPoolExecutor(PIPELINE_DEPTH * workers,
                                            thread_name_prefix="codetrial-sandbox")
        self._closed = False

    def _trial(self, exe: str) -> dict:
        """The mode probe's trial, in slot 0's worker; the other workers start meanwhile
        (under bubblewrap: a slot's mode until the sandbox resolves its own)."""
        for slot in self._slots[1:]:
            slot.begin()
        return self._slots[0].adopt(exe)

    def start(self) -> None:
        """Start every worker now, in the background (programs wait for theirs), instead of
        when the first programs arrive."""
        if self._closed:
            raise RuntimeError("the sandbox is closed")
        for slot in self._slots:
            slot.begin()

    @property
    def uids(self) -> list[int]:
        """The uids programs run as (empty when not root): for leak checks."""
        return [slot.uid for slot in self._slots if slot.uid is not None]

    @property
    def masked(self) -> list[str]:
        """The hidden paths that programs see empty (bubblewrap mode)."""
        return bwrap.masked(self.hidden) if self.mode == BUBBLEWRAP else []

    @property
    def unmasked(self) -> list[str]:
        """Hidden paths that programs can still see: in the process mode every one that
        exists; with bubblewrap those that hold what programs need (site-packages, say)."""
        if self.mode == BUBBLEWRAP:
            return bwrap.unmaskable(self.hidden)
        return [p for p in self.hidden if os.path.exists(p)]

    @property
    def worker_pids(self) -> list[int]:
        return [slot.worker.pid for slot in self._slots if slot.worker is not None]

    @property
    def restarts(self) -> int:
        return sum(slot.restarts for slot in self._slots)

    def _run(self, program: Program, limits: Limits, watch: Watch | None = None) -> Outcome:
        slot = self._take()
        outcome = None
        try:
            outcome = slot.run(program, limits, watch)
            return outcome
        finally:
            self._give_back(slot, outcome)

    def _take(self) -> Slot:
        """An idle slot, else (while programs are short) one whose worker has a program but
        none sent ahead. A program sent ahead waits for the one before it, even if another
        worker frees up first: worth it only when that wait is short."""
        with self._taking:
            while True:
                depths = (1, PIPELINE_DEPTH) if self._typical < PIPELINE_BELOW_SECONDS else (1,)
                for depth in depths:
                    for slot in self._slots:
                        if self._taken[slot] < depth:
                            self._taken[slot] += 1
                            return slot
                self._taking.wait()

    def _give_back(self, slot: Slot, outcome: Outcome | None) -> None:
        with self._taking:
            self._taken[slot] -= 1
            if outcome is not None:
                self._typical += (outcome.wall_seconds - self._typical) * TYPICAL_WEIGHT
            self._taking.notify()

    async def run(self, program: Program, limits: Limits = Limits(),  # noqa: B008
                  watch: Watch | None = None) -> Outcome:
        """Run one program; waits for a free worker. Never raises for what the program did.

        `watch(printed)`: called, from a sandbox thread, with all the program has printed so
        far, each time more complete lines came (not before 10 ms, at most every 10 ms: most
        programs end first); returning True stops the program (status "stopped"). For a
        caller that judges output as it comes and has seen enough."""
        import asyncio  # here: the command begins a sandbox before it imports asyncio

        if self._closed:
            raise RuntimeError("the sandbox is closed")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, program, limits, watch)

    def run_sync(self, program: Program, limits: Limits = Limits(),  # noqa: B008
                 watch: Watch | None = None) -> Outcome:
        if self._closed:
            raise RuntimeError("the sandbox is closed")
        return self._executor.submit(self._run, program, limits, watch).result()

    def close(self) -> None:
        """Stop every worker, after the programs already running (queued ones are dropped)."""
        if self._closed:
            return
        self._closed = True
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._finalizer()

    async def aclose(self) -> None:
        import asyncio

        await asyncio.get_running_loop().run_in_executor(None, self.close)

    async def __aenter__(self) -> Sandbox:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
