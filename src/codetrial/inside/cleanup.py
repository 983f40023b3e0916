"""After every program: kill what it left running, remove what it wrote, check IPC."""

from __future__ import annotations

import _ast  # noqa: F401 - compile() makes its ~120 AST types on first use: 2 ms in every child
import ctypes
import os
import signal
import time

from codetrial_proctree import below
from codetrial_system import (
    REAP_SECONDS,
    _libc,
    arm_parent_death,
    proc_pids,
    read_small,
    real_uid,
    reap_others,
    status_field,
)


def find_victims(cfg: dict) -> set[int]:
    """Every process a program may have left: the whole pid namespace when we have one,
    else our descendants (we are their subreaper) and anything running as the sandbox uid
    (one raw read of each process's status: parent and uid)."""
    me, pids = os.getpid(), proc_pids()
    if cfg["pidns"]:
        return {pid for pid in pids if pid not in (1, me)}
    uid = None if cfg.get("uid") is None else b"%d" % cfg["uid"]
    parents, victims = {}, set()
    for pid in pids:
        status = read_small(f"/proc/{pid}/status")
        if not status:
            continue  # gone meanwhile
        parents[pid] = int(status_field(status, b"PPid") or b"0")
        if real_uid(status) == uid:
            victims.add(pid)
    victims |= below(me, parents)
    victims.discard(me)
    return victims


def childless() -> bool:
    """No child left, running or not. In our pid namespace that means no process but us: the
    topmost living process of any chain is our child (we are init: orphans come to us).
    Outside one it means no descendant left (we are their subreaper), but not that no process
    runs as the sandbox uid."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return False


def kill_leftovers(cfg: dict) -> bool:
    """SIGKILL until nothing is left (a fork bomb keeps forking while we kill); reap as we go."""
    end = time.monotonic() + REAP_SECONDS
    while True:
        reap_others(None)
        if childless() and (cfg["pidns"] or cfg.get("uid") is None):
            return True  # the usual case, without listing /proc (a millisecond or more)
        victims = find_victims(cfg)
        if not victims:
            return True
        if time.monotonic() > end:
            return False
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.001)


def empty_dir(path: str) -> None:
    """Remove what a program wrote, even directories it made unreadable to itself."""
    os.chmod(path, 0o700)
    with os.scandir(path) as it:
        entries = list(it)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            empty_dir(entry.path)
            os.rmdir(entry.path)
        else:
            os.unlink(entry.path)


def as_sandbox_user(cfg: dict, fn, *args) -> bool:
    """Run a cleanup step with the program's uid: the worker keeps no DAC override, and the
    files to remove belong to that uid. False when the step failed."""
    uid = cfg.get("uid")
    try:
        if uid is not None:
            os.setresuid(-1, uid, -1)
        try:
            fn(*args)
        finally:
            if uid is not None:
                os.setresuid(-1, 0, -1)
                arm_parent_death(cfg)  # any change of credentials clears it
        return True
    except (OSError, RecursionError):
        return False


def clear_shm(path: str) -> None:
    """Our private /dev/shm (sticky, 1777): whatever is in it belongs to the program."""
    for name in os.listdir(path):
        remove_entry(os.path.join(path, name))


def remove_entry(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        empty_dir(path)
        os.rmdir(path)
    else:
        os.unlink(path)


def scrub_shared(cfg: dict) -> None:
    """Process mode: remove what the program's uid left in the host's shared temp dirs."""
    for shared in cfg.get("scrub_dirs", ()):
        try:
            entries = [e.path for e in os.scandir(shared)
                       if e.stat(follow_symlinks=False).st_uid == cfg["uid"]]
        except OSError:
            continue
        for path in entries:
            as_sandbox_user(cfg, remove_entry, path)


IPC_TABLES = ("/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg")
SHM_INFO, SEM_INFO, MSG_INFO = 14, 19, 12


class _ShmInfo(ctypes.Structure):
    _fields_ = [("used_ids", ctypes.c_int)] + [
        (name, ctypes.c_ulong) for name in ("tot", "rss", "swp", "attempts", "successes")]


class _SemInfo(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int) for name in (
        "semmap", "semmni", "semmns", "semmnu", "semmsl", "semopm", "semume", "semusz",
        "semvmx", "semaem")]


class _MsgInfo(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int) for name in (
        "msgpool", "msgmap", "msgmax", "msgmnb", "msgmni", "msgssz", "msgtql")] + [
        ("msgseg", ctypes.c_ushort)]


_IPC_INFO = (_ShmInfo(), _SemInfo(), _MsgInfo())  # built once, as SECCOMP


def sysv_objects() -> int | None:
    """The shared memory segments, semaphore sets and message queues in our IPC namespace,
    or None if the kernel does not say (its *_INFO calls take 1.5 us each here; reading
    /proc/sysvipc took 30 us a file, after every program)."""
    shm, sem, msg = _IPC_INFO
    if (_libc.shmctl(0, SHM_INFO, ctypes.byref(shm)) < 0
            or _libc.semctl(0, 0, SEM_INFO, ctypes.byref(sem)) < 0
            or _libc.msgctl(0, MSG_INFO, ctypes.byref(msg)) < 0):
        return None
    return shm.used_ids + sem.semusz + msg.msgpool


def ipc_left(cfg: dict) -> bool:
    """SysV IPC objects or POSIX message queues outlive their processes: a program could pass
    data to the next one through them. Rare enough that a fresh namespace is the cleanup."""
    if not cfg["pidns"]:
        return False
    left = sysv_objects()
    if left is None:  # count the lines after each table's header instead
        left = sum((read_small(t) or b"").strip().count(b"\n") for t in IPC_TABLES)
    if left:
        return True
    mqueue = cfg.get("mqueue_dir")
    return bool(mqueue and os.path.isdir(mqueue) and os.listdir(mqueue))


def clean_up(wd: str, cfg: dict) -> bool:
    """Empty the workdir as the program's uid, then remove it as ourselves (we own its parent).
    What a program left no trace in costs no change of uid: the empty workdir goes at once."""
    scrub_shared(cfg)
    healthy = True
    if not removed_if_empty(wd):
        healthy = as_sandbox_user(cfg, empty_dir, wd) and removed_if_empty(wd)
    shm = cfg.get("shm_dir")
    if shm and os.listdir(shm):
        healthy = as_sandbox_user(cfg, clear_shm, shm) and not os.listdir(shm) and healthy
    return healthy and not os.listdir(os.path.dirname(wd)) and not ipc_left(cfg)


def removed_if_empty(path: str) -> bool:
    try:
        os.rmdir(path)
        return True
    except OSError:
        return False
