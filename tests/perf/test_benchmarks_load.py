"""Every benchmark still loads: they run by hand, rarely, so a name one of them imports from the
package or from another benchmark can vanish unnoticed (ray_overhead.py imported a helper that
humaneval_grading.py had dropped, and failed for days)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py"))
OPTIONAL = {"ray", "pyspark", "anthropic"}  # extras a machine may lack

LOAD = """
import importlib, sys
sys.path[:0] = [{root!r}, {root!r} + "/benchmarks"]
try:
    importlib.import_module({name!r})
except ModuleNotFoundError as exc:
    if exc.name and exc.name.split(".")[0] in {optional!r}:
        print("optional:", exc.name)
        sys.exit(0)
    raise
"""


@pytest.mark.parametrize("name", BENCHMARKS)
def test_the_benchmark_loads(name: str):
    code = LOAD.format(root=str(ROOT), name=name, optional=OPTIONAL)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]


def test_there_are_benchmarks_to_load():
    assert {"humaneval_grading", "ray_overhead", "mixed_samples"} <= set(BENCHMARKS)
