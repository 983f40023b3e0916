"""The worker's loop: read a request, run the program, answer, and what happens once
at start (site directories, preloads, the filter every child inherits)."""

from __future__ import annotations

import _ast  # noqa: F401 - compile() makes its ~120 AST types on first use: 2 ms in every child
import gc
import os
import signal
import sys
import traceback

from codetrial_capture import Watch
from codetrial_channel import Harness
from codetrial_child import (
    LOW_FDS,
    PROGRAM_NAME,
    STREAMS,
    Channels,
    StdStreams,
    check_file_name,
    child_main,
    program_environment,
)
from codetrial_cleanup import as_sandbox_user, clean_up, kill_leftovers
from codetrial_outcome import judge
from codetrial_privileges import SECCOMP, clear_inheritable
from codetrial_system import (
    PR_SET_CHILD_SUBREAPER,
    PR_SET_DUMPABLE,
    PR_SET_NO_NEW_PRIVS,
    arm_parent_death,
    oom_kill_count,
    prctl,
)
from codetrial_workfiles import collect_files


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


def run_program(req: dict, cfg: dict, harness: Harness) -> dict:
    problem = check_request(req)
    if problem:
        return {"status": "error", "detail": problem}
    wd = cfg["workdir"]  # one path for every program: HOME (and the JVM's user.home) stay put
    os.mkdir(wd, 0o700)
    if cfg.get("uid") is not None:
        os.chown(wd, cfg["uid"], cfg["gid"])
    nonce = os.urandom(16).hex()
    oom_before = oom_kill_count()  # read again only if the program is SIGKILLed
    ch = Channels(bool(req.get("argv")), nonce, (req.get("stdin") or "").encode())
    watch = Watch(ch, req, harness)  # before the fork: see Watch
    pid = os.fork()
    if pid == 0:
        child_main(req, wd, ch, nonce, cfg)
    ch.close_child_ends()
    watch.run(pid)
    healthy = kill_leftovers(cfg)
    watch.drain()
    killed = os.WIFSIGNALED(watch.status) and os.WTERMSIG(watch.status) == signal.SIGKILL
    reply = judge(watch, req, nonce, oom_kill_count() - oom_before if killed else 0)
    if req.get("collect"):
        reply["files"], reply["dropped"] = collected(wd, cfg)
    if watch.killed_for == "abandoned":  # the harness went away: nobody to answer, so exit
        healthy = False
    if not (clean_up(wd, cfg) and healthy):
        reply["restart"] = True
        reply["detail"] = "; ".join(filter(None, [reply["detail"], "cleanup incomplete, the "
                                                  "worker restarts"]))
    return reply


def collected(wd: str, cfg: dict) -> tuple[dict | None, dict]:
    """The workdir's files, read with the program's uid (the worker has no DAC override);
    None when they could not be read (too deep a tree, say)."""
    found: list = []
    if not as_sandbox_user(cfg, lambda: found.append(collect_files(wd, cfg.get("uid")))):
        return None, {".": "the working directory could not be read whole"}
    return found[0]


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
    for name in cfg.get("modules", {}):  # by the entry's finder (worker.py), in order
        importlib.import_module(name)
    audit = sys.modules.get("codetrial_audit")
    if audit is not None:  # every program's working directory (and first import path)
        audit.resolve_ahead([cfg["workdir"]])
    os.environ.clear()
    os.environ.update(program_environment(cfg))
    STREAMS.append(StdStreams())
    sys.argv = [PROGRAM_NAME]  # what a program sees, set here once (a child would free ours)
    gc.freeze()  # children share these objects' pages instead of copying them on their first GC
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    if SECCOMP is not None:  # here, once: every child inherits the filter (and nothing we do
        SECCOMP.install()    # needs what it denies)



def serve(cfg: dict, harness: Harness) -> None:
    harness.reply({"ready": True, "pid": os.getpid(), "uid": os.getuid(),
                   "seccomp": SECCOMP is not None, "python": sys.version.split()[0]})
    while True:
        req = harness.next_request()
        if req is None:
            return
        try:
            reply = run_program(req, cfg, harness)
        except Exception:
            kill_leftovers(cfg)
            reply = {"status": "sandbox_error", "restart": True,
                     "detail": "worker failed: " + traceback.format_exc()}
        reply["id"] = req.get("id")
        try:
            harness.reply(reply)
        except OSError:  # the harness is gone
            return
        if reply.get("restart"):
            return


def main(cfg: dict) -> None:
    inp, out = protocol_fds()
    prepare(cfg)
    serve(cfg, Harness(inp, out))
    # Nothing is left to flush or clean (serve cleans up after every program), and tearing
    # down the preloaded interpreter would keep the harness waiting at every close: 15 ms.
    os._exit(0)

