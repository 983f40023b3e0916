"""The seccomp filter and the capabilities a program loses before its code runs."""

from __future__ import annotations

import _ast  # noqa: F401 - compile() makes its ~120 AST types on first use: 2 ms in every child
import ctypes
import os
import struct

from codetrial_system import (
    PR_SET_SECCOMP,
    SECCOMP_MODE_FILTER,
    _libc,
    libc_error,
    prctl,
)

# x86_64 syscalls a graded program never needs and that widen the kernel surface or escape the
# namespaces (a program may otherwise create a user namespace and be "root" inside it).
_DENY_X86_64 = {
    "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "mount_setattr": 442, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "add_key": 248,
    "request_key": 249, "keyctl": 250, "kexec_load": 246, "kexec_file_load": 320,
    "init_module": 175, "finit_module": 313, "delete_module": 176, "acct": 163, "swapon": 167,
    "swapoff": 168, "reboot": 169, "name_to_handle_at": 303, "open_by_handle_at": 304,
    "lookup_dcookie": 212, "quotactl": 179, "iopl": 172, "ioperm": 173,
}
_CLONE_X86_64, _CLONE3_X86_64 = 56, 435
_AUDIT_ARCH_X86_64 = 0xC000003E
_CLONE_NS_FLAGS = 0x7E020080  # CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET,TIME}
_RET_ALLOW, _RET_KILL = 0x7FFF0000, 0x80000000
_EPERM, _ENOSYS = 1, 38


def _bpf(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def seccomp_program() -> bytes | None:
    """A classic-BPF filter, or None on an architecture this table does not describe."""
    if os.uname().machine != "x86_64":
        return None
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    errno = 0x00050000
    prog = [
        _bpf(ld, 4), _bpf(jeq, _AUDIT_ARCH_X86_64, 1, 0), _bpf(ret, _RET_KILL),
        _bpf(ld, 0), _bpf(jge, 0x40000000, 0, 1), _bpf(ret, errno | _EPERM),  # x32 ABI
        _bpf(jeq, _CLONE3_X86_64, 0, 1), _bpf(ret, errno | _ENOSYS),  # libc falls back to clone
        _bpf(jeq, _CLONE_X86_64, 0, 4), _bpf(ld, 16), _bpf(jset, _CLONE_NS_FLAGS, 0, 1),
        _bpf(ret, errno | _EPERM), _bpf(ret, _RET_ALLOW),
    ]
    for nr in _DENY_X86_64.values():
        prog += [_bpf(jeq, nr, 0, 1), _bpf(ret, errno | _EPERM)]
    prog.append(_bpf(ret, _RET_ALLOW))
    return b"".join(prog)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Seccomp:
    """The filter as the kernel takes it, built once in the worker: each child only installs
    it (building ctypes objects in every child costs a few hundred microseconds)."""

    def __init__(self, prog: bytes) -> None:
        self.buffer = ctypes.create_string_buffer(prog, len(prog))
        self.fprog = _SockFprog(len(prog) // 8, ctypes.cast(self.buffer, ctypes.c_void_p))

    def install(self) -> None:
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(self.fprog))


_FILTER = seccomp_program()
SECCOMP = Seccomp(_FILTER) if _FILTER else None


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


_CAP_HEADER, _CAP_NONE = _CapHeader(0x20080522, 0), (_CapData * 2)()  # built once, as SECCOMP


def capset(data: ctypes.Array) -> None:
    if _libc.capset(ctypes.byref(_CAP_HEADER), data) != 0:
        raise libc_error("capset")


def clear_capabilities() -> None:
    """Empty every capability set."""
    capset(_CAP_NONE)


def clear_inheritable() -> None:
    """Empty the worker's inheritable set, and with it the ambient one: they are all that a
    child's setresuid would leave behind, so a child normally needs no capset (a first ctypes
    call in every child costs about 40 page faults). The worker never execs: they are unused."""
    data = (_CapData * 2)()
    if _libc.capget(ctypes.byref(_CAP_HEADER), data) != 0:
        raise libc_error("capget")
    for half in data:
        half.inheritable = 0
    capset(data)
