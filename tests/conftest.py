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
