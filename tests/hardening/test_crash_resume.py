"""SIGKILL a run at 20 random points; every resume must end with the figures of a run that was
never interrupted (the trials are benchmarks/crash_resume.py's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "crash_resume.py"


def test_twenty_random_kills_resume_to_the_same_figures(ct_home):
    done = subprocess.run([sys.executable, str(SCRIPT), "--trials", "20", "--limit", "30",
                           "--seed", "7", "--json"], capture_output=True, text=True, timeout=600)
    report = json.loads(done.stdout)
    different = [r for r in report["results"] if not r["same"]]
    assert done.returncode == 0 and different == [], different
    killed = [r for r in report["results"] if r["how"] == "killed"]
    assert report["trials"] == 20 and len(killed) >= 15  # most kills land mid-run
    assert any(0 < r["stored_at_kill"] < 30 for r in killed)
