"""The sandbox: a pool of warm workers, each running one untrusted program at a time.

The pool is thread-based rather than bound to one event loop: each worker is driven by
blocking, deadline-checked I/O in threads of the pool's own (two per worker: one waits for the
answer to the program it runs, one has sent it the next), so `run` works from any event loop
and `run_sync` from plain code. Worker processes are all spawned from one more thread that lives
until the workers are stopped: bwrap's --die-with-parent fires when the spawning *thread* exits.
"""

from __future__ import annotations

import itertools
import os
import shutil
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from codetrial.sandbox import bwrap, launch
from codetrial.sandbox.launch import BUBBLEWRAP, Launch, Options, UidClaim
from codetrial.sandbox.mode import is_root, plain_trial, resolve_mode, run_trial
from codetrial.sandbox.protocol import to_outcome, to_request
from codetrial.sandbox.types import Limits, Outcome, Program
from codetrial.sandbox.worker import WorkerFailure, WorkerProcess

_ids = itertools.count(1)
PIPELINE_DEPTH = 2  # programs in one worker's hands: the one it runs and the next (see _Slot)
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


# What a running program printed so far -> whether to stop it now (see Sandbox.run)
Watch = Callable[[str], bool]


class _Printed:
    """A program's output as it comes, handed whole to its watch; a watch that fails is taken
    for one that never says stop (the limit still holds)."""

    def __init__(self, watch: Watch | None) -> None:
        self.watch, self.text = watch, ""

    def heard(self, more: str) -> bool:
        self.text += more
        try:
            return self.watch is not None and bool(self.watch(self.text))
        except Exception:  # noqa: BLE001 - the caller's fault must not cost the worker
            return False


class _Slot:
    """One worker position in the pool: its uid, and its worker (restarted when needed).

    Two programs may be in a worker's hands: the one it runs and the next, sent ahead so that
    it starts as soon as the worker has answered (waking a harness thread to send it took
    longer than many programs run). Requests are sent, and so answered, in turn: each waits
    for the answer before its own. Only the request whose turn it is may replace the worker;
    one that was sent ahead to a worker replaced meanwhile is sent again.
    """

    def __init__(self, options: Options, margin: float, spawner: ThreadPoolExecutor,
                 spawned: Callable[[], None]) -> None:
        self.mode = BUBBLEWRAP  # until the sandbox has resolved its mode
        self._spawned = spawned  # called when this slot's first worker process exists
        self.options, self.margin = options, margin
        self.spawner = spawner
        self.claim = UidClaim() if is_root() else None
        self.worker: WorkerProcess | None = None
        self.starting: Future[None] | None = None  # a start begun before a program needs it
        # guards `starting` (set by begin() from the caller's thread), `worker`, `queued`
        # and `restarts` (changed by the threads that send and answer requests)
        self.lock = threading.Lock()
        self.restarts = 0
        self.sending = threading.Lock()  # held while a request joins the queue and is sent
        self.last_turn = threading.Event()  # set once the last request sent is done with
        self.last_turn.set()
        self.queued = 0  # requests sent or being sent and not yet done with
        self.queued_seconds = 0.0  # the longest they may take: a write may wait that long

    @property
    def uid(self) -> int | None:
        return self.claim.uid if self.claim else None

    def adopt(self, exe: str) -> dict:
        """The mode probe's trial, run in this slot's own first worker, which it keeps (one
        worker start instead of two). Should that fail, a plain trial decides: these options
        may be what failed, and then every program says so."""
        try:
            worker = self.spawner.submit(
                WorkerProcess.start, launch.bubblewrap_launch(exe, self.uid, self.options),
                spawned=self._first_spawn()).result()
            run_trial(worker, self.uid)
        except (WorkerFailure, OSError, RuntimeError):
            return plain_trial(exe)
        self.worker = worker
        return worker.ready

    def begin(self) -> None:
        """Start this slot's worker in the background, unless it has one or one is coming."""
        with self.lock:
            if self.worker is None and self.starting is None:
                self.starting = self.spawner.submit(self._start_quietly)

    def _first_spawn(self) -> Callable[[], None]:
        spawned, self._spawned = self._spawned, lambda: None
        return spawned

    def _start_quietly(self) -> None:
        try:
            self.worker = WorkerProcess.start(self._launch(), spawned=self._first_spawn())
        except WorkerFailure:
            pass  # started again, and its failure reported, by the first program

    def settle(self, keep: bool) -> None:
        """Wait for a start begun earlier; drop its worker unless `keep` (the probe chose
        bubblewrap)."""
        with self.lock:
            starting, self.starting = self.starting, None
        if starting is not None:
            starting.result()
        if not keep and self.worker is not None:
            self.worker.kill()
            self.worker = None

    def _launch(self) -> Launch:
        if self.mode == BUBBLEWRAP:
            return launch.bubblewrap_launch(shutil.which("bwrap") or "bwrap", self.uid,
                                            self.options)
        return launch.process_launch(self.uid, self.options)

    def _ready(self) -> WorkerProcess:
        self.settle(keep=True)
        if self.worker is not None and not self.worker.alive():
            self.discard()
        if self.worker is None:
            self.worker = self.spawner.submit(WorkerProcess.start, self._launch()).result()
        return self.worker

    def run(self, program: Program, limits: Limits, watch: Watch | None) -> Outcome:
        request = to_request(program, limits, next(_ids), stream=watch is not None)
        timeout = limits.wall_seconds + self.margin
        while True:
            try:
                worker, ahead, turn, unsent = self._send(request, timeout)
            except WorkerFailure as exc:  # no worker could be started
                return Outcome(status="sandbox_error", detail=str(exc))
            try:
                ahead.wait()
                if worker is self.worker:
                    return self._answer(worker, request, timeout, unsent, watch)
            finally:
                self._leave(timeout)
                turn.set()
            # the program before ours ended its worker, and took our request with it: again

    def _send(self, request: dict, timeout: float
              ) -> tuple[WorkerProcess, threading.Event, threading.Event, str | None]:
        """Queue `request` behind those sent before it and write it to the worker: the worker
        it went to, the turn to wait for, ours, and why it could not be written (or None)."""
        with self.sending:
            with self.lock:
                worker = self.worker if self.queued else None
                self.queued += 1
                self.queued_seconds += timeout
                wait = self.queued_seconds
            try:
                worker = worker or self._ready()  # nothing ahead: a dead worker is replaced
            except BaseException:
                self._leave(timeout)
                raise
            ahead, turn = self.last_turn, threading.Event()
            self.last_turn = turn
            return worker, ahead, turn, worker.send(request, wait)

    def _leave(self, timeout: float) -> None:
        """A request sent (or given up) is done with: it no longer counts as queued."""
        with self.lock:
            self.queued -= 1
            self.queued_seconds -= timeout

    def _answer(self, worker: WorkerProcess, request: dict, timeout: float,
                unsent: str | None, watch: Watch | None) -> Outcome:
        """Our turn, on the worker that has our request (or failed to take it)."""
        try:
            if unsent:
                worker.fail(unsent)
            reply = worker.receive(request, timeout, _Printed(watch).heard)
        except WorkerFailure as exc:
            self.discard(worker)
            return Outcome(status="sandbox_error", detail=str(exc))
        if reply.get("restart"):
            self.discard(worker)
        return to_outcome(reply)

    def discard(self, worker: WorkerProcess | None = None) -> None:
        """Kill `worker` (by default the current one) before anything replaces it: a kill
        also ends every process of the slot's uid, which a new worker would share."""
        worker = worker or self.worker
        if worker is None:
            return
        worker.kill()
        with self.lock:
            if self.worker is worker:
                self.worker = None
                self.restarts += 1

    def close(self) -> None:
        self.settle(keep=True)  # a start still under way ends first, then is stopped
        if self.worker is not None:
            self.worker.stop()
            self.worker = None
        if self.claim:
            self.claim.release()


def _close_slots(slots: list[_Slot], spawner: ThreadPoolExecutor) -> None:
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
        self._slots = [_Slot(options, margin_seconds, spawner, countdown.tick)
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

    def _take(self) -> _Slot:
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

    def _give_back(self, slot: _Slot, outcome: Outcome | None) -> None:
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
