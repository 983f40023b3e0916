"""Time to grade Exercism exercises with codetrial vs plain `python -m unittest` on the same files.

codetrial copies each pristine exercise into a warm bubblewrap worker, runs the tests there with
unittest and the solution in a fresh subject interpreter beside them (proxies between the two);
the peer runs `python -m unittest` directly in a directory that already holds the solution (no
isolation, one interpreter per exercise). Both grade the reference solutions one exercise after
another, interleaved round by round so that load changes hit both alike. Prints the median total
and the ratio (target: <= 1.5x).
Usage: python benchmarks/exercise_grading.py [--rounds 3] [--path TRACK]  (default: the fixture
exercises of tests/suites; TRACK: e.g. a clone of exercism/python)
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
from tests.suites.messy_exercises import make_messy_exercises  # noqa: E402


def solved_copies(suite, tasks, into: Path) -> list[tuple[Path, list[str]]]:
    """Each exercise as the peer runs it: its files with the reference solution in place."""
    copies = []
    for task in tasks:
        folder = into / task.id
        for rel, text in {**suite.pristine_files(task), **suite.reference_files(task)}.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text)
        copies.append((folder, suite.test_modules(task)))
    return copies


def plain_unittest(copies: list[tuple[Path, list[str]]]) -> float:
    start = time.perf_counter()
    for folder, modules in copies:
        subprocess.run([sys.executable, "-m", "unittest", "-q", *modules], cwd=folder,
                       capture_output=True, check=False)
    return time.perf_counter() - start


async def codetrial_round(suite, tasks, sandbox: Sandbox) -> tuple[float, int]:
    start = time.perf_counter()
    passed = 0
    for task in tasks:
        grade = await suite.grade_files(task, suite.reference_files(task), sandbox)
        passed += grade.verdict == "passed"
    return time.perf_counter() - start, passed


async def measure(root: Path, rounds: int, scratch: Path) -> dict[str, list[float]]:
    suite = create_suite("exercism", {"path": str(root)})
    tasks = suite.load_tasks()
    copies = solved_copies(suite, tasks, scratch)
    times: dict[str, list[float]] = {"codetrial": [], "unittest": []}
    async with Sandbox(workers=1) as sandbox:
        await suite.grade_files(tasks[0], suite.reference_files(tasks[0]), sandbox)  # warm-up
        for _ in range(rounds):
            seconds, passed = await codetrial_round(suite, tasks, sandbox)
            times["codetrial"].append(seconds)
            times["unittest"].append(plain_unittest(copies))
    print(f"{len(tasks)} exercises, the reference passes {passed} under codetrial")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--path", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.path
        if root is None:
            root = make_messy_exercises(Path(tmp) / "ex", "track")
            make_exercises(root, "track")
        times = asyncio.run(measure(root, args.rounds, Path(tmp) / "solved"))
        shutil.rmtree(Path(tmp) / "solved", ignore_errors=True)
    ours, theirs = statistics.median(times["codetrial"]), statistics.median(times["unittest"])
    print(f"median total: codetrial {ours:.2f} s, plain unittest {theirs:.2f} s, "
          f"ratio {ours / theirs:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
