"""Which isolation this machine gives: bubblewrap when a trial sandbox works, else a weak
process mode whose reason says what is missing."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Callable

from codetrial.core.errors import InfraError
from codetrial.sandbox.bwrap import python_dirs
from codetrial.sandbox.launch import BUBBLEWRAP, PROCESS, Options, UidClaim, bubblewrap_launch
from codetrial.sandbox.protocol import to_request
from codetrial.sandbox.types import Limits, Program
from codetrial.sandbox.worker import WorkerFailure, WorkerProcess

ENV_VAR = "CODETRIAL_SANDBOX"
TRIAL_CODE = "import os\n__results__ = {'uid': os.getuid(), 'pid': os.getpid()}\n"


class SandboxUnavailable(InfraError):
    """Bubblewrap was asked for explicitly and does not work here."""


def is_root() -> bool:
    return os.geteuid() == 0


def _hidden_python_dir() -> str | None:
    """A directory on the way to the Python installation that other uids cannot traverse."""
    for path in python_dirs():
        while path not in ("/", ""):
            if not os.stat(path).st_mode & stat.S_IXOTH:
                return path
            path = os.path.dirname(path)
    return None


def weakness() -> str:
    who = "a separate unprivileged uid" if is_root() else "your own uid"
    text = (f"programs see the host's network, filesystem and processes; only rlimits, {who}, "
            "a scratch directory and a cleared environment apply")
    hidden = _hidden_python_dir() if is_root() else None
    if hidden:
        text += (f"; {hidden} is closed to that uid, so programs can import only the modules "
                 "the worker pre-imports")
    return text


def bubblewrap_works() -> tuple[bool, str]:
    """Whether the bubblewrap mode works here, and the reason either way (cached)."""
    found, reason = _probe()
    return found == BUBBLEWRAP, reason


Trial = Callable[[str], dict]  # starts a trial worker with bwrap at this path: its ready message


def detect_mode(trial: Trial | None = None) -> tuple[str, str]:
    """("bubblewrap", reason) when bwrap starts a trial sandbox, else ("process", why weaker).

    CODETRIAL_SANDBOX=process forces the weak mode (for debugging). `trial`: how to start the
    trial worker (a sandbox keeps it as its first worker); the default starts one and stops it.
    """
    if os.environ.get(ENV_VAR, "").strip().lower() == PROCESS:
        return PROCESS, f"{ENV_VAR}=process forces the weak mode: {weakness()}"
    return _probe(trial)


def resolve_mode(mode: str | None, trial: Trial | None = None) -> tuple[str, str]:
    if mode is None and os.environ.get(ENV_VAR, "").strip().lower() == BUBBLEWRAP:
        mode = BUBBLEWRAP
    if mode is None:
        return detect_mode(trial)
    if mode == PROCESS:
        return PROCESS, f"process mode was asked for: {weakness()}"
    if mode != BUBBLEWRAP:
        raise ValueError(f"unknown sandbox mode {mode!r}: use {BUBBLEWRAP!r} or {PROCESS!r}")
    found, reason = _probe(trial)
    if found != BUBBLEWRAP:
        raise SandboxUnavailable(reason)
    return found, reason


_found: list[tuple[str, str]] = []  # what this process's first probe found


def _probe(trial: Trial | None = None) -> tuple[str, str]:
    """Once per process: later calls return the first answer and run no `trial`."""
    if not _found:
        _found.append(_try_bubblewrap(trial or plain_trial))
    return _found[0]


def _try_bubblewrap(trial: Trial) -> tuple[str, str]:
    exe = shutil.which("bwrap")
    if exe is None:
        return PROCESS, f"bwrap is not installed: {weakness()}"
    try:
        ready = trial(exe)
    except (WorkerFailure, OSError, RuntimeError) as exc:
        return PROCESS, f"bubblewrap did not start a trial sandbox ({exc}): {weakness()}"
    return BUBBLEWRAP, _describe(exe, ready)


def plain_trial(exe: str) -> dict:
    """A lean worker started, tried and stopped."""
    claim = UidClaim() if is_root() else None
    uid = claim.uid if claim else None
    try:
        worker = WorkerProcess.start(bubblewrap_launch(exe, uid, Options(preload=())))
        try:
            run_trial(worker, uid)
        finally:
            worker.stop()
    finally:
        if claim:
            claim.release()
    return worker.ready


def run_trial(worker: WorkerProcess, uid: int | None) -> None:
    """Run the trial program in `worker`; RuntimeError (the worker killed) unless it ran, as
    `uid` when that is given."""
    reply = worker.call(to_request(Program(code=TRIAL_CODE), Limits(), 0), 30.0)
    report = reply.get("report") or {}
    if reply.get("status") != "ok" or (uid is not None and report.get("uid") != uid):
        worker.kill()
        raise RuntimeError(f"trial program: {reply.get('status')} {reply.get('detail', '')}")


def _describe(exe: str, ready: dict) -> str:
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
    who = ("each worker's programs run as their own unprivileged uid, without capabilities"
           if is_root() else "programs keep your uid inside a user namespace")
    seccomp = ("a seccomp filter blocks namespace, mount and other kernel-surface calls"
               if ready.get("seccomp") else "no seccomp filter on this architecture")
    return (f"{version or 'bubblewrap'}: no network; own pid, ipc and uts namespaces; read-only "
            f"system and Python; private /tmp; {who}; {seccomp}")
