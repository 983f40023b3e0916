"""Ray's overhead: grade the 164 HumanEval canonical solutions on the local sandbox and on a
local Ray instance with the same CPUs, and print the wall-time ratio (Ray / local).

Grading is timed apart from starting the executor: Ray's start (seconds) is paid once per run,
its per-program cost is paid on every sample. Rounds are interleaved so drift hits both.
Usage: python benchmarks/ray_overhead.py [--repeats 3] [--cpus 2]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import time

import ray
from humaneval_grading import grade_all

from codetrial.runner.executors import Executor, LocalExecutor
from codetrial.runner.ray_executor import RayExecutor


async def timed(start_executor) -> tuple[float, float, float]:
    """Seconds to start the executor, seconds to grade all 164, driver CPU seconds grading."""
    begin = time.perf_counter()
    executor: Executor = await start_executor()
    started, cpu = time.perf_counter(), time.process_time()
    try:
        passed = await grade_all(executor)
    finally:
        graded, cpu = time.perf_counter(), time.process_time() - cpu
        await executor.aclose()
    assert passed == 164, passed
    return started - begin, graded - started, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpus", type=int, default=2)
    args = parser.parse_args()
    begin = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING)
    print(f"ray.init: {time.perf_counter() - begin:.1f}s (once per driver)")

    async def local() -> Executor:
        return LocalExecutor(args.cpus)

    async def on_ray() -> Executor:
        return await RayExecutor.start(None)

    ours, theirs = [], []
    for i in range(args.repeats):
        local_start, local_grade, local_cpu = asyncio.run(timed(local))
        ray_start, ray_grade, ray_cpu = asyncio.run(timed(on_ray))
        ours.append(local_grade)
        theirs.append(ray_grade)
        print(f"round {i + 1}: local {local_grade:.2f}s (+{local_start:.2f}s start, driver CPU "
              f"{local_cpu / 164 * 1000:.1f} ms/program), ray {ray_grade:.2f}s "
              f"(+{ray_start:.2f}s actor start, driver CPU {ray_cpu / 164 * 1000:.1f} ms/program)")
    a, b = statistics.median(theirs), statistics.median(ours)
    print(f"median grading: ray {a:.2f}s, local {b:.2f}s, ratio {a / b:.2f}x (Ray's overhead; "
          f"load average {os.getloadavg()[0]:.1f})")
    ray.shutdown()


if __name__ == "__main__":
    main()
