"""Fixtures for the sandbox tests: one warm bubblewrap sandbox per module, and a check after
every test that nothing a program started or wrote survived it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

try:
    import codetrial  # noqa: F401
except ImportError:  # a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from codetrial.sandbox import Program, Sandbox  # noqa: E402
from codetrial.sandbox.procs import descendants  # noqa: E402
from tests.conftest import host_leftovers  # noqa: E402


def find_leftovers(sandbox: Sandbox) -> list[str]:
    """Processes or host files the sandbox's programs left behind (should be none)."""
    found = host_leftovers(sandbox.uids)
    if sandbox.mode == "bubblewrap":
        for pid in sandbox.worker_pids:  # bwrap itself; below it only the worker may remain
            if len(inside := descendants(pid)) > 1:
                found.append(f"processes in the namespace of bwrap {pid}: {sorted(inside)}")
    return found


PROBE = """
import os
def entries(path):
    try:
        return os.listdir(path)
    except OSError as exc:
        return type(exc).__name__
__results__ = {
    "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "workdirs": os.stat(os.path.dirname(os.getcwd())).st_nlink - 2,  # subdirectories of /tmp/w
    "shm": entries("/dev/shm"), "mqueue": entries("/dev/mqueue"),
    "ipc": [len(open(f"/proc/sysvipc/{t}").read().splitlines()) for t in ("shm", "sem", "msg")],
}
"""
CLEAN_INSIDE = {"workdirs": 1, "shm": [], "mqueue": [], "ipc": [1, 1, 1]}


def leftovers_inside(sandbox: Sandbox) -> list[dict]:
    """What a probe program finds in each worker: only pid 1 (the worker) and itself, only its
    own workdir, and no shared-memory files, queues or SysV IPC objects."""
    found = []
    for _ in range(len(sandbox.worker_pids) or 1):  # consecutive runs go to different workers
        out = sandbox.run_sync(Program(code=PROBE))
        report = out.report or {}
        pids = report.pop("pids", [])
        if out.status != "ok" or report != CLEAN_INSIDE or len(pids) != 2 or pids[0] != 1:
            found.append({"status": out.status, "pids": pids, **report})
    return found


@pytest.fixture
def leftovers() -> Callable[[Sandbox], list[str]]:
    return find_leftovers


@pytest.fixture(scope="module")
def sandbox(bubblewrap: None) -> Iterator[Sandbox]:
    with Sandbox(workers=2, mode="bubblewrap", margin_seconds=3.0) as sb:
        yield sb


@pytest.fixture(autouse=True)
def clean_after(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test that used the shared sandbox must leave nothing behind."""
    yield
    if "sandbox" in request.fixturenames:
        sandbox = request.getfixturevalue("sandbox")
        assert find_leftovers(sandbox) == []
        assert leftovers_inside(sandbox) == []
