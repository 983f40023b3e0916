"""One worker position of the sandbox's pool: its uid, its worker (restarted when needed), and
the requests in that worker's hands (the one it runs and the next, sent ahead).

Each request is answered by blocking, deadline-checked I/O in a thread of the pool's own; what a
streaming program printed so far goes to its watch from that thread (see Sandbox.run).
"""

from __future__ import annotations

import itertools
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from codetrial.sandbox import launch
from codetrial.sandbox.launch import BUBBLEWRAP, Launch, Options, UidClaim
from codetrial.sandbox.mode import is_root, plain_trial, run_trial
from codetrial.sandbox.protocol import to_outcome, to_request
from codetrial.sandbox.types import Limits, Outcome, Program
from codetrial.sandbox.worker import WorkerFailure, WorkerProcess

_ids = itertools.count(1)

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


class Slot:
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
