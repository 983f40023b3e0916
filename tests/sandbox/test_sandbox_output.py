"""How the worker reads a program's output: a trickle of short lines is read in batches (not at
every line, each a wake-up of the worker), and nothing written before a kill is lost."""

from __future__ import annotations

import textwrap

from codetrial.sandbox import Limits, Program, Sandbox
from codetrial.sandbox.procs import descendants

LINES = 400
TRICKLE = f"""
import time
for i in range({LINES}):
    print(f"line {{i}}")
    time.sleep(0.0003)  # the worker would read each line before the next one came
"""


def worker_processes(sandbox: Sandbox) -> list[int]:
    """The processes that run the worker loop (under bwrap: the one process below it)."""
    if sandbox.mode != "bubblewrap":
        return list(sandbox.worker_pids)
    return [min(descendants(pid)) for pid in sandbox.worker_pids]


def wakeups(pids: list[int]) -> int:
    """Times these processes went to sleep (in poll, mostly) and were woken, so far."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as fh:
            total += sum(int(line.split()[1]) for line in fh
                         if line.startswith("voluntary_ctxt_switches"))
    return total


def test_a_trickle_of_short_lines_wakes_the_worker_far_less_often_than_it_writes(
        sandbox: Sandbox) -> None:
    sandbox.run_sync(Program(code="pass"))  # every worker is up
    sandbox.run_sync(Program(code="pass"))
    pids = worker_processes(sandbox)
    before = wakeups(pids)
    out = sandbox.run_sync(Program(code=textwrap.dedent(TRICKLE)))
    woken = wakeups(pids) - before
    assert out.status == "ok", out
    assert out.stdout == "".join(f"line {i}\n" for i in range(LINES))
    assert woken < LINES / 4, f"the worker woke {woken} times for {LINES} lines"


def test_what_a_program_printed_before_it_was_killed_is_kept(sandbox: Sandbox) -> None:
    program = "import sys, time\nprint('answer 1')\nsys.stderr.write('working\\n')\ntime.sleep(60)"
    out = sandbox.run_sync(Program(code=program), Limits(wall_seconds=1))
    assert out.status == "timeout", out
    assert out.stdout == "answer 1\n" and out.stderr == "working\n"


def test_a_bulk_writer_is_read_as_fast_as_it_writes(sandbox: Sandbox) -> None:
    """Big writes are not held back by the batching: 16 MB in 64 KB writes, all read, the
    output cap raised so that nothing is killed."""
    program = "import sys\nfor _ in range(256):\n    sys.stdout.write('z' * 65536)\n"
    out = sandbox.run_sync(Program(code=program), Limits(max_output_bytes=1_100_000))
    assert out.status == "ok", out
    assert out.truncated and "16777216 bytes written" in out.stdout
    assert out.wall_seconds < 2, out.wall_seconds  # 16 MB at 10 ms per pipeful: over 2.5 s
