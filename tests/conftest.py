"""Shared fixtures: an isolated codetrial home and a way to run the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


@pytest.fixture
def ct_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("CODETRIAL_HOME", str(home))
    return home


@pytest.fixture
def cli(ct_home: Path):
    """Run `python -m codetrial ARGS` in a subprocess, as a user would."""

    def run(*args: str, timeout: float = 600, env: dict | None = None) -> CliResult:
        full_env = {**os.environ, "CODETRIAL_HOME": str(ct_home), **(env or {})}
        proc = subprocess.run([sys.executable, "-m", "codetrial", *args], capture_output=True,
                              text=True, timeout=timeout, env=full_env)
        return CliResult(proc.returncode, proc.stdout, proc.stderr)

    return run


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server():
    """A real OpenAI-compatible server (llama.cpp) on loopback serving the embedded GGUF."""
    import time
    import urllib.request

    from codetrial.models.local import default_gguf_path

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(default_gguf_path()),
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
         "--model_alias", "smollm2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/models", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError("llama_cpp.server did not start") from None
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


SHARED_DIRS = ("/tmp", "/var/tmp", "/dev/shm")


def host_leftovers(uids) -> list[str]:
    """Processes of the sandbox uids, and files they own in the host's shared directories."""
    from codetrial.sandbox.procs import pids_of_uid

    found = []
    for uid in uids:
        if pids := pids_of_uid(uid):
            found.append(f"processes of uid {uid}: {sorted(pids)}")
        for shared in SHARED_DIRS:
            for entry in os.scandir(shared):
                try:
                    owner = entry.stat(follow_symlinks=False).st_uid
                except FileNotFoundError:  # another process removed it while we looked
                    continue
                if owner == uid:
                    found.append(f"{entry.path} owned by uid {uid}")
    return found


@pytest.fixture(scope="session")
def bubblewrap() -> None:
    from codetrial.sandbox.mode import bubblewrap_works

    works, reason = bubblewrap_works()
    if not works:
        pytest.skip(f"bubblewrap does not work here: {reason}")
