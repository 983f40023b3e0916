"""Ray's overhead: grade HumanEval samples on the local sandbox and on a local Ray instance with
the same CPUs, and print the wall-time ratio (Ray / local) and whether every verdict agrees.

`--samples canonical` (default): the 164 canonical solutions. `--samples mixed`: samples as
models write them (benchmarks/mixed_samples.py, 1,136), among them wrong answers followed by a
loop: the grader's watch stops those at the wrong answer on either executor, so only Ray's
per-program cost should separate them.

Grading is timed apart from starting the executor: Ray's start (seconds) is paid once per run,
its per-program cost is paid on every sample. Rounds are interleaved so drift hits both.
Usage: python benchmarks/ray_overhead.py [--repeats 3] [--cpus 2] [--samples canonical|mixed]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import time
from pathlib import Path

import ray

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.mixed_samples import mixed_samples  # noqa: E402

from codetrial.runner.executors import Executor, LocalExecutor  # noqa: E402
from codetrial.runner.hidden import hidden_paths  # noqa: E402
from codetrial.runner.ray_executor import RayExecutor  # noqa: E402
from codetrial.suites import create_suite  # noqa: E402
from codetrial.suites.humaneval import read_problems  # noqa: E402

IN_FLIGHT = 8  # samples graded at once: enough to keep either executor's workers busy


def sample_rows(name: str) -> list[dict]:
    rows = mixed_samples(read_problems())
    return rows if name == "mixed" else [r for r in rows if r["kind"] == "canonical"]


async def grade_rows(executor: Executor, rows: list[dict]) -> list[str]:
    """Each row's verdict, graded through `executor`, IN_FLIGHT at a time."""
    suite = create_suite("humaneval", {})
    tasks = {t.id: t for t in suite.load_tasks()}
    verdicts = [""] * len(rows)
    todo = iter(enumerate(rows))

    async def grader() -> None:
        for number, row in todo:
            task = tasks[row["task_id"]]
            program = suite.program_from_completion(task, row["completion"])
            verdicts[number] = (await suite.grade(task, program, executor)).verdict
    await asyncio.gather(*(grader() for _ in range(IN_FLIGHT)))
    return verdicts


async def timed(start_executor, rows: list[dict]) -> tuple[float, float, float, list[str]]:
    """Seconds to start the executor, seconds to grade, driver CPU seconds grading, verdicts."""
    begin = time.perf_counter()
    executor: Executor = await start_executor()
    started, cpu = time.perf_counter(), time.process_time()
    try:
        verdicts = await grade_rows(executor, rows)
    finally:
        graded, cpu = time.perf_counter(), time.process_time() - cpu
        await executor.aclose()
    return started - begin, graded - started, cpu, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--samples", choices=["canonical", "mixed"], default="canonical")
    args = parser.parse_args()
    rows = sample_rows(args.samples)
    suite = create_suite("humaneval", {})
    preload, hidden = tuple(suite.preload), hidden_paths(suite)
    begin = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING)
    print(f"ray.init: {time.perf_counter() - begin:.1f}s (once per driver)")

    async def local() -> Executor:
        return LocalExecutor(args.cpus, preload, hidden)

    async def on_ray() -> Executor:
        return await RayExecutor.start(None, preload=preload, hidden=hidden)

    seconds: dict[str, list[float]] = {"local": [], "ray": []}
    verdicts: dict[str, list[str]] = {}
    for i in range(args.repeats):
        line = []
        for name, start in (("local", local), ("ray", on_ray))[::1 if i % 2 == 0 else -1]:
            start_s, grade_s, cpu, verdicts[name] = asyncio.run(timed(start, rows))
            seconds[name].append(grade_s)
            line.append(f"{name} {grade_s:.2f}s (+{start_s:.2f}s start, driver CPU "
                        f"{cpu / len(rows) * 1000:.1f} ms/sample)")
        print(f"round {i + 1}: " + ", ".join(line), flush=True)
    a, b = statistics.median(seconds["ray"]), statistics.median(seconds["local"])
    differ = sum(x != y for x, y in zip(verdicts["ray"], verdicts["local"], strict=True))
    print(f"{args.samples}: {len(rows)} samples, "
          f"{sum(v == 'passed' for v in verdicts['local'])} passed locally")
    print(f"median grading: ray {a:.2f}s, local {b:.2f}s, ratio {a / b:.2f}x (Ray's overhead; "
          f"load average {os.getloadavg()[0]:.1f}); verdicts that differ: {differ}")
    ray.shutdown()
    if differ:
        sys.exit(1)


if __name__ == "__main__":
    main()
