"""One program's child: its descriptors, privileges, limits, environment and files, then
the program itself (Python code run as __main__, or a command line)."""

from __future__ import annotations

import _ast  # noqa: F401 - compile() makes its ~120 AST types on first use: 2 ms in every child
import _signal  # signal's functions without the enum wrapping (20 page faults in a child)
import base64
import builtins
import json
import linecache
import math
import os
import resource
import sys
import traceback
import types

import codetrial_exception_text as exception_text
from codetrial_frames import write_all
from codetrial_privileges import clear_capabilities
from codetrial_system import MB, own_status, status_field, tasks_of_uid, vm_size_bytes

CODE_RESULT_FD, CODE_SETUP_FD = 3, 4
ARGV_NONCE_FD, ARGV_REPORT_FD, ARGV_SETUP_FD = 3, 4, 5
LOW_FDS = 8  # held by the worker: every fd it makes is above a child's fixed ones
PROGRAM_NAME = "<program>"


class Channels:
    """The pipes between the worker and one child.

    stdin/stdout/stderr; a result channel (code: one JSON message; argv: `<nonce> <json>` report
    lines); a setup channel that is closed before program code runs, so only the sandbox's own
    set-up can ever write to it; and for argv a pipe pre-filled with the nonce.

    The stdin pipe is filled before the child exists, as far as it holds (`stdin_left`: the
    rest, for the watch to feed): a child then never waits for the worker to be scheduled to
    read its input, and the worker writes nothing for it while the child runs.
    """

    def __init__(self, argv_mode: bool, nonce: str, stdin: bytes = b"") -> None:
        self.argv_mode = argv_mode
        self.stdin_r, self.stdin_w = os.pipe()
        self.stdin_left = prefill(self.stdin_w, stdin)
        if not self.stdin_left:
            os.close(self.stdin_w)
            self.stdin_w = -1
        self.out_r, self.out_w = os.pipe()
        self.err_r, self.err_w = os.pipe()
        self.res_r, self.res_w = os.pipe()
        self.setup_r, self.setup_w = os.pipe()
        self.nonce_r = -1
        if argv_mode:
            self.nonce_r, nonce_w = os.pipe()
            os.write(nonce_w, nonce.encode() + b"\n")
            os.close(nonce_w)
        self.child_ends = tuple(fd for fd in (self.stdin_r, self.out_w, self.err_w, self.res_w,
                                              self.setup_w, self.nonce_r) if fd >= 0)

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
        for fd in self.child_ends:
            os.close(fd)

    def readers(self) -> dict[str, int]:
        return {"stdout": self.out_r, "stderr": self.err_r, "result": self.res_r,
                "setup": self.setup_r}


def prefill(fd: int, data: bytes) -> memoryview:
    """Write what the pipe `fd` takes of `data` now; what it could not take yet."""
    left = memoryview(data)
    if left:
        os.set_blocking(fd, False)
        try:
            left = left[os.write(fd, left):]
        except BlockingIOError:
            pass
    return left


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
        nproc += tasks_of_uid(os.getuid())
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
        exception_text.print_exception(exc, tb)
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
