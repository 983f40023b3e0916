"""Resource limits: each runaway program is stopped quickly, classified, and the worker that ran
it is fit for the next program."""

from __future__ import annotations

import os
import signal
import textwrap
import time

from codetrial.sandbox import Limits, Outcome, Program, Sandbox
from codetrial.sandbox.procs import descendants


def code(source: str) -> Program:
    return Program(code=textwrap.dedent(source))


def timed(sandbox: Sandbox, program: Program, limits: Limits) -> tuple[Outcome, float]:
    started = time.monotonic()
    out = sandbox.run_sync(program, limits)
    return out, time.monotonic() - started


def assert_healthy(sandbox: Sandbox) -> None:
    for _ in range(2):  # both workers
        out = sandbox.run_sync(code("print('still fine')"))
        assert out.status == "ok" and out.stdout == "still fine\n", out


def test_fork_bomb_is_contained(sandbox: Sandbox) -> None:
    bomb = """
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
    """
    restarts = sandbox.restarts
    out, took = timed(sandbox, code(bomb), Limits(wall_seconds=2, max_processes=32))
    assert out.status == "timeout", out
    assert took < 5
    assert_healthy(sandbox)
    assert sandbox.restarts == restarts  # the worker cleaned up after it by itself


def test_process_limit_applies_to_subprocesses(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(code("""
        import subprocess
        procs, refused = [], None
        for i in range(20):
            try:
                procs.append(subprocess.Popen(["sleep", "30"]))
            except OSError as exc:
                refused = i
                break
        __results__ = refused
    """), Limits(max_processes=5))
    assert out.status == "ok", out.stderr
    assert out.report is not None and out.report <= 5


def test_allocating_10_gb_is_oom(sandbox: Sandbox) -> None:
    out, took = timed(sandbox, code("x = bytearray(10 * 1024 ** 3)"), Limits(memory_mb=512))
    assert out.status == "oom", out
    assert "MemoryError" in out.stderr and took < 5
    assert_healthy(sandbox)


def test_memory_within_the_limit_is_fine(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(code("x = bytearray(300 * 1024 ** 2)\n__results__ = len(x)"),
                           Limits(memory_mb=512))
    assert out.status == "ok" and out.report == 300 * 1024**2


def test_printing_a_gigabyte_is_cut_short(sandbox: Sandbox) -> None:
    gigabyte = """
        import sys
        chunk = "x" * (1 << 20)
        for _ in range(1024):
            sys.stdout.write(chunk)
    """
    limits = Limits(max_output_bytes=64_000, wall_seconds=30)
    out, took = timed(sandbox, code(gigabyte), limits)
    assert out.status == "output_limit", out
    assert took < 3  # killed at the cap rather than drained
    assert out.truncated and out.stdout.startswith("x" * 64_000)
    assert len(out.stdout) < 64_000 + 200 and "[codetrial: stdout truncated" in out.stdout


def test_output_over_the_budget_but_under_the_cap_is_truncated_only(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(code("print('y' * 200_000)"), Limits(max_output_bytes=10_000))
    assert out.status == "ok" and out.truncated
    assert out.stdout.startswith("y" * 10_000) and "200001 bytes written" in out.stdout


def test_cpu_spin_is_a_timeout(sandbox: Sandbox) -> None:
    out, took = timed(sandbox, code("while True:\n    pass"),
                      Limits(cpu_seconds=1, wall_seconds=20))
    assert out.status == "timeout" and "CPU" in out.detail, out
    assert took < 5


def test_sleeping_forever_is_a_timeout(sandbox: Sandbox) -> None:
    out, took = timed(sandbox, code("import time\ntime.sleep(3600)"), Limits(wall_seconds=1))
    assert out.status == "timeout" and "wall time" in out.detail, out
    assert 1 <= took < 1 + 3


def test_file_size_limit(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(code("open('big', 'wb').write(b'x' * (20 * 1024 ** 2))"),
                           Limits(max_file_mb=8))
    assert out.status == "error" and "File too large" in out.stderr, out


def test_a_stuck_worker_is_killed_and_replaced(bubblewrap: None, leftovers) -> None:
    with Sandbox(workers=1, mode="bubblewrap", margin_seconds=1.0) as sb:
        assert sb.run_sync(code("pass")).status == "ok"
        (bwrap_pid,) = sb.worker_pids
        (worker_pid,) = descendants(bwrap_pid)
        os.kill(worker_pid, signal.SIGSTOP)  # the worker itself stops answering
        out, took = timed(sb, code("pass"), Limits(wall_seconds=0.5))
        assert out.status == "sandbox_error" and "did not answer" in out.detail, out
        assert took < 0.5 + 1.0 + 2.5
        assert not os.path.exists(f"/proc/{worker_pid}") and not os.path.exists(
            f"/proc/{bwrap_pid}")
        again = sb.run_sync(code("print('new worker')"))
        assert again.status == "ok" and sb.restarts == 1
        assert leftovers(sb) == []


def test_the_disk_a_program_can_fill_is_capped_and_emptied(bubblewrap: None) -> None:
    """The working directory lives on /tmp, a tmpfs of the sandbox's size that is not the
    program's to write outside it, and /dev/shm is one of 64 MB: filling them ends with ENOSPC
    at their size, and the next program finds nothing of it (tests/hardening's "fill the disk"
    attack meets the same caps under a 2 s limit)."""
    fill = """
        import errno, os
        chunk = b'x' * (1 << 20)
        written = {}
        for where in ('.', '/tmp', '/dev/shm'):
            total, i = 0, 0
            try:
                while True:
                    with open(os.path.join(where, f'fill{i}'), 'wb') as fh:
                        for _ in range(4):
                            fh.write(chunk)
                            total += len(chunk)
                    i += 1
            except OSError as exc:
                written[where] = [total, errno.errorcode.get(exc.errno)]
        __results__ = written
    """
    look = """
        import os
        __results__ = [n for p in ('.', '/tmp', '/dev/shm') for n in os.listdir(p)
                       if n.startswith('fill')]
    """
    limits = Limits(wall_seconds=60, cpu_seconds=60, max_file_mb=8)
    with Sandbox(workers=1, tmpfs_mb=16) as sb:
        out = sb.run_sync(code(fill), limits)
        after = sb.run_sync(code(look))
    assert out.status == "ok", out
    mb = 1 << 20
    assert {where: stopped for where, (_, stopped) in out.report.items()} == {
        ".": "ENOSPC", "/tmp": "EACCES", "/dev/shm": "ENOSPC"}
    assert 8 * mb <= out.report["."][0] <= 16 * mb and out.report["/tmp"][0] == 0
    assert 32 * mb <= out.report["/dev/shm"][0] <= 64 * mb
    assert after.status == "ok" and after.report == []


def test_a_shared_uid_counts_threads_against_the_process_limit() -> None:
    """A harness that is not root shares its uid with its programs (the process mode), so a
    program's RLIMIT_NPROC adds what already runs as that uid: the kernel counts threads too,
    and so must the count, or a harness with many threads leaves its programs no fork."""
    import pytest

    from codetrial.inside.system import tasks_of_uid

    if os.geteuid() != 0:
        pytest.skip("needs root to run a process as a uid of its own")
    uid = 65099  # below the sandbox's uids, and no real user's
    ready_r, ready_w = os.pipe()
    stop_r, stop_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # five threads as `uid`, until told to stop
        try:
            import threading

            os.setresuid(uid, uid, uid)
            threads = [threading.Thread(target=os.read, args=(stop_r, 1)) for _ in range(4)]
            for thread in threads:
                thread.start()
            os.write(ready_w, b"x")
            for thread in threads:
                thread.join()
        finally:
            os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"x"
        assert tasks_of_uid(uid) == 5
    finally:
        os.write(stop_w, b"xxxx")
        os.waitpid(pid, 0)
    assert tasks_of_uid(uid) == 0
