"""Constants of the worker, and small system calls: prctl, /proc, libc errors, reaping."""

from __future__ import annotations

import _ast  # noqa: F401 - compile() makes its ~120 AST types on first use: 2 ms in every child
import ctypes
import os
import signal
import struct

HEADER = struct.Struct(">I")
MAX_MESSAGE = 1 << 30
CHUNK = 1 << 16
RESULT_CAP = 32 << 20  # bytes of result/report data accepted from one program
ERRPIPE_CAP = 1 << 16
OUTPUT_HARD_FACTOR = 16  # kill a program once it has written this many times its output budget
DRAIN_SECONDS = 1.0
# A stream that brings a few bytes at a time (a line per answer, say) is read at most this
# often: a read at every write woke the worker about 1,700 times in a HumanEval run, each a
# context switch on a busy machine (a bulk writer is read as fast as it writes).
TRICKLE_SECONDS = 0.01
TRICKLE_BYTES = 4096
REAP_SECONDS = 3.0
MB = 1 << 20

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2

_libc = ctypes.CDLL(None, use_errno=True)





def prctl(option: int, arg: object = 0, arg2: object = 0) -> None:
    arg = ctypes.c_ulong(arg) if isinstance(arg, int) else arg
    arg2 = ctypes.c_ulong(arg2) if isinstance(arg2, int) else arg2
    if _libc.prctl(ctypes.c_int(option), arg, arg2, ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        raise libc_error(f"prctl({option})")


def libc_error(call: str) -> OSError:
    """The error of the libc call that just failed (ctypes keeps its errno)."""
    err = ctypes.get_errno()
    return OSError(err, f"{call}: {os.strerror(err)}")


def proc_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def own_status() -> bytes:
    return read_small("/proc/self/status") or b""


def status_field(status: bytes, name: bytes) -> bytes:
    start = status.find(b"\n" + name + b":")
    if start < 0:
        return b""
    start += len(name) + 2
    return status[start:status.find(b"\n", start)].strip()


def real_uid(status: bytes) -> bytes:
    """The real uid in a /proc status, as digits (empty if it has none)."""
    return (status_field(status, b"Uid").split() or [b""])[0]


def tasks_of_uid(uid: int) -> int:
    """The processes and threads whose real uid is `uid`: what RLIMIT_NPROC counts against a
    new process of that uid (a count of processes alone falls short by every thread)."""
    wanted, total = b"%d" % uid, 0
    for pid in proc_pids():
        status = read_small(f"/proc/{pid}/status") or b""
        if real_uid(status) == wanted:
            total += int(status_field(status, b"Threads") or b"1")
    return total


def vm_size_bytes(status: bytes) -> int:
    return int(status_field(status, b"VmSize").split()[0] or 0) * 1024


def read_small(path: str) -> bytes | None:
    """A /proc file's first 64 KB (without building a file object: this runs for every
    program). Those read here are a few KB; a 1 MB buffer cost 17 us more a read (its own
    mmap, mremap and munmap)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, 1 << 16)
    except OSError:
        return None
    finally:
        os.close(fd)


def oom_kill_count() -> int:
    """The kernel's global OOM-kill counter: tells a memory kill from any other SIGKILL."""
    data = read_small("/proc/vmstat") or b""
    start = data.find(b"\noom_kill ")
    return int(data[start + 10:data.find(b"\n", start + 1)]) if start >= 0 else -1


def reap_others(child: int | None) -> None:
    """Reap exited orphans (we are pid 1 or a subreaper) without touching `child`'s status."""
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if info is None or info.si_pid == child:
            return
        os.waitpid(info.si_pid, os.WNOHANG)


def arm_parent_death(cfg: dict) -> None:
    """Under bwrap, die with it (and so end the namespace) even when it is SIGKILLed. A plain
    process worker must outlive the harness instead, to kill and clean up what runs: it sees the
    harness go as end-of-file on its input."""
    if cfg["pidns"]:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
