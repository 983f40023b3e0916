"""Warm builds shared by every grading of a run: Catch2's main object, Go's compiled std.

Only trusted inputs go in (the toolchain and the exercise's own shipped files, never a model's),
built by the harness once, keyed by a hash of everything they depend on, published atomically.
The sandbox binds the directory read-only at the same path (sandbox/bwrap.py).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from codetrial.languages.base import sandbox_path
from codetrial.sandbox.bwrap import build_cache_dir


def cache_dir() -> Path:
    path = Path(build_cache_dir())
    path.mkdir(mode=0o755, parents=True, exist_ok=True)
    return path


def key(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def build_once(target: Path, build: Callable[[Path], None]) -> Path:
    """`target` (a directory), built by `build(tmpdir)` unless another process already did."""
    if target.is_dir():
        return target
    target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.is_dir():
            tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
            try:
                build(tmp)
                _readable(tmp)
                os.replace(tmp, target)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return target


def _readable(root: Path) -> None:
    """Programs run as another uid: every directory 0755, every file readable."""
    os.chmod(root, 0o755)
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)
        for name in files:
            path = os.path.join(folder, name)
            os.chmod(path, os.stat(path).st_mode | 0o444)


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    """A trusted build step; its failure is the set-up's, said with its output."""
    full_env = {**os.environ, "PATH": sandbox_path(), **(env or {})}
    done = subprocess.run(argv, cwd=cwd, env=full_env, capture_output=True, text=True,
                          check=False, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"warm build {' '.join(argv)} failed:\n{done.stdout}{done.stderr}")
