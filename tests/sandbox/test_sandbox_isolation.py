"""What a program must not reach: the network, the harness's environment and files, anything
outside its workdir, privileges, other programs; and what it leaves must not survive it."""

from __future__ import annotations

import os
import socket
import textwrap
import uuid
from pathlib import Path

import pytest

from codetrial.sandbox import Program, Sandbox


def code(source: str) -> Program:
    return Program(code=textwrap.dedent(source))


@pytest.fixture
def listener() -> socket.socket:
    """A TCP server on the host's loopback: the sandbox must not reach it either."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        yield server


def test_no_network_not_even_the_hosts_loopback(sandbox: Sandbox, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    out = sandbox.run_sync(code(f"""
        import socket
        results = {{}}
        for host, port in [("1.1.1.1", 80), ("127.0.0.1", {port})]:
            try:
                socket.create_connection((host, port), timeout=2).close()
                results[host] = "connected"
            except OSError as exc:
                results[host] = type(exc).__name__
        try:
            socket.getaddrinfo("pypi.org", 443)
            results["dns"] = "resolved"
        except OSError as exc:
            results["dns"] = type(exc).__name__
        __results__ = results
    """))
    assert out.status == "ok", out.stderr
    assert "connected" not in out.report.values() and out.report["dns"] != "resolved"
    with pytest.raises(BlockingIOError):
        listener.accept()


def test_harness_environment_is_invisible(bubblewrap: None, monkeypatch: pytest.MonkeyPatch,
                                          leftovers) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-codetrial-test-secret")
    with Sandbox(workers=1, mode="bubblewrap") as sb:  # started after the key was set
        out = sb.run_sync(code("""
            import os
            seen = [k for k, v in os.environ.items() if "sk-codetrial" in v or "OPENAI" in k]
            for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
                try:
                    if b"sk-codetrial" in open(f"/proc/{pid}/environ", "rb").read():
                        seen.append(pid)
                except OSError:
                    pass
            __results__ = {"seen": seen, "env": sorted(os.environ)}
        """))
        assert out.status == "ok", out.stderr
        assert out.report["seen"] == []
        assert out.report["env"] == sorted(["HOME", "JAVA_TOOL_OPTIONS", "LANG",
                                            "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "PATH",
                                            "PYTHONDONTWRITEBYTECODE", "TMPDIR"])
        assert leftovers(sb) == []


def needed_under(top: str) -> set[str]:
    """First path parts below `top` of the directories the sandbox binds for programs (the
    Python directories, wherever Python lives, and the toolchains' warm build cache)."""
    from codetrial.sandbox.bwrap import build_cache_dir, python_dirs

    return {Path(d).relative_to(top).parts[0] for d in [*python_dirs(), build_cache_dir()]
            if Path(d).is_relative_to(top) and Path(d) != Path(top)}


@pytest.fixture
def harness_secrets(tmp_path: Path) -> list[Path]:
    """A fake store database in the harness's cwd, in /root and in its temp dir."""
    name = f"codetrial-secret-{uuid.uuid4().hex}.db"
    paths = [Path.cwd() / name, Path("/root") / name, tmp_path / name]
    for path in paths:
        path.write_text("TOP-SECRET-STORE-CONTENT")
    yield paths
    for path in paths:
        path.unlink(missing_ok=True)


def test_harness_files_are_invisible(sandbox: Sandbox, harness_secrets: list[Path]) -> None:
    targets = [str(p) for p in harness_secrets]
    targets += [os.path.expanduser("~/.ssh"), "/work", "/root", "/home"]
    out = sandbox.run_sync(code(f"""
        import os
        found = {{}}
        for path in {targets!r}:
            try:
                found[path] = os.listdir(path) if os.path.isdir(path) else open(path).read()
            except OSError as exc:
                found[path] = type(exc).__name__
        __results__ = {{"found": found, "root": sorted(os.listdir("/"))}}
    """))
    assert out.status == "ok", out.stderr
    found = out.report["found"]
    for path in map(str, harness_secrets):
        assert found[path] in ("FileNotFoundError", "PermissionError")
    assert found[os.path.expanduser("~/.ssh")] in ("FileNotFoundError", "PermissionError")
    assert found["/work"] == "FileNotFoundError" and found["/home"] == "FileNotFoundError"
    # /root holds nothing but the way to a Python directory the sandbox binds (wherever Python
    # lives: pyenv, a virtual environment under ~/.cache, ...)
    assert found["/root"] == "FileNotFoundError" or set(found["/root"]) <= needed_under("/root")
    assert "TOP-SECRET" not in out.stdout + out.stderr + str(out.report)
    assert set(out.report["root"]) <= {"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32",
                                       "opt", "proc", "root", "sbin", "tmp", "usr",
                                       *needed_under("/")}


def test_writes_outside_the_workdir_fail(sandbox: Sandbox) -> None:
    name = f"codetrial-escape-{uuid.uuid4().hex}"
    targets = [f"/tmp/{name}", f"/tmp/w/{name}", f"/usr/{name}", f"/etc/{name}",
               f"/root/{name}", f"/opt/codetrial/{name}", "/opt/codetrial/worker.py",
               f"/proc/{name}", "/proc/sys/kernel/hostname", f"/dev/{name}"]
    out = sandbox.run_sync(code(f"""
        import os
        outcome = {{}}
        for path in {targets!r}:
            try:
                with open(path, "a") as fh:
                    fh.write("x")
                outcome[path] = "written"
            except OSError as exc:
                outcome[path] = type(exc).__name__
        open("mine.txt", "w").write("allowed")
        __results__ = {{"outcome": outcome, "mine": os.path.abspath("mine.txt")}}
    """))
    assert out.status == "ok", out.stderr
    assert "written" not in out.report["outcome"].values(), out.report
    for host_path in (Path("/tmp") / name, Path("/usr") / name, Path("/etc") / name,
                      Path("/root") / name):
        assert not host_path.exists()
    mine = out.report["mine"]
    later = [sandbox.run_sync(code(f"import os\n__results__ = os.path.exists({mine!r})"))
             for _ in range(2)]  # one of them lands on the same worker
    assert [o.report for o in later] == [False, False]


def test_programs_run_unprivileged_and_filtered(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(code("""
        import ctypes, os, subprocess, threading
        status = dict(l.rstrip("\\n").split(":\\t", 1) for l in open("/proc/self/status")
                      if ":\\t" in l)
        def attempt(fn):
            try:
                fn()
                return "allowed"
            except OSError as exc:
                return type(exc).__name__
        t = threading.Thread(target=lambda: None)
        t.start()
        t.join()
        libc = ctypes.CDLL(None, use_errno=True)
        __results__ = {
            "uid": os.getresuid(), "gid": os.getresgid(), "groups": os.getgroups(),
            "caps": [status[k] for k in ("CapInh", "CapPrm", "CapEff", "CapAmb")],
            "no_new_privs": status["NoNewPrivs"],
            "setuid0": attempt(lambda: os.setuid(0)),
            "kill_worker": attempt(lambda: os.kill(1, 9)),
            "unshare_user": libc.unshare(0x10000000) == 0,
            "unshare_cmd": subprocess.run(["unshare", "-U", "true"]).returncode,
            "subprocess": subprocess.run(["python3", "-c", "print(6*7)"], capture_output=True,
                                         text=True).stdout,
            "numpy": __import__("numpy").arange(4).sum().item(),
            "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")),
            "user": __import__("getpass").getuser(),
        }
    """))
    assert out.status == "ok", out.stderr
    report = out.report
    uid = report["uid"][0]
    assert uid in sandbox.uids and report["uid"] == [uid] * 3 and report["gid"] == [uid] * 3
    assert report["groups"] == []
    assert report["caps"] == ["0000000000000000"] * 4 and report["no_new_privs"] == "1"
    assert report["setuid0"] == "PermissionError" and report["kill_worker"] == "PermissionError"
    assert report["unshare_user"] is False and report["unshare_cmd"] != 0
    assert report["subprocess"] == "42\n" and report["numpy"] == 6
    assert report["fds"] == [0, 1, 2, 3, 4]  # std streams, the result pipe, the listing itself
    assert report["user"] == "sandbox"


def test_the_worker_keeps_no_capability_a_child_could_inherit(sandbox: Sandbox) -> None:
    """The uid change clears a child's permitted, effective and ambient sets, not the
    inheritable one: the worker holds none, so no child carries one into its program."""
    out = sandbox.run_sync(code("""
        status = dict(l.rstrip("\\n").split(":\\t", 1) for l in open("/proc/1/status")
                      if ":\\t" in l)
        __results__ = [status["Uid"].split()[0], status["CapInh"], status["CapAmb"]]
    """))
    assert out.status == "ok", out.stderr
    assert out.report == ["0", "0000000000000000", "0000000000000000"]


def test_a_program_starts_as_a_script_would(sandbox: Sandbox) -> None:
    """Set once in the worker or in each child, a program sees a script's start: its own
    argv, SIGINT as KeyboardInterrupt, and standard streams on fds 0-2."""
    out = sandbox.run_sync(Program(code=textwrap.dedent("""
        import os, signal, sys
        print("out")
        print("err", file=sys.stderr)
        try:
            os.kill(os.getpid(), signal.SIGINT)
            interrupted = False
        except KeyboardInterrupt:
            interrupted = True
        __results__ = {"argv": sys.argv, "interrupted": interrupted, "stdin": sys.stdin.read(),
                       "fds": [s.fileno() for s in (sys.stdin, sys.stdout, sys.stderr)]}
    """), stdin="in"))
    assert out.status == "ok", out.stderr
    assert out.report == {"argv": ["<program>"], "interrupted": True, "stdin": "in",
                          "fds": [0, 1, 2]}
    assert (out.stdout, out.stderr) == ("out\n", "err\n")


DAEMON = textwrap.dedent("""
    import os, time
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(w, str(os.getpid()).encode())
            while True:
                time.sleep(0.1)
        os._exit(0)
    os.close(w)
    os.wait()
    __results__ = int(os.read(r, 100))
""")


def test_a_daemon_does_not_outlive_its_program(sandbox: Sandbox) -> None:
    out = sandbox.run_sync(Program(code=DAEMON))
    assert out.status == "ok", out.stderr
    assert out.report > 2  # the daemon was alive when the program ended
    # the shared fixture then checks that no process of the sandbox uids is left;
    # and the next programs see only the worker (pid 1) and themselves
    for _ in range(2):
        seen = sandbox.run_sync(code("""
            import os
            __results__ = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        """))
        assert len(seen.report) == 2 and seen.report[0] == 1


def test_a_daemon_does_not_outlive_its_program_in_the_process_mode_without_a_uid(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A harness that is not root runs its programs as itself, in the process mode: the worker,
    their subreaper, skips listing /proc when it has no child left, and must not when a
    daemon was left to it."""
    import time

    from codetrial.sandbox import slot

    monkeypatch.setattr(slot, "is_root", lambda: False)  # no uid of the sandbox's own
    with Sandbox(workers=1, mode="process") as sandbox:
        assert sandbox.uids == []
        out = sandbox.run_sync(Program(code=DAEMON))
        assert out.status == "ok", out.stderr
        deadline = time.monotonic() + 2
        while running(out.report) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not running(out.report)
        again = sandbox.run_sync(Program(code="__results__ = 1"))
        assert (again.status, again.report, sandbox.restarts) == ("ok", 1, 0)


def test_the_process_mode_kills_whatever_runs_as_the_sandbox_uid() -> None:
    """Without a pid namespace, what a program left is found in /proc: the worker's
    descendants, and any process of the sandbox's uid, even one it never started."""
    import signal
    import time

    if os.geteuid() != 0:
        pytest.skip("needs root to give the sandbox a uid of its own")
    with Sandbox(workers=1, mode="process") as sandbox:
        (uid,) = sandbox.uids
        stray = os.fork()
        if stray == 0:  # not the worker's: the test's own child, as the sandbox's uid
            os.setresuid(uid, uid, uid)
            signal.pause()
            os._exit(0)
        status = None
        try:
            out = sandbox.run_sync(Program(code=DAEMON))
            assert out.status == "ok", out.stderr
            deadline = time.monotonic() + 2
            while status is None and time.monotonic() < deadline:
                pid, found = os.waitpid(stray, os.WNOHANG)
                status = found if pid else None
                time.sleep(0.01)
        finally:
            if status is None:  # not killed: end it here, and fail below
                os.kill(stray, signal.SIGKILL)
                os.waitpid(stray, 0)
        assert status is not None and os.WIFSIGNALED(status)
        assert os.WTERMSIG(status) == signal.SIGKILL
        assert not running(out.report)
        assert sandbox.run_sync(Program(code="__results__ = 1")).report == 1


@pytest.mark.parametrize("leaves", [
    "open('kept.txt', 'w').write('x'); os.makedirs('a/b'); os.chmod('a', 0)",  # a locked folder
    "os.chmod('.', 0)",  # nothing, in a workdir it locked itself out of
    "open('/dev/shm/kept', 'w').write('x'); os.chmod('.', 0o500)",
])
def test_what_a_program_leaves_is_removed_without_a_restart(sandbox: Sandbox,
                                                            leaves: str) -> None:
    restarts = sandbox.restarts
    out = sandbox.run_sync(code(f"import os\n{leaves}\n__results__ = os.getcwd()"))
    assert out.status == "ok", out.stderr
    for _ in range(2):  # one of them lands on the same worker
        seen = sandbox.run_sync(code("""
            import os
            __results__ = [os.getcwd(), os.listdir("."), os.listdir("/dev/shm")]
        """))
        assert seen.report == [out.report, [], []]
    assert sandbox.restarts == restarts


@pytest.mark.parametrize(("table", "make"), [
    ("shm", "shmget(0, 4096, 0o1600)"),  # IPC_PRIVATE, IPC_CREAT | 0600
    ("sem", "semget(0, 1, 0o1600)"),
    ("msg", "msgget(0, 0o1600)"),
])
def test_ipc_objects_do_not_reach_the_next_program(sandbox: Sandbox, table: str,
                                                   make: str) -> None:
    """A SysV segment, semaphore set or queue outlives its process: the worker restarts."""
    restarts = sandbox.restarts
    out = sandbox.run_sync(code(f"""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        __results__ = libc.{make}
    """))
    assert out.status == "ok" and out.report >= 0, out
    assert sandbox.restarts == restarts + 1
    for _ in range(2):
        seen = sandbox.run_sync(code(f"__results__ = open('/proc/sysvipc/{table}').read()"))
        assert seen.status == "ok" and len(seen.report.splitlines()) == 1


def test_shared_memory_files_are_removed(sandbox: Sandbox) -> None:
    made = sandbox.run_sync(code("""
        import multiprocessing, os
        lock = multiprocessing.Lock()  # a POSIX semaphore in /dev/shm
        open("/dev/shm/left-behind", "w").write("x")
        __results__ = sorted(os.listdir("/dev/shm"))
    """))
    assert made.status == "ok" and "left-behind" in made.report, made
    for _ in range(2):
        seen = sandbox.run_sync(code("import os\n__results__ = os.listdir('/dev/shm')"))
        assert seen.report == []


HARNESS = """
import json, sys
from codetrial.sandbox import Limits, Program, Sandbox
sb = Sandbox(workers=1, mode=sys.argv[1])
sb.run_sync(Program(code="pass"))
print(json.dumps({"uids": sb.uids, "workers": sb.worker_pids}), flush=True)
sb.run_sync(Program(code='''
import os, time
if os.fork() == 0:
    os.setsid()
    time.sleep(60)
time.sleep(60)
'''), Limits(wall_seconds=60))
"""


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphaned zombie waits for the machine's init to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("mode", ["bubblewrap", "process"])
def test_programs_die_with_the_harness(bubblewrap: None, mode: str) -> None:
    """A harness killed with SIGKILL cannot clean up: under bwrap, --die-with-parent ends the
    namespace; a process-mode worker sees its input close, kills the program and exits."""
    import json
    import signal
    import subprocess
    import sys
    import time

    import codetrial
    from codetrial.sandbox.procs import descendants, pids_of_uid

    src = str(Path(codetrial.__file__).resolve().parents[1])
    harness = subprocess.Popen([sys.executable, "-c", HARNESS, mode], stdout=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": src})
    started = json.loads(harness.stdout.readline())
    (worker,) = started["workers"]
    time.sleep(0.3)  # the program and its daemon are running now
    assert len(descendants(worker)) >= 2
    os.kill(harness.pid, signal.SIGKILL)
    harness.wait()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        alive = [pids_of_uid(uid) for uid in started["uids"]] + [running(worker)]
        if not any(alive):
            break
        time.sleep(0.05)
    assert not any(alive), alive
