"""Time to grade one Exercism exercise with codetrial vs running `python -m pytest` on it directly.

codetrial copies a pristine exercise into the sandbox, copies in the solution, and runs the unit
tests in a warm forked child under bubblewrap; the peer is a plain pytest run in a directory that
already holds the solution (no isolation). Prints the median ratio (target: <= 1.2x).
Usage: python benchmarks/exercise_grading.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codetrial.sandbox import Sandbox
from codetrial.suites import create_suite

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.suites.exercism_fixture import make_exercises  # noqa: E402

PEERS = {
    "pytest": ["-m", "pytest", "-q", "-p", "no:cacheprovider"],
    "unittest": ["-m", "unittest", "-q"],  # the lightest direct run, no plugins to load
}


def peer_once(exercise: Path, peer: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *PEERS[peer]], cwd=exercise, capture_output=True,
                          text=True)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, proc.stdout
    return elapsed


async def interleaved(root: Path, solved: Path, rounds: int) -> dict[str, list[float]]:
    """Alternate the two so that changes in machine load hit both alike."""
    suite = create_suite("exercism", {"path": str(root)})
    task = next(t for t in suite.load_tasks() if t.id == "area-tools")
    times: dict[str, list[float]] = {"codetrial": [], **{peer: [] for peer in PEERS}}
    async with Sandbox(workers=1) as sandbox:
        await suite.grade_files(task, suite.reference_files(task), sandbox)  # warm-up
        for _ in range(rounds):
            start = time.perf_counter()
            grade = await suite.grade_files(task, suite.reference_files(task), sandbox)
            times["codetrial"].append(time.perf_counter() - start)
            assert grade.verdict == "passed", grade.output
            for peer in PEERS:
                times[peer].append(peer_once(solved, peer))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = make_exercises(Path(tmp) / "ex", names=["area-tools"])
        exercise = root / "area-tools"
        solved = Path(tmp) / "solved"
        shutil.copytree(exercise, solved)
        shutil.copy(exercise / ".meta" / "example.py", solved / "area_tools.py")
        shutil.copy(exercise / ".meta" / "example_geometry.py", solved / "geometry.py")
        times = asyncio.run(interleaved(root, solved, args.rounds))
    ours = statistics.median(times["codetrial"])
    for peer in PEERS:
        theirs = statistics.median(times[peer])
        print(f"median per exercise: codetrial {ours * 1000:.1f} ms, {peer} {theirs * 1000:.1f} "
              f"ms, ratio {ours / theirs:.2f}x (target vs pytest <= 1.2x)")


if __name__ == "__main__":
    main()
