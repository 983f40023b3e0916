"""A synthesis directory shared by the tests that only read it (the DuckDB filter takes ~15 s)."""

import json
import os
import subprocess
import sys

import pytest


@pytest.fixture(scope="session")
def duckdb_dir(tmp_path_factory):
    """`codetrial synth duckdb` with no model: the filter stage alone."""
    base = tmp_path_factory.mktemp("duckdb-synth")
    out = base / "out"
    env = {**os.environ, "CODETRIAL_HOME": str(base / "home")}
    result = subprocess.run(
        [sys.executable, "-m", "codetrial", "synth", "duckdb", "--out", str(out), "--json"],
        capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr
    return out, json.loads(result.stdout)


@pytest.fixture(scope="session")
def duckdb_filtered(duckdb_dir):
    return duckdb_dir[1]
