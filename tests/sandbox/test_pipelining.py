"""A worker gets its next program while it runs one (see sandbox/slot.py): answers keep their
order, a request sent ahead survives its worker's restart, and long programs are not queued
behind each other."""

from __future__ import annotations

import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from codetrial.sandbox import Limits, Program, Sandbox
from codetrial.sandbox import worker as worker_module


def code(source: str, stdin: str = "") -> Program:
    return Program(code=textwrap.dedent(source), stdin=stdin)


@pytest.fixture
def outstanding(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many requests each worker had unanswered, as each request was sent."""
    counts: dict[int, int] = {}
    seen: list[int] = []
    lock = threading.Lock()
    send, receive = worker_module.WorkerProcess.send, worker_module.WorkerProcess.receive

    def counting_send(self, request, timeout):  # noqa: ANN001, ANN202
        with lock:
            counts[id(self)] = counts.get(id(self), 0) + 1
            seen.append(counts[id(self)])
        return send(self, request, timeout)

    def counting_receive(self, request, timeout, *heard):  # noqa: ANN001, ANN002, ANN202
        try:
            return receive(self, request, timeout, *heard)
        finally:
            with lock:
                counts[id(self)] -= 1

    monkeypatch.setattr(worker_module.WorkerProcess, "send", counting_send)
    monkeypatch.setattr(worker_module.WorkerProcess, "receive", counting_receive)
    return seen


def run_together(sandbox: Sandbox, programs: list[Program]) -> list:
    with ThreadPoolExecutor(len(programs)) as pool:
        return list(pool.map(sandbox.run_sync, programs))


def test_programs_sent_ahead_are_answered_in_order(bubblewrap: None,
                                                   outstanding: list[int]) -> None:
    with Sandbox(workers=1) as sb:
        outs = run_together(sb, [code(f"__results__ = {i}") for i in range(24)])
    assert [(o.status, o.report) for o in outs] == [("ok", i) for i in range(24)]
    assert max(outstanding) == 2  # the next program was in the worker's hands, never more


def test_a_request_sent_ahead_survives_the_restart_of_its_worker(bubblewrap: None) -> None:
    """The first program leaves a SysV segment: its worker restarts once it has answered,
    and the program sent ahead to it runs on the new worker instead."""
    leaves_ipc = code("""
        import ctypes, time
        time.sleep(0.3)
        __results__ = ctypes.CDLL(None).shmget(0, 4096, 0o1600)
    """)
    with Sandbox(workers=1) as sb:
        first, second = run_together(sb, [leaves_ipc, code("__results__ = 'after'")])
        assert first.status == "ok" and first.report >= 0, first
        assert (second.status, second.report) == ("ok", "after"), second
        assert sb.restarts == 1


def test_a_program_sent_ahead_of_one_that_times_out_runs_after_it(bubblewrap: None) -> None:
    with Sandbox(workers=1) as sb:
        with ThreadPoolExecutor(2) as pool:
            stuck = pool.submit(sb.run_sync, code("while True: pass"), Limits(wall_seconds=1))
            time.sleep(0.2)  # the endless one runs; the next is sent ahead to the same worker
            after = pool.submit(sb.run_sync, code("__results__ = 'after'"))
            outs = [stuck.result(), after.result()]
        assert [(o.status, o.report) for o in outs] == [("timeout", None), ("ok", "after")]
        assert sb.restarts == 0


def test_a_big_request_sent_ahead_waits_for_its_worker(bubblewrap: None) -> None:
    """More than a pipe holds: its writing waits until the worker reads it."""
    big = "x" * 400_000
    with Sandbox(workers=1) as sb:
        outs = run_together(sb, [code("import time\ntime.sleep(0.3)\n__results__ = 1"),
                                 code("import sys\n__results__ = len(sys.stdin.read())", big)])
    assert [(o.status, o.report) for o in outs] == [("ok", 1), ("ok", 400_000)]


def test_long_programs_are_not_queued_behind_each_other(bubblewrap: None) -> None:
    """Once programs run long, one waits for an idle worker rather than behind another."""
    with Sandbox(workers=2) as sb:
        for _ in range(6):
            sb.run_sync(code("import time\ntime.sleep(0.3)"))
        long_done = threading.Event()
        long = threading.Thread(target=lambda: (sb.run_sync(code(
            "import time\ntime.sleep(4)")), long_done.set()))
        long.start()
        time.sleep(0.5)  # the long program runs on one worker
        outs = run_together(sb, [code("__results__ = 1"), code("__results__ = 2")])
        assert not long_done.is_set()
        long.join()
    assert [(o.status, o.report) for o in outs] == [("ok", 1), ("ok", 2)]
