"""Time to grade polyglot exercises with codetrial vs running the same tool commands directly.

codetrial writes each exercise (pristine files, the reference solution, tests un-skipped) into a
warm bubblewrap worker, where the driver builds, removes the test sources and runs the tests;
the peer runs the very same commands (the language module's plan) with subprocess in a plain
directory that already holds those files: no sandbox, no limits, no file transfer. Warm builds
(Catch2's main, Go's std) are made before timing and used by both. One exercise after another,
interleaved round by round so load changes hit both alike. Prints the median time per language,
the ratio (target: <= 1.3x against --peer plain) and the total for all exercises.
Usage: python benchmarks/polyglot_grading.py [--rounds 3] [--path POLYGLOT_DIR] [--peer plain]
  (default: the fixture exercises of tests/polyglot, two per language)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from codetrial.core import Task
from codetrial.languages import get_language
from codetrial.languages.grading import program, workspace
from codetrial.sandbox import Sandbox
from codetrial.suites import create_suite

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.polyglot.direct import in_folder  # noqa: E402
from tests.polyglot.direct import run as direct_run  # noqa: E402
from tests.polyglot.exercises import write_all  # noqa: E402


def _workspace(suite, task: Task):
    data = task.data
    lang = get_language(data["language"])
    return lang, workspace(lang, data["slug"], data["pristine"], list(data["stubs"]),
                           list(data["test_files"]), suite.reference_files(task))


def direct(suite, task: Task, scratch: Path, plain: bool) -> float:
    """The plan's commands run with subprocess in a directory holding the same files; `plain`:
    the tool run as a developer runs it (tests/polyglot/direct.py: the test files as shipped,
    no per-run names, no decoys, plain jest), so the ratio includes what those cost."""
    lang, ws = _workspace(suite, task)
    if plain:
        return direct_run(lang, ws, scratch)[1]
    built = program(lang, ws)  # also makes sure the warm builds exist
    return in_folder(built.files, json.loads(built.stdin)["steps"], scratch, [])[2]


async def sandboxed(suite, task: Task, box: Sandbox) -> float:
    start = time.perf_counter()
    grade = await suite.grade_files(task, suite.reference_files(task), box)
    if grade.verdict != "passed":
        raise SystemExit(f"{task.id}: the reference did not pass:\n{grade.output[-2000:]}")
    return time.perf_counter() - start


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--path", type=Path)
    parser.add_argument("--peer", choices=("same", "plain"), default="same",
                        help="same: the peer runs the very files codetrial runs (sandbox "
                             "overhead); plain: the tool as a developer runs it (decoys and "
                             "JavaScript's separate process included in the ratio)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.path or write_all(Path(tmp) / "exercises")
        suite = create_suite("exercism", {"path": str(root)})
        tasks = [t for t in suite.load_tasks() if not get_language(t.data["language"]).native]
        ours: dict[str, list[float]] = {t.id: [] for t in tasks}
        peer: dict[str, list[float]] = {t.id: [] for t in tasks}
        async with Sandbox(workers=1) as box:
            for task in tasks:  # warm-up: warm builds, worker start, page cache
                await sandboxed(suite, task, box)
            for _ in range(args.rounds):
                for task in tasks:
                    ours[task.id].append(await sandboxed(suite, task, box))
                    peer[task.id].append(direct(suite, task, Path(tmp), args.peer == "plain"))
    report(tasks, ours, peer, args.rounds, args.peer)


def report(tasks: list[Task], ours: dict[str, list[float]], peer: dict[str, list[float]],
           rounds: int, kind: str) -> None:
    print(f"{len(tasks)} exercises, {rounds} rounds, medians per exercise summed by language; "
          f"peer: {kind}")
    print(f"{'language':<12}{'codetrial s':>12}{'direct s':>10}{'ratio':>8}")
    totals = [0.0, 0.0]
    for language in sorted({t.data["language"] for t in tasks}):
        ids = [t.id for t in tasks if t.data["language"] == language]
        a = sum(statistics.median(ours[i]) for i in ids)
        b = sum(statistics.median(peer[i]) for i in ids)
        totals = [totals[0] + a, totals[1] + b]
        print(f"{language:<12}{a:>12.2f}{b:>10.2f}{a / b:>7.2f}x")
    print(f"{'all':<12}{totals[0]:>12.2f}{totals[1]:>10.2f}{totals[0] / totals[1]:>7.2f}x"
          "  (target <= 1.3x)")


if __name__ == "__main__":
    asyncio.run(main())
