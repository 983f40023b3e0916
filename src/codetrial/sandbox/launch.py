"""How a worker is started in each mode, and which unprivileged uid its programs run as.

Every worker gets its own uid: RLIMIT_NPROC counts all processes of a uid, so with a shared uid
one program's fork bomb would stop every other worker's programs from forking. A uid is claimed
with a lock file, which also keeps two harness processes on one machine apart.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import pwd
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from importlib import resources

from codetrial.sandbox import bwrap, bytecode
from codetrial.sandbox.judged import STDLIB
from codetrial.sandbox.procs import kill_all, pids_of_uid

UID_BASE = int(os.environ.get("CODETRIAL_SANDBOX_UID_BASE", "65100"))
UID_SPAN = 400
LOCK_DIR = "/tmp/codetrial-sandbox-uids"
BUBBLEWRAP, PROCESS = "bubblewrap", "process"
# The worker's own modules (codetrial/inside/), which it imports at its start, and the
# standalone modules that programs import, by these names (order: dependencies first).
WORKER_PARTS = {f"codetrial_{name}": f"{name}.py" for name in (
    "frames", "system", "privileges", "exception_text", "child", "channel", "capture",
    "outcome", "proctree", "cleanup", "workfiles", "server")}
PROXY_PARTS = ("handles", "conversions", "tracebacks", "values", "proxy")
PRELOADED = {"codetrial_plain": "plain.py", "codetrial_audit": "audit.py",
             **{f"codetrial_{name}": f"{name}.py" for name in PROXY_PARTS},
             "codetrial_forked": "forked.py", "codetrial_judge": "judge.py",
             "codetrial_subject": "subject.py", "codetrial_expected": "expected.py",
             "codetrial_unittest": "unittest.py"}
MODULE_FILES = {**WORKER_PARTS, **PRELOADED}
# Loaded only when a sandbox's preload names codetrial_unittest (or preloads everything): it
# imports unittest.mock, and with it asyncio, ssl and more, a third of a worker's start.
UNITTEST_MODULES = ("codetrial_subject", "codetrial_expected", "codetrial_unittest")


@dataclass
class Options:
    tmpfs_mb: int = 512
    shm_mb: int = 64
    # what programs import, so that workers import it once: None is all of PRELOADED and
    # STDLIB; a tuple (a suite's preload) lists everything besides codetrial's judges
    preload: tuple[str, ...] | None = None
    hidden: tuple[str, ...] = ()  # answer keys masked inside the sandbox (bubblewrap only)

    def our_modules(self) -> list[str]:
        """The worker's parts, and which of PRELOADED the workers load: all of them unless
        `preload` is given, then those that do not need unittest, and unittest's if `preload`
        names it."""
        wanted = self.preload is None or "codetrial_unittest" in self.preload
        return [*WORKER_PARTS,
                *(name for name in PRELOADED if wanted or name not in UNITTEST_MODULES)]

    def other_modules(self) -> list[str]:
        """What the workers import besides ours: the standard library's modules and a suite's
        libraries."""
        if self.preload is None:
            return list(STDLIB)
        return [name for name in self.preload if name not in PRELOADED]


@dataclass
class Launch:
    """One worker's command line, and what to remove once it is gone."""

    argv: list[str]
    cwd: str = "/"
    scratch: str | None = None  # a host directory of the process mode, removed afterwards
    uid: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    nested: bool = False  # the worker is the init of a pid namespace below the launched process

    def discard(self) -> None:
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)


class UidClaim:
    """An unused uid held for as long as this object lives (or until `release`)."""

    def __init__(self) -> None:
        _private_dir(LOCK_DIR)
        flags = os.O_CREAT | os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW
        for uid in range(UID_BASE, UID_BASE + UID_SPAN):
            if _is_real_user(uid):
                continue
            fd = os.open(f"{LOCK_DIR}/{uid}.lock", flags, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            kill_all(pids_of_uid(uid))  # whatever a crashed earlier holder left running
            return
        raise RuntimeError(f"no free sandbox uid in {UID_BASE}..{UID_BASE + UID_SPAN - 1}")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _private_dir(path: str) -> None:
    """Create `path` for us alone, or refuse one that someone else could have prepared."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise RuntimeError(f"{path} must be a directory owned by uid {os.geteuid()}, "
                           "writable by it alone")


def _is_real_user(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def worker_file() -> str:
    return str(resources.files("codetrial.inside").joinpath("worker.py"))


def module_files(names: list[str] | None = None) -> dict[str, str]:
    """Files of the modules workers preload for programs (see judged.py), by import name:
    `names`, else all of them."""
    here = resources.files("codetrial.inside")
    return {name: str(here.joinpath(MODULE_FILES[name])) for name in names or MODULE_FILES}


def _config(uid: int | None, pidns: bool, workdir: str, options: Options,
            modules: dict[str, str]) -> str:
    bindir = os.path.dirname(sys.executable)
    return json.dumps({
        "uid": uid, "gid": uid, "pidns": pidns, "workdir": workdir,
        "shm_dir": "/dev/shm" if pidns else None,
        "mqueue_dir": "/dev/mqueue" if pidns else None,
        "scrub_dirs": [] if pidns or uid is None else ["/tmp", "/var/tmp", "/dev/shm"],
        "site_dirs": bwrap.site_dirs(), "preload": options.other_modules(),
        "modules": modules,
        "path": f"{bindir}:/usr/local/bin:/usr/bin:/bin",
    })


def bubblewrap_launch(bwrap_exe: str, uid: int | None, options: Options) -> Launch:
    inside = {name: bwrap.module_path(name) for name in options.our_modules()}
    config = _config(uid, True, bwrap.WORKDIR, options, inside)
    argv = bwrap.command(bwrap_exe, worker_file(), config, uid=uid, tmpfs_mb=options.tmpfs_mb,
                         shm_mb=options.shm_mb, modules=module_files(),
                         hidden=options.hidden, bytecode=_bytecode())
    return Launch(argv=argv, uid=uid, nested=True)


@functools.cache
def _bytecode() -> str | None:
    """The pycs of what a bubblewrap worker runs, made once per content (see bytecode.py)."""
    sources = {name: (path, bwrap.module_path(name)) for name, path in module_files().items()}
    sources[bwrap.WORKER_NAME] = (worker_file(), bwrap.WORKER_PATH)
    folder = bytecode.compiled(sources)
    return str(folder) if folder else None


def process_launch(uid: int | None, options: Options) -> Launch:
    """The weak mode: the same worker as a plain process in a private scratch directory. It has
    no mount namespace, so `options.hidden` stays visible (see Sandbox.unmasked)."""
    scratch = tempfile.mkdtemp(prefix="codetrial-sandbox-")
    os.chmod(scratch, 0o711)
    config = _config(uid, False, os.path.join(scratch, "w", "run"), options,
                     module_files(options.our_modules()))
    argv = [sys.executable, "-I", "-S", "-X", "utf8", worker_file(), config]
    return Launch(argv=argv, cwd=scratch, scratch=scratch, uid=uid)
