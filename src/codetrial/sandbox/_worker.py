"""codetrial sandbox worker: a fork server that runs one untrusted program at a time.

Standalone on purpose (stdlib only, never imports codetrial): the harness bind-mounts this one
file into the sandbox and runs it with `python -I -S`. It reads length-prefixed JSON requests on
its stdin and answers on its stdout. Each program runs in a forked child that drops privileges,
sets rlimits and clears its environment before any program code runs. After every program the
worker kills every other process it can reach and removes the working directory, so nothing a
program started or wrote survives into the next one. Anything it cannot clean up makes it ask
the harness for a restart (a fresh namespace) instead of carrying on dirty.
"""

from __future__ import annotations

import _ast  # noqa: F401 - compile() makes its ~120 AST types on first use: 2 ms in every child
import _operator  # compare_digest without hmac, whose OpenSSL would be in every fork
import _signal  # signal's functions without the enum wrapping (20 page faults in a child)
import base64
import builtins
import ctypes
import gc
import json
import linecache
import math
import os
import resource
import select
import signal
import struct
import sys
import time
import traceback
import types

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


# ---------------------------------------------------------------- protocol


def read_exact(fd: int, n: int) -> bytes | None:
    parts, need = [], n
    while need:
        chunk = os.read(fd, min(need, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        need -= len(chunk)
    return b"".join(parts)


def read_msg(fd: int) -> dict | None:
    head = read_exact(fd, HEADER.size)
    if head is None:
        return None
    (size,) = HEADER.unpack(head)
    if size > MAX_MESSAGE:
        raise ValueError(f"message of {size} bytes is too large")
    body = read_exact(fd, size)
    return None if body is None else json.loads(body)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_msg(fd: int, obj: dict) -> None:
    body = json.dumps(obj).encode()
    write_all(fd, HEADER.pack(len(body)) + body)


# ---------------------------------------------------------------- small system helpers


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


def proc_status(pid: int) -> dict[str, str]:
    """Fields of /proc/<pid>/status; empty when the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)
    except OSError:
        return {}


def own_status() -> bytes:
    return read_small("/proc/self/status") or b""


def status_field(status: bytes, name: bytes) -> bytes:
    start = status.find(b"\n" + name + b":")
    if start < 0:
        return b""
    start += len(name) + 2
    return status[start:status.find(b"\n", start)].strip()


def vm_size_bytes(status: bytes) -> int:
    return int(status_field(status, b"VmSize").split()[0] or 0) * 1024


def read_small(path: str) -> bytes | None:
    """A /proc file's bytes (without building a file object: this runs for every program)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, 1 << 20)
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


# ---------------------------------------------------------------- seccomp

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


# ---------------------------------------------------------------- one child

CODE_RESULT_FD, CODE_SETUP_FD = 3, 4
ARGV_NONCE_FD, ARGV_REPORT_FD, ARGV_SETUP_FD = 3, 4, 5
LOW_FDS = 8  # held by the worker: every fd it makes is above a child's fixed ones
PROGRAM_NAME = "<program>"


class Channels:
    """The pipes between the worker and one child.

    stdin/stdout/stderr; a result channel (code: one JSON message; argv: `<nonce> <json>` report
    lines); a setup channel that is closed before program code runs, so only the sandbox's own
    set-up can ever write to it; and for argv a pipe pre-filled with the nonce.
    """

    def __init__(self, argv_mode: bool, nonce: str) -> None:
        self.argv_mode = argv_mode
        self.stdin_r, self.stdin_w = os.pipe()
        self.out_r, self.out_w = os.pipe()
        self.err_r, self.err_w = os.pipe()
        self.res_r, self.res_w = os.pipe()
        self.setup_r, self.setup_w = os.pipe()
        self.nonce_r = -1
        if argv_mode:
            self.nonce_r, nonce_w = os.pipe()
            os.write(nonce_w, nonce.encode() + b"\n")
            os.close(nonce_w)

    def child_map(self) -> list[tuple[int, int, bool]]:
        """(fd here, fd in the child, inheritable across exec)."""
        fds = [(self.stdin_r, 0, True), (self.out_w, 1, True), (self.err_w, 2, True)]
        if self.argv_mode:
            return fds + [(self.nonce_r, ARGV_NONCE_FD, True), (self.res_w, ARGV_REPORT_FD, True),
                          (self.setup_w, ARGV_SETUP_FD, False)]
        return fds + [(self.res_w, CODE_RESULT_FD, False), (self.setup_w, CODE_SETUP_FD, False)]

    @property
    def setup_fd(self) -> int:
        return ARGV_SETUP_FD if self.argv_mode else CODE_SETUP_FD

    def close_child_ends(self) -> None:
        for fd in (self.stdin_r, self.out_w, self.err_w, self.res_w, self.setup_w, self.nonce_r):
            if fd >= 0:
                os.close(fd)

    def readers(self) -> dict[str, int]:
        return {"stdout": self.out_r, "stderr": self.err_r, "result": self.res_r,
                "setup": self.setup_r}


def install_fds(mapping: list[tuple[int, int, bool]]) -> None:
    """Put each pipe end on its fixed number and close everything else (the worker's own pipes
    to the harness above all). Every pipe end is above every fixed number (see
    reserve_low_fds), so no dup2 can overwrite an end still to be moved."""
    top = 0
    for src, dst, inheritable in mapping:
        if src < LOW_FDS:
            raise RuntimeError(f"pipe end {src} is among the fixed fds of a child")
        os.dup2(src, dst, inheritable=inheritable)
        top = max(top, dst)
    os.closerange(top + 1, 2**31 - 2)


def child_main(req: dict, wd: str, ch: Channels, nonce: str, cfg: dict) -> None:
    """Runs in the forked child and never returns."""
    try:
        os.setsid()
        install_fds(ch.child_map())
        enter_sandbox(req, wd, cfg, ch.argv_mode)
    except BaseException:
        try:
            write_all(ch.setup_fd, json.dumps({"setup_error": traceback.format_exc()}).encode())
        finally:
            os._exit(121)
    try:
        if ch.argv_mode:
            exec_argv(req["argv"], ch.setup_fd)
        else:
            run_code(req["code"], wd, nonce, ch.setup_fd)
    except BaseException:  # a fault of this file, not of the program: say where
        try:
            write_all(2, f"codetrial sandbox: {traceback.format_exc()}".encode())
        finally:
            os._exit(120)
    os._exit(120)


def enter_sandbox(req: dict, wd: str, cfg: dict, argv_mode: bool) -> None:
    """Everything between fork and program code, in an order where each step still can."""
    try:  # under memory pressure the kernel picks the program, not the worker
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY | os.O_CLOEXEC)
        os.write(fd, b"1000")
        os.close(fd)
    except OSError:
        pass
    status = drop_privileges(cfg)  # no_new_privs and seccomp: set in the worker, inherited
    write_files(wd, req.get("files") or {})
    os.chdir(wd)
    set_environment(req, argv_mode)
    set_limits(req["limits"], cfg, vm_size_bytes(status))


def drop_privileges(cfg: dict) -> bytes:
    """Returns /proc/self/status as read to check the result."""
    uid, gid = cfg.get("uid"), cfg.get("gid")
    if uid is not None:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    status = own_status()
    if capabilities_left(status):  # the uid change cleared them all, unless the worker has
        clear_capabilities()       # inheritable ones (see clear_inheritable) or no uid to drop
        status = own_status()
    caps = capabilities_left(status)
    if caps:
        raise RuntimeError(f"capabilities left after dropping privileges: {caps}")
    if uid is not None and (os.getresuid() != (uid,) * 3 or os.getresgid() != (gid,) * 3):
        raise RuntimeError("could not switch to the sandbox uid/gid")
    return status


def capabilities_left(status: bytes) -> set[bytes]:
    """The non-empty capability sets in a /proc status ({} when all are empty)."""
    caps = {status_field(status, k) for k in (b"CapInh", b"CapPrm", b"CapEff", b"CapAmb")}
    return set() if caps == {b"0000000000000000"} else caps


def check_file_name(name: str) -> str | None:
    parts = name.split("/")
    if not name or "\0" in name or name.startswith("/") or any(
            p in ("", ".", "..") for p in parts):
        return f"invalid file name {name!r}: must be relative, without '.' or '..' parts"
    return None


def write_files(wd: str, files: dict) -> None:
    for name, spec in files.items():
        path = os.path.join(wd, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = base64.b64decode(spec["b64"]) if "b64" in spec else spec["text"].encode()
        with open(path, "wb") as fh:
            fh.write(data)


def program_environment(cfg: dict) -> dict[str, str]:
    """Every program's environment, before a request adds its own."""
    wd = cfg["workdir"]
    return {
        "PATH": cfg["path"], "HOME": wd, "TMPDIR": wd, "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
        # the JVM ignores TMPDIR, and /tmp is not the program's to write
        "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={wd}",
    }


def set_environment(req: dict, argv_mode: bool) -> None:
    """The worker's own environment is already every program's (see prepare): a child only
    adds what varies, instead of rebuilding all of it after every fork."""
    extra = dict(req.get("env") or {})
    if argv_mode:
        extra["CODETRIAL_NONCE_FD"] = str(ARGV_NONCE_FD)
        extra["CODETRIAL_REPORT_FD"] = str(ARGV_REPORT_FD)
    for key, value in extra.items():  # not update(): its Mapping check costs 15 page faults
        os.environ[key] = value


def own_process_count() -> int:
    uid = str(os.getuid())
    return sum(1 for pid in proc_pids() if proc_status(pid).get("Uid", "").split()[:1] == [uid])


def set_limit(which: int, soft: int, hard: int | None = None) -> None:
    """Lower a limit; never asks for more than the current hard limit allows."""
    hard = soft if hard is None else hard
    _, current = resource.getrlimit(which)
    if current != resource.RLIM_INFINITY:
        soft, hard = min(soft, current), min(hard, current)
    resource.setrlimit(which, (soft, hard))


def set_limits(limits: dict, cfg: dict, vm_size: int) -> None:
    """Limits relative to need (`vm_size`: the child's address space now), in the child only
    (an absolute address-space limit inherited from a big parent breaks thread start-up;
    RLIMIT_NPROC counts every process of the uid)."""
    set_limit(resource.RLIMIT_CORE, 0)
    cpu = max(1, math.ceil(limits["cpu_seconds"]))
    set_limit(resource.RLIMIT_CPU, cpu, cpu + 1)
    set_limit(resource.RLIMIT_FSIZE, int(limits["max_file_mb"] * MB))
    nproc = limits["max_processes"]
    if cfg.get("uid") is None:  # the uid is shared with the harness: count what already runs
        nproc += own_process_count()
    set_limit(resource.RLIMIT_NPROC, nproc)
    set_limit(resource.RLIMIT_AS, vm_size + int(limits["memory_mb"] * MB))


def exec_argv(argv: list[str], setup_fd: int) -> None:
    for sig in (_signal.SIGPIPE, _signal.SIGXFSZ, _signal.SIGINT):
        _signal.signal(sig, _signal.SIG_DFL)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        write_all(setup_fd, json.dumps({"exec_error": f"cannot run {argv[0]!r}: {exc}"}).encode())
        os._exit(127)


class StdStreams:
    """A program's stdin, stdout and stderr on fds 0-2, made once in the worker: a child gets
    them with empty buffers, since the worker never reads or writes them (its own fds 0-2 are
    /dev/null, and its sys streams stay apart)."""

    def __init__(self) -> None:
        # The interpreter's own streams, held so that a child that replaces them frees
        # nothing: freeing them cost every child about 40 page faults.
        self.replaced = (sys.stdin, sys.stdout, sys.stderr)
        opts = {"encoding": "utf-8", "closefd": False}
        self.stdin = open(0, errors="replace", **opts)
        self.stdout = open(1, "w", errors="backslashreplace", buffering=1, **opts)
        self.stderr = open(2, "w", errors="backslashreplace", buffering=1, **opts)

    def install(self) -> None:
        sys.stdin = sys.__stdin__ = self.stdin
        sys.stdout = sys.__stdout__ = self.stdout
        sys.stderr = sys.__stderr__ = self.stderr


STREAMS: list[StdStreams] = []  # made by prepare


def print_user_traceback(exc: BaseException) -> None:
    """The traceback from the program's first frame on: the worker's frames are noise."""
    tb = exc.__traceback__
    ours = print_user_traceback.__code__.co_filename  # not __file__: we may run from a pyc
    while tb is not None and tb.tb_frame.f_code.co_filename == ours:
        tb = tb.tb_next
    try:
        traceback.print_exception(type(exc), exc, tb)
    except BaseException:  # e.g. MemoryError again: the type name still reaches the harness
        pass


def exit_status(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    print(exc.code, file=sys.stderr)
    return 1


def run_code(code: str, wd: str, nonce: str, setup_fd: int) -> None:
    """exec the program as __main__; report how it ended on the private result fd."""
    linecache.cache[PROGRAM_NAME] = (len(code), None, code.splitlines(True), PROGRAM_NAME)
    sys.path.insert(0, wd)
    STREAMS[0].install()
    _signal.signal(_signal.SIGINT, _signal.default_int_handler)
    os.close(setup_fd)
    message: dict = {"nonce": nonce, "pid": os.getpid(), "completed": False}
    status = 1
    try:
        main = types.ModuleType("__main__")  # so pickle and unittest.main() find the program
        main.__builtins__ = builtins
        sys.modules["__main__"] = main
        exec(compile(code, PROGRAM_NAME, "exec"), main.__dict__)
        message.update(completed=True, results=main.__dict__.get("__results__"))
        status = 0
    except SystemExit as exc:
        message["exception"] = "SystemExit"
        status = exit_status(exc)
    except BaseException as exc:
        message["exception"] = type(exc).__name__
        print_user_traceback(exc)
    join_threads()
    payload = encode_result(message)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    write_all(CODE_RESULT_FD, payload)
    os._exit(status)


def join_threads() -> None:
    """Wait for non-daemon threads, as an interpreter does before it exits (a program that
    never imported threading has none)."""
    threading = sys.modules.get("threading")
    if threading is None:
        return
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            try:
                thread.join()
            except BaseException:
                pass


def encode_result(message: dict) -> bytes:
    try:
        return json.dumps(message).encode() + b"\n"
    except (TypeError, ValueError, RecursionError) as exc:
        print(f"codetrial: __results__ is not JSON-serializable: {exc}", file=sys.stderr)
        bad = {k: message[k] for k in ("nonce", "pid")}
        bad.update(completed=False, exception="ResultsNotJSON")
        return json.dumps(bad).encode() + b"\n"


# ---------------------------------------------------------------- watching one child


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
    """Feeds stdin, captures output, and enforces the wall-time and output limits of one child."""

    def __init__(self, pid: int, ch: Channels, limits: dict, stdin: bytes, harness: int) -> None:
        self.pid, self.ch, self.limits, self.harness = pid, ch, limits, harness
        self.started = time.monotonic()
        self.killed_for: str | None = None
        self.over_cap = ""
        keep = int(limits["max_output_bytes"])
        self.hard_cap = max(keep * OUTPUT_HARD_FACTOR, 256 * 1024)
        caps = {"stdout": keep, "stderr": keep, "result": RESULT_CAP, "setup": ERRPIPE_CAP}
        self.captures = {fd: Capture(caps[name]) for name, fd in ch.readers().items()}
        self.stdin = memoryview(stdin)
        self.resting: dict[int, float] = {}  # fd of a trickling stream -> when it is read again
        self.status = 0
        self.rusage: resource.struct_rusage | None = None
        self.wall = 0.0

    def capture(self, name: str) -> Capture:
        return self.captures[self.ch.readers()[name]]

    def run(self) -> None:
        # plain poll: no epoll descriptor per program, and no selector objects to make (in the
        # worker every page written after a fork costs a fault)
        sel = select.poll()
        for fd in self.captures:  # each starts resting: most programs are done before it wakes
            os.set_blocking(fd, False)
            sel.register(fd, 0)
            self.resting[fd] = self.started + TRICKLE_SECONDS
        pidfd = self._pidfd(sel)
        # only a hang-up: the harness may have sent the next request already (see _Slot)
        sel.register(self.harness, 0)
        if self.stdin:
            os.set_blocking(self.ch.stdin_w, False)
            sel.register(self.ch.stdin_w, select.POLLOUT)
        else:
            self._close_stdin()
        try:
            self._loop(sel)
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

    def _loop(self, sel: select.poll) -> None:
        deadline = self.started + float(self.limits["wall_seconds"])
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.killed_for = "timeout"
                return
            for fd, _ in sel.poll(math.ceil(self._wait_for(remaining) * 1000)):
                if fd == self.harness:
                    self.killed_for = "abandoned"
                    return
                if fd == self.ch.stdin_w:
                    self._feed_stdin(sel)
                elif fd in self.captures:
                    self._read(sel, fd)
            self._wake_rested(sel)
            reap_others(self.pid)
            self.over_cap = self._over_cap()
            if self.over_cap:
                self.killed_for = "output_limit"
                return
            if os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
                return

    def _wait_for(self, remaining: float) -> float:
        """Seconds until the next poll must end: the deadline, a resting stream, 0.25 at most."""
        wait = min(remaining, 0.25)
        if self.resting:
            wait = min(wait, max(0.0, min(self.resting.values()) - time.monotonic()))
        return wait

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
        """Read what is left once every writer is dead, then close the read ends."""
        end = time.monotonic() + DRAIN_SECONDS
        for fd, cap in self.captures.items():
            while not cap.eof and time.monotonic() < end:
                if not select_readable(fd, end - time.monotonic()):
                    break
                self._read(None, fd)
            os.close(fd)

    @property
    def cpu_seconds(self) -> float:
        return self.rusage.ru_utime + self.rusage.ru_stime if self.rusage else 0.0


def select_readable(fd: int, timeout: float) -> bool:
    sel = select.poll()
    sel.register(fd, select.POLLIN)
    return bool(sel.poll(math.ceil(max(timeout, 0) * 1000)))


# ---------------------------------------------------------------- what happened


def parse_result(data: bytes, nonce: str, pid: int) -> dict | None:
    """The last message the child itself wrote (forked copies of it carry another pid)."""
    last = None
    for line in data.splitlines():
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):  # a program may write anything to this fd
            continue
        if isinstance(msg, dict) and msg.get("pid") == pid and nonce_matches(msg.get("nonce"),
                                                                            nonce):
            last = msg
    return last


def nonce_matches(given: object, nonce: str) -> bool:
    """In constant time, and never raising whatever the program wrote (compare_digest raises
    on a non-ASCII string: the worker failed, and the program's result became an infra error,
    left out of every rate)."""
    return isinstance(given, str) and given.isascii() and _operator._compare_digest(given, nonce)


def parse_reports(data: bytes, nonce: str) -> tuple[list, int]:
    """Report lines `<nonce> <json>`; any other line is dropped and counted."""
    reports, dropped = [], 0
    for line in data.splitlines():
        if not line.strip():
            continue
        tag, _, body = line.partition(b" ")
        try:
            if not _operator._compare_digest(tag, nonce.encode()):
                raise ValueError("wrong nonce")
            reports.append(json.loads(body))
        except (ValueError, RecursionError):
            dropped += 1
    return reports, dropped


def signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def judge_signal(watch: Watch, sig: int, oom_kills: int) -> tuple[str, str]:
    cpu_limit = max(1, math.ceil(watch.limits["cpu_seconds"]))
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and watch.cpu_seconds >= cpu_limit - 0.05):
        return "timeout", f"CPU time limit of {cpu_limit} s exceeded"
    if sig == signal.SIGKILL and oom_kills > 0:
        return "oom", "killed by the kernel's out-of-memory killer"
    return "error", f"killed by {signal_name(sig)}"


def judge_code(watch: Watch, result: dict | None, exit_code: int | None) -> tuple[str, str]:
    if result is None:
        return "error", f"exited with status {exit_code} before the program finished"
    if result.get("completed"):
        return "ok", ""
    exc = result.get("exception", "")
    if exc == "MemoryError":
        return "oom", f"MemoryError (memory limit {watch.limits['memory_mb']} MB)"
    if exc == "SystemExit":
        return "error", f"called sys.exit({exit_code}) before the program finished"
    if exc == "ResultsNotJSON":
        return "error", "__results__ is not JSON-serializable"
    return "error", f"raised {exc}"


def judge_argv(watch: Watch, exit_code: int | None) -> tuple[str, str]:
    if exit_code == 0:
        return "ok", ""
    tail = watch.capture("stderr").data[-4096:].decode("utf-8", "replace").strip().splitlines()
    if tail and tail[-1].startswith("MemoryError"):
        return "oom", f"MemoryError (memory limit {watch.limits['memory_mb']} MB)"
    return "error", f"exit status {exit_code}"


def judge(watch: Watch, req: dict, nonce: str, oom_kills: int) -> dict:
    """The reply for one finished program: what it printed, reported, and how it ended."""
    exit_code = os.WEXITSTATUS(watch.status) if os.WIFEXITED(watch.status) else None
    sig = os.WTERMSIG(watch.status) if os.WIFSIGNALED(watch.status) else None
    at_least = watch.killed_for == "output_limit"
    out, err = watch.capture("stdout"), watch.capture("stderr")
    data = bytes(watch.capture("result").data)
    result, dropped = None, 0
    if req.get("argv"):
        report, dropped = parse_reports(data, nonce)
    else:
        result = parse_result(data, nonce, watch.pid)
        report = (result or {}).get("results")
    status, detail = verdict(watch, req, result, exit_code, sig, oom_kills)
    if dropped:
        detail = f"{detail}; " if detail else ""
        detail += f"dropped {dropped} report line(s) without the right nonce"
    return {
        "status": status, "detail": detail, "exit_code": exit_code, "signal": sig,
        "wall_seconds": round(watch.wall, 4), "cpu_seconds": round(watch.cpu_seconds, 4),
        "stdout": out.text("stdout", at_least), "stderr": err.text("stderr", at_least),
        "truncated": out.truncated or err.truncated, "report": report,
    }


def verdict(watch: Watch, req: dict, result: dict | None, exit_code: int | None,
            sig: int | None, oom_kills: int) -> tuple[str, str]:
    setup = bytes(watch.capture("setup").data)
    if setup:
        return "sandbox_error", setup_detail(setup)
    if watch.killed_for == "abandoned":
        return "sandbox_error", "the harness went away during the program"
    if watch.killed_for == "timeout":
        return "timeout", f"wall time limit of {watch.limits['wall_seconds']} s exceeded"
    if watch.killed_for == "output_limit":
        return "output_limit", watch.over_cap
    if sig is not None:
        return judge_signal(watch, sig, oom_kills)
    if req.get("argv"):
        return judge_argv(watch, exit_code)
    return judge_code(watch, result, exit_code)


def setup_detail(setup: bytes) -> str:
    try:
        msg = json.loads(setup)
        return msg.get("exec_error") or "sandbox set-up failed: " + msg.get("setup_error", "")
    except (ValueError, AttributeError):
        return "sandbox set-up failed: " + setup.decode("utf-8", "replace")


# ---------------------------------------------------------------- cleaning up


def stat_fields(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def descendants(root: int, pids: list[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid in pids:
        fields = stat_fields(pid)
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(pid)
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def find_victims(cfg: dict) -> set[int]:
    """Every process a program may have left: the whole pid namespace when we have one,
    else our descendants (we are their subreaper) and anything running as the sandbox uid."""
    me, pids = os.getpid(), proc_pids()
    if cfg["pidns"]:
        return {pid for pid in pids if pid not in (1, me)}
    victims = descendants(me, pids)
    if cfg.get("uid") is not None:
        uid = str(cfg["uid"])
        victims |= {p for p in pids if proc_status(p).get("Uid", "").split()[:1] == [uid]}
    victims.discard(me)
    return victims


def childless() -> bool:
    """No child left, running or not. In our pid namespace that means no process but us: the
    topmost living process of any chain is our child (we are init: orphans come to us)."""
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
        if cfg["pidns"] and childless():  # the usual case, without listing /proc
            return True
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


# ---------------------------------------------------------------- the server


def check_request(req: dict) -> str | None:
    if bool(req.get("code") is not None) == bool(req.get("argv")):
        return "a program needs exactly one of code and argv"
    if req.get("argv") and not all(isinstance(a, str) for a in req["argv"]):
        return "argv must be a list of strings"
    for name in req.get("files") or {}:
        problem = check_file_name(name)
        if problem:
            return problem
    return None


def run_program(req: dict, cfg: dict, harness: int) -> dict:
    problem = check_request(req)
    if problem:
        return {"status": "error", "detail": problem}
    wd = cfg["workdir"]  # one path for every program: HOME (and the JVM's user.home) stay put
    os.mkdir(wd, 0o700)
    if cfg.get("uid") is not None:
        os.chown(wd, cfg["uid"], cfg["gid"])
    nonce = os.urandom(16).hex()
    oom_before = oom_kill_count()  # read again only if the program is SIGKILLed
    ch = Channels(bool(req.get("argv")), nonce)
    pid = os.fork()
    if pid == 0:
        child_main(req, wd, ch, nonce, cfg)
    ch.close_child_ends()
    watch = Watch(pid, ch, req["limits"], (req.get("stdin") or "").encode(), harness)
    watch.run()
    healthy = kill_leftovers(cfg)
    watch.drain()
    killed = os.WIFSIGNALED(watch.status) and os.WTERMSIG(watch.status) == signal.SIGKILL
    reply = judge(watch, req, nonce, oom_kill_count() - oom_before if killed else 0)
    if watch.killed_for == "abandoned":  # the harness went away: nobody to answer, so exit
        healthy = False
    if not (clean_up(wd, cfg) and healthy):
        reply["restart"] = True
        reply["detail"] = "; ".join(filter(None, [reply["detail"], "cleanup incomplete, the "
                                                  "worker restarts"]))
    return reply


def protocol_fds() -> tuple[int, int]:
    """Move the harness pipes off 0/1 so stray writes cannot corrupt the protocol."""
    inp, out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    reserve_low_fds()
    return inp, out


def reserve_low_fds() -> None:
    """Hold every free fd below LOW_FDS open on /dev/null: the pipes made for a child then
    come above the numbers it gets them on, and it moves them with one dup2 each."""
    while True:
        fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        if fd >= LOW_FDS:
            os.close(fd)
            return


def arm_parent_death(cfg: dict) -> None:
    """Under bwrap, die with it (and so end the namespace) even when it is SIGKILLed. A plain
    process worker must outlive the harness instead, to kill and clean up what runs: it sees the
    harness go as end-of-file on its input."""
    if cfg["pidns"]:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def add_site_dir(path: str) -> None:
    """`path` and the directories its .pth files name, as site.addsitedir adds them, but
    without running their `import` lines: code of whatever is installed (a proxy's certificate
    hook, setuptools' distutils shim) has no business in the worker, and costs every start."""
    if path not in sys.path:
        sys.path.append(path)
    try:
        names = sorted(n for n in os.listdir(path) if n.endswith(".pth") and n[0] != ".")
    except OSError:
        return
    for name in names:
        try:
            with open(os.path.join(path, name), encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for line in lines:
            line = line.strip()
            if not line or line.startswith(("#", "import ", "import\t")):
                continue
            entry = os.path.join(path, line)
            if os.path.isdir(entry) and entry not in sys.path:
                sys.path.append(entry)


def prepare(cfg: dict) -> None:
    import importlib

    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as pid 1 this makes us immune from inside
    sys.dont_write_bytecode = True  # no pycs of ours left where programs read them
    for path in cfg.get("site_dirs", ()):
        add_site_dir(path)
    prctl(PR_SET_DUMPABLE, 0)  # same-uid programs cannot ptrace us or open /proc/<us>/fd
    clear_inheritable()
    arm_parent_death(cfg)
    if not cfg["pidns"]:
        prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphans of a program stay ours to find and kill
    parent = os.path.dirname(cfg["workdir"])  # ours: programs may not write next to their dir
    os.makedirs(parent, mode=0o711, exist_ok=True)
    os.chmod(parent, 0o711)
    for name in cfg.get("preload", ()):  # imported once here, not in every child
        try:
            importlib.import_module(name)
        except Exception:  # a missing optional module only costs start-up time later
            pass
    for name, path in cfg.get("modules", {}).items():
        load_module(name, path)
    os.environ.clear()
    os.environ.update(program_environment(cfg))
    STREAMS.append(StdStreams())
    sys.argv = [PROGRAM_NAME]  # what a program sees, set here once (a child would free ours)
    gc.freeze()  # children share these objects' pages instead of copying them on their first GC
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    if SECCOMP is not None:  # here, once: every child inherits the filter (and nothing we do
        SECCOMP.install()    # needs what it denies)


def load_module(name: str, path: str) -> None:
    """A module of the harness's that programs import by name (the judge): loaded once here,
    so that a program neither ships nor compiles it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def serve(cfg: dict, inp: int, out: int) -> None:
    write_msg(out, {"ready": True, "pid": os.getpid(), "uid": os.getuid(),
                    "seccomp": SECCOMP is not None, "python": sys.version.split()[0]})
    while True:
        req = read_msg(inp)
        if req is None:
            return
        try:
            reply = run_program(req, cfg, inp)
        except Exception:
            kill_leftovers(cfg)
            reply = {"status": "sandbox_error", "restart": True,
                     "detail": "worker failed: " + traceback.format_exc()}
        reply["id"] = req.get("id")
        try:
            write_msg(out, reply)
        except OSError:  # the harness is gone
            return
        if reply.get("restart"):
            return


def main() -> None:
    cfg = json.loads(sys.argv[1])
    inp, out = protocol_fds()
    prepare(cfg)
    serve(cfg, inp, out)
    # Nothing is left to flush or clean (serve cleans up after every program), and tearing
    # down the preloaded interpreter would keep the harness waiting at every close: 15 ms.
    os._exit(0)


if __name__ == "__main__":
    main()
