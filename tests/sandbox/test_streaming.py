"""A running program's output reaches the caller's watch, which may stop it (Sandbox.run's
`watch`): the stop comes in time, the worker goes on with the next program, and a watch that
fails or never says stop changes nothing."""

from __future__ import annotations

import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor

from codetrial.sandbox import Limits, Program, Sandbox

SPEAKS_THEN_LOOPS = textwrap.dedent("""
    import time
    for i in range(3):
        print("line", i, flush=True)
        time.sleep(0.02)
    print("verdict decided", flush=True)
    while True:
        pass
""")
SLOW_AND_DONE = textwrap.dedent("""
    import time
    for i in range(5):
        print("line", i, flush=True)
        time.sleep(0.02)
    __results__ = "done"
""")
LIMITS = Limits(wall_seconds=20, cpu_seconds=20)


def test_a_watch_that_has_seen_enough_stops_the_program(sandbox):
    seen: list[str] = []

    def watch(printed: str) -> bool:
        seen.append(printed)
        return "verdict decided" in printed

    outcome = sandbox.run_sync(Program(code=SPEAKS_THEN_LOOPS), LIMITS, watch)
    assert outcome.status == "stopped", outcome
    assert outcome.wall_seconds < 5  # not the 20 s limit
    assert "verdict decided" in outcome.stdout
    assert seen[-1].endswith("verdict decided\n")
    assert all(later.startswith(earlier) for earlier, later in zip(seen, seen[1:], strict=False))
    assert len(seen) >= 2  # the lines came as they were printed, not all at the end


def test_a_watch_that_never_says_stop_sees_every_line_and_changes_nothing(sandbox):
    seen: list[str] = []
    outcome = sandbox.run_sync(Program(code=SLOW_AND_DONE), LIMITS,
                               lambda printed: seen.append(printed) or False)
    assert (outcome.status, outcome.report) == ("ok", "done")
    assert seen and seen[-1].count("line") >= 4


def test_a_failing_watch_is_one_that_never_says_stop(sandbox):
    def watch(printed: str) -> bool:
        raise RuntimeError("a bug of the caller")

    outcome = sandbox.run_sync(Program(code=SLOW_AND_DONE), LIMITS, watch)
    assert (outcome.status, outcome.report) == ("ok", "done")


def test_the_programs_sent_ahead_of_a_stop_run_next_in_order(bubblewrap):
    """One worker: the next programs are in its hands while the first streams; the stop for
    the first still finds it, and every later program gets its own answer."""
    with Sandbox(workers=1) as sb, ThreadPoolExecutor(6) as pool:
        started = threading.Event()

        def watch(printed: str) -> bool:
            started.set()
            return "verdict decided" in printed

        first = pool.submit(sb.run_sync, Program(code=SPEAKS_THEN_LOOPS), LIMITS, watch)
        started.wait(10)
        rest = [pool.submit(sb.run_sync, Program(code=f"__results__ = {i}"))
                for i in range(5)]
        assert first.result().status == "stopped"
        assert [(f.result().status, f.result().report) for f in rest] == [
            ("ok", i) for i in range(5)]
        assert sb.restarts == 0


def test_a_program_without_a_watch_sends_nothing_while_it_runs(sandbox, monkeypatch):
    from codetrial.sandbox import worker as worker_module

    heard: list[str] = []
    receive = worker_module.WorkerProcess.receive

    def spying(self, request, timeout, heard_fn=lambda s: False):  # noqa: ANN001, ANN202
        return receive(self, request, timeout, lambda s: heard.append(s) or heard_fn(s))

    monkeypatch.setattr(worker_module.WorkerProcess, "receive", spying)
    outcome = sandbox.run_sync(Program(code=SLOW_AND_DONE), LIMITS)
    assert outcome.status == "ok" and heard == []
