"""Watching one child: its output captured within budget, its stdin fed, its time kept."""

from __future__ import annotations

import _ast  # noqa: F401 - compile() makes its ~120 AST types on first use: 2 ms in every child
import math
import os
import resource
import select
import signal
import time

from codetrial_channel import Harness
from codetrial_child import Channels
from codetrial_system import (
    CHUNK,
    DRAIN_SECONDS,
    ERRPIPE_CAP,
    OUTPUT_HARD_FACTOR,
    RESULT_CAP,
    TRICKLE_BYTES,
    TRICKLE_SECONDS,
    reap_others,
)

# A program that asked for its output to stream sends the lines it printed so far this long
# after its start, then at most this often (only when there are new ones). Most programs are
# done before the first: they send nothing more than before.
STREAM_AFTER_SECONDS = 0.01
STREAM_EVERY_SECONDS = 0.01


class Capture:
    """Keeps the first `keep` bytes of a stream and counts the rest."""

    def __init__(self, keep: int) -> None:
        self.keep, self.total, self.data, self.eof = keep, 0, bytearray(), False

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.data)
        if room > 0:
            self.data += chunk[:room]

    @property
    def truncated(self) -> bool:
        return self.total > self.keep

    def text(self, label: str, at_least: bool) -> str:
        text = self.data.decode("utf-8", "replace")
        if self.truncated:
            total = f"{'at least ' if at_least else ''}{self.total} bytes"
            text += f"\n[codetrial: {label} truncated: {total} written, first {self.keep} kept]"
        return text


class Watch:
    """Feeds stdin, captures output, and enforces the wall-time and output limits of one child;
    for a request that asks it (`stream`), sends the harness what the child printed so far and
    stops the child when the harness says so (see codetrial_channel).

    Made just before the fork, its clock starting then, and run once the child exists. Every
    page the worker writes while its child lives is copied (the first write after a fork: 3.4
    us here, against 1.1 us once the child is gone), so all that can be ready before is, and
    the first thing run does is wait."""

    def __init__(self, ch: Channels, req: dict, harness: Harness) -> None:
        self.pid, self.ch, self.harness = 0, ch, harness
        self.ident, self.limits = req.get("id"), req["limits"]
        self.streamed = 0  # bytes of stdout sent to the harness so far
        self.listening = False  # to the harness: from the first lines sent on
        self.killed_for: str | None = None
        self.over_cap = ""
        keep = int(self.limits["max_output_bytes"])
        self.hard_cap = max(keep * OUTPUT_HARD_FACTOR, 256 * 1024)
        caps = {"stdout": keep, "stderr": keep, "result": RESULT_CAP, "setup": ERRPIPE_CAP}
        readers = ch.readers()
        self.captures = {fd: Capture(caps[name]) for name, fd in readers.items()}
        self.stdin = ch.stdin_left  # what the pipe did not take before the fork
        self.status = 0
        self.rusage: resource.struct_rusage | None = None
        self.wall = 0.0
        # the setup pipe is read once the child is gone (see drain)
        self.pipes = [fd for fd in self.captures if fd != readers["setup"]]
        self.sel = self._poll()
        self.started = time.monotonic()
        self.deadline = self.started + float(self.limits["wall_seconds"])
        self.stream_at = self.started + STREAM_AFTER_SECONDS if req.get("stream") else None
        # fd of a trickling stream -> when it is read again; each starts resting
        self.resting = {fd: self.started + TRICKLE_SECONDS for fd in self.pipes}
        self.first_wait_ms = math.ceil(self._wait_for(self.deadline - self.started) * 1000)

    def _poll(self) -> select.poll:
        """A plain poll (no epoll descriptor per program, no selector objects) of every pipe but
        the setup one: its end, as program code starts, would wake us for nothing. Each pipe
        starts resting (only a hang-up wakes us: for most programs, their exit), and the
        harness too, until it may say stop: it may have sent the next request already."""
        sel = select.poll()
        for fd in self.captures:
            os.set_blocking(fd, False)
        for fd in [*self.pipes, self.harness.fd]:
            sel.register(fd, 0)
        if self.stdin:
            sel.register(self.ch.stdin_w, select.POLLOUT)
        return sel

    def capture(self, name: str) -> Capture:
        return self.captures[self.ch.readers()[name]]

    def run(self, pid: int) -> None:
        """Watch child `pid`, forked just now, until it ends or must be killed."""
        self.pid = pid
        events = self.sel.poll(self.first_wait_ms)
        pidfd = self._pidfd(self.sel)
        try:
            self._loop(self.sel, events)
        finally:
            self._close_stdin()
            if pidfd is not None:
                os.close(pidfd)
        self._finish()

    def _pidfd(self, sel: select.poll) -> int | None:
        try:
            pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            return None  # the loop still polls the child every 0.25 s
        sel.register(pidfd, select.POLLIN)
        return pidfd

    def _loop(self, sel: select.poll, events: list[tuple[int, int]]) -> None:
        while True:
            for fd, event in events:
                if fd == self.harness.fd:
                    self.killed_for = self._hear(event)
                    if self.killed_for:
                        return
                elif fd == self.ch.stdin_w:
                    self._feed_stdin(sel)
                elif fd in self.captures:
                    self._read(sel, fd)
            self._wake_rested(sel)
            if self.stream_at is not None and time.monotonic() >= self.stream_at:
                self._stream(sel)
            reap_others(self.pid)
            self.over_cap = self._over_cap()
            if self.over_cap:
                self.killed_for = "output_limit"
                return
            if os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
                return
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                self.killed_for = "timeout"
                return
            events = sel.poll(math.ceil(self._wait_for(remaining) * 1000))

    def _wait_for(self, remaining: float) -> float:
        """Seconds until the next poll must end: the deadline, a resting stream, the next lines
        to send, 0.25 at most."""
        wake = min(self.resting.values(), default=math.inf)
        if self.stream_at is not None:
            wake = min(wake, self.stream_at)
        return min(remaining, 0.25, max(0.0, wake - time.monotonic()))

    def _hear(self, event: int) -> str | None:
        """Why the child must be killed, after what the harness sent (or its hang-up)."""
        if not event & select.POLLIN:
            return "abandoned"
        said = self.harness.listen(self.ident)
        return {"stop": "stopped", "gone": "abandoned"}.get(said)

    def _stream(self, sel: select.poll) -> None:
        """Send the complete lines the child printed since the last time, if any."""
        fd = self.ch.readers()["stdout"]
        capture = self.captures[fd]
        if not capture.eof:
            self._read(sel, fd)  # what the pipe holds now, resting or not
        end = capture.data.rfind(b"\n") + 1
        if end > self.streamed:
            text = bytes(capture.data[self.streamed:end]).decode("utf-8", "replace")
            self.harness.interim(self.ident, text)
            self.streamed = end
            if not self.listening:
                sel.modify(self.harness.fd, select.POLLIN)
                self.listening = True
        self.stream_at = time.monotonic() + STREAM_EVERY_SECONDS

    def _wake_rested(self, sel: select.poll) -> None:
        now = time.monotonic()
        for fd, until in list(self.resting.items()):
            if until <= now:
                del self.resting[fd]
                sel.modify(fd, select.POLLIN)

    def _read(self, sel: select.poll | None, fd: int) -> None:
        try:
            chunk = os.read(fd, CHUNK)
        except BlockingIOError:
            return
        if chunk:
            self.captures[fd].add(chunk)
            if sel is not None and len(chunk) < TRICKLE_BYTES:  # the pipe holds what comes
                sel.modify(fd, 0)  # meanwhile; a hang-up still wakes the loop
                self.resting[fd] = time.monotonic() + TRICKLE_SECONDS
            return
        self.captures[fd].eof = True
        self.resting.pop(fd, None)
        if sel is not None:
            sel.unregister(fd)

    def _feed_stdin(self, sel: select.poll) -> None:
        try:
            self.stdin = self.stdin[os.write(self.ch.stdin_w, self.stdin[:CHUNK]):]
        except BlockingIOError:
            return
        except OSError:  # the program closed its stdin: what it did not read is dropped
            self.stdin = self.stdin[:0]
        if not self.stdin:
            sel.unregister(self.ch.stdin_w)
            self._close_stdin()

    def _close_stdin(self) -> None:
        if self.ch.stdin_w >= 0:
            os.close(self.ch.stdin_w)
            self.ch.stdin_w = -1

    def _over_cap(self) -> str:
        """Why the program has written too much to go on, or ""."""
        out = self.capture("stdout").total + self.capture("stderr").total
        if out > self.hard_cap:
            return f"killed after writing more than {self.hard_cap} bytes of output"
        if self.capture("result").total > RESULT_CAP:
            return f"killed after writing more than {RESULT_CAP} bytes of results"
        return ""

    def _finish(self) -> None:
        if self.killed_for:
            for kill in (os.killpg, os.kill):
                try:
                    kill(self.pid, signal.SIGKILL)
                except OSError:
                    pass
        _, self.status, self.rusage = os.wait4(self.pid, 0)
        self.wall = time.monotonic() - self.started

    def drain(self) -> None:
        """Read what is left once every writer is dead, then close the read ends. Each pipe
        is read first and waited for only when it is empty but open: a dead writer's pipe
        holds its data and its end (no poll a pipe, as each took before)."""
        end = time.monotonic() + DRAIN_SECONDS
        for fd, cap in self.captures.items():
            while not cap.eof and time.monotonic() < end:
                total = cap.total
                self._read(None, fd)
                if not cap.eof and cap.total == total and not select_readable(
                        fd, end - time.monotonic()):
                    break
            os.close(fd)

    @property
    def cpu_seconds(self) -> float:
        return self.rusage.ru_utime + self.rusage.ru_stime if self.rusage else 0.0


def select_readable(fd: int, timeout: float) -> bool:
    sel = select.poll()
    sel.register(fd, select.POLLIN)
    return bool(sel.poll(math.ceil(max(timeout, 0) * 1000)))
