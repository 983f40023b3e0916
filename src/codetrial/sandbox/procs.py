"""Finding and killing processes through /proc: the harness's side of "leave nothing behind"."""

from __future__ import annotations

import os
import signal

from codetrial.inside.proctree import below


def all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _stat(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def real_uid(pid: int) -> int | None:
    """From /proc/<pid>/status (read raw: a sandbox start reads it for every process)."""
    try:
        fd = os.open(f"/proc/{pid}/status", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        status = os.read(fd, 1 << 16)
    except OSError:
        return None
    finally:
        os.close(fd)
    start = status.find(b"\nUid:")
    return int(status[start + 5:status.find(b"\n", start + 5)].split()[0]) if start >= 0 else None


def descendants(root: int) -> set[int]:
    fields = {pid: _stat(pid) for pid in all_pids()}
    return below(root, {pid: int(f[1]) for pid, f in fields.items() if len(f) > 1})


def pids_of_uid(uid: int) -> set[int]:
    return {pid for pid in all_pids() if real_uid(pid) == uid}


def kill_all(pids: set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def kill_tree(pid: int, uid: int | None = None) -> None:
    """SIGKILL a process, its group, its descendants and (when given) every process of `uid`."""
    victims = descendants(pid) | {pid}
    if uid is not None:
        victims |= pids_of_uid(uid)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    kill_all(victims)
