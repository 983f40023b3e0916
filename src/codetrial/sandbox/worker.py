"""The harness's handle on one worker process: start it, send a program, get an answer in time.

Anything unexpected (no answer within the deadline, a dead worker, a garbled reply) kills the
worker's whole process tree; the caller then starts a fresh one.
"""

from __future__ import annotations

import os
import select
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from typing import NoReturn

from codetrial.sandbox import protocol
from codetrial.sandbox.launch import Launch
from codetrial.sandbox.procs import descendants, kill_all, kill_tree, pids_of_uid

START_SECONDS = 30.0
KILL_GRACE_SECONDS = 1.0


class WorkerFailure(Exception):
    """The worker, not the program, failed: the outcome is a sandbox error."""


class WorkerProcess:
    """A started worker; its stderr goes to a private log that failures quote."""

    def __init__(self, launch: Launch) -> None:
        self.launch = launch
        self.ready: dict = {}
        self._log = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            launch.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            cwd=launch.cwd, env=launch.env, start_new_session=True, close_fds=True,
        )
        self._in, self._out = self._proc.stdin.fileno(), self._proc.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        # held while a request is written: the input is closed only between writes (one
        # thread may write the next request while another waits for the current answer)
        self._writing = threading.Lock()
        self._input_open = True

    @classmethod
    def start(cls, launch: Launch, timeout: float = START_SECONDS,
              spawned: Callable[[], None] = lambda: None) -> WorkerProcess:
        """The worker once it is ready; `spawned` is called as soon as its process exists
        (or could not be made), before it is ready."""
        try:
            worker = cls(launch)
        except OSError as exc:
            launch.discard()
            raise WorkerFailure(f"the worker could not be started: {exc}") from exc
        finally:
            spawned()
        try:
            worker.ready = protocol.recv(worker._out, time.monotonic() + timeout)
        except protocol.ChannelError as exc:
            tail = worker.log_tail()  # before kill() closes the log
            worker.kill()
            raise WorkerFailure(f"the worker did not start: {exc}{tail}") from exc
        return worker

    @property
    def pid(self) -> int:
        return self._proc.pid

    def alive(self) -> bool:
        return self._proc.poll() is None

    def call(self, request: dict, timeout: float) -> dict:
        """Send `request` and wait for its answer, `timeout` seconds in all."""
        deadline = time.monotonic() + timeout
        problem = self.send(request, timeout)
        if problem:
            self.fail(problem)
        return self.receive(request, max(0.0, deadline - time.monotonic()))

    def send(self, request: dict, timeout: float) -> str | None:
        """Write `request`, which the worker reads once it has answered those sent before it;
        None, or why it could not be written in `timeout` seconds. Nothing is killed here:
        whose fault it is depends on what the worker was doing (see slot.Slot)."""
        with self._writing:
            if not self._input_open:
                return "the worker's input is closed"
            try:
                protocol.send(self._in, request, time.monotonic() + timeout)
            except protocol.ChannelError as exc:
                return str(exc)
        return None

    def receive(self, request: dict, timeout: float,
                heard: Callable[[str], bool] = lambda stdout: False) -> dict:
        """The next answer, which must be `request`'s; the worker is killed (WorkerFailure)
        if none comes within `timeout` seconds. What the program printed while it ran (a
        request that asks to `stream`) goes to `heard` first, piece by piece; once `heard`
        returns True the worker is told to stop the program (its answer still comes)."""
        deadline = time.monotonic() + timeout
        stopping = False
        while True:
            try:
                reply = protocol.recv(self._out, deadline)
            except protocol.ChannelError as exc:
                self.fail(str(exc))
            if reply.get("id") != request.get("id"):
                self.fail("the worker answered another request")
            if not reply.get("interim"):
                return reply
            if heard(str(reply.get("stdout", ""))) and not stopping:
                stopping = True
                self._stop(request, deadline)

    def _stop(self, request: dict, deadline: float) -> None:
        with self._writing:  # between whole requests: the next may have been sent ahead
            if not self._input_open:
                return  # closing: the limit still ends the program
            try:
                protocol.send(self._in, {"stop": request["id"]}, deadline)
            except protocol.ChannelError as exc:
                problem = str(exc)
            else:
                return
        self.fail(f"could not ask the worker to stop a program: {problem}")

    def fail(self, problem: str) -> NoReturn:
        """Kill the worker for `problem` (WorkerFailure, with the end of its stderr)."""
        tail = self.log_tail()  # before kill() closes the log
        self.kill()
        raise WorkerFailure(f"{problem}; the worker was killed{tail}")

    def log_tail(self, limit: int = 2000) -> str:
        try:
            self._log.seek(0)
            text = self._log.read().decode("utf-8", "replace")[-limit:].strip()
        except (OSError, ValueError):
            return ""
        return f" (worker stderr: {text})" if text else ""

    def kill(self) -> None:
        """SIGKILL the whole tree: the namespace, bwrap's group, whatever runs as the uid.

        Under bwrap the worker (the namespace's init, whose death ends everything inside) is
        killed first so that bwrap reaps it: killed the other way round, it would be left to
        the machine's init, which need not reap zombies.
        """
        if self._proc.returncode is None:  # never signal a reaped pid: it may be reused
            if self.launch.nested:
                kill_all(descendants(self._proc.pid))
                self._wait(KILL_GRACE_SECONDS)
            if self._proc.returncode is None:
                kill_tree(self._proc.pid, self.launch.uid)
                self._proc.wait()
        if self.launch.uid is not None:
            kill_all(pids_of_uid(self.launch.uid))
        self._close()

    def end_input(self) -> None:
        """EOF on the worker's input: it exits once its program is done (see stop)."""
        with self._writing:  # a write under way fails first: kill() signals before it closes
            self._input_open = False
            try:
                self._proc.stdin.close()
            except OSError:
                pass

    def stop(self, grace: float = 2.0) -> None:
        """Ask the worker to exit (EOF on its input); kill it if it does not."""
        self.end_input()
        self._wait(grace)
        self.kill()

    def _wait(self, timeout: float) -> None:
        """Reap the process if it exits within `timeout`. Popen.wait(timeout) polls, sleeping
        longer each time (a worker that exits in 3 ms is reaped 4 ms later); a pidfd wakes us
        when it exits. The pid is still ours to open: it is not reaped."""
        try:
            pidfd = os.pidfd_open(self._proc.pid)
        except OSError:  # no pidfds (Linux < 5.3): poll
            try:
                self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
            return
        try:
            if select.select([pidfd], [], [], timeout)[0]:
                self._proc.wait()
        finally:
            os.close(pidfd)

    def _close(self) -> None:
        self.end_input()
        for stream in (self._proc.stdout, self._log):
            try:
                stream.close()
            except OSError:
                pass
        self.launch.discard()
