"""SIGKILL a run at random points, resume it, and check the final figures against a run that was
never interrupted: nothing lost, nothing counted twice.

Each trial starts `codetrial run humaneval --model reference --limit N` in a fresh home and kills
it with SIGKILL: after a random number of stored samples (0 = right after the run was created),
or at a random moment, which may fall before the run exists or after it finished. Then it runs
`codetrial run --resume RUN_ID` (a fresh run when none was stored) and compares figures; every
sample stored when the kill came must still be there, not graded again (same finish time).
Usage: python benchmarks/crash_resume.py [--trials 20] [--limit 30] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TIMINGS = ("run_id", "test_seconds", "model_seconds")
FINISHED = "SELECT task_id, sample_index, finished FROM samples WHERE infra = 0"
RUN = ["run", "humaneval", "--model", "reference", "--workers", "1", "--concurrency", "1"]


def codetrial(home: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "CODETRIAL_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "codetrial", *args], env=env, timeout=timeout,
                          capture_output=True, text=True)


def figures(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in TIMINGS}


def stored(db: Path, sql: str) -> list[tuple]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            return con.execute(sql).fetchall()
    except sqlite3.OperationalError:  # the schema is not there yet
        return []


def kill_when(proc: subprocess.Popen, db: Path, samples: int | None, moment: float) -> str:
    """SIGKILL after `samples` stored samples (or at `moment` seconds when samples is None)."""
    start = time.monotonic()
    while proc.poll() is None:
        if samples is None:
            ready = time.monotonic() - start >= moment
        else:
            runs = stored(db, "SELECT COUNT(*) FROM runs")
            ready = bool(runs and runs[0][0]) and (
                stored(db, "SELECT COUNT(*) FROM samples")[0][0] >= samples)
        if ready:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return "killed"
        time.sleep(0.002)
    return "finished first"


def trial(rng: random.Random, limit: int, reference: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix="codetrial-crash-") as tmp:
        home, args = Path(tmp), [*RUN, "--limit", str(limit)]
        db = home / "runs.sqlite"
        samples = rng.randrange(limit) if rng.random() < 0.75 else None
        moment = rng.uniform(0.0, 3.0)
        env = {**os.environ, "CODETRIAL_HOME": str(home)}
        proc = subprocess.Popen([sys.executable, "-m", "codetrial", *args], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        how = kill_when(proc, db, samples, moment)
        before = stored(db, "SELECT COUNT(*) FROM samples")
        kept = set(stored(db, FINISHED))
        runs = stored(db, "SELECT run_id FROM runs")
        resumed = codetrial(home, "run", "--resume", runs[0][0], "--json") if runs else (
            codetrial(home, *args, "--json"))
        result = {"kill": f"after {samples} samples" if samples is not None
                  else f"at {moment:.2f}s", "how": how,
                  "stored_at_kill": before[0][0] if before else 0, "code": resumed.returncode}
        if resumed.returncode != 0:
            return {**result, "same": False, "error": resumed.stderr[-2000:]}
        final = json.loads(resumed.stdout)
        keys = stored(db, "SELECT task_id, sample_index FROM samples")
        attempts = stored(db, "SELECT task_id, sample_index, try_index FROM attempts")
        whole = len(keys) == len(set(keys)) == limit and len(attempts) == len(set(attempts))
        not_redone = kept <= set(stored(db, FINISHED))  # stored before the kill: kept as is
        return {**result, "same": figures(final) == reference and whole and not_redone}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="codetrial-crash-ref-") as tmp:
        plain = codetrial(Path(tmp), *RUN, "--limit", str(args.limit), "--json")
    if plain.returncode != 0:
        sys.exit(f"the uninterrupted run failed: {plain.stderr[-2000:]}")
    reference = figures(json.loads(plain.stdout))
    results = [trial(rng, args.limit, reference) for _ in range(args.trials)]
    same = sum(r["same"] for r in results)
    if args.json:
        print(json.dumps({"trials": len(results), "same": same, "results": results}))
    else:
        for i, r in enumerate(results, 1):
            print(f"trial {i:2}: killed {r['kill']:18} ({r['how']}, {r['stored_at_kill']:2} "
                  f"stored) -> {'same figures' if r['same'] else 'DIFFERENT'}")
        print(f"{same}/{len(results)} resumed runs ended with the uninterrupted run's figures")
    sys.exit(0 if same == len(results) else 1)


if __name__ == "__main__":
    main()
