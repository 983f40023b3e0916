"""Grade completions made elsewhere: HumanEval-style `{task_id, completion}` JSONL lines."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

from codetrial.core import Attempt, Sample, Task, UsageError, Verdict
from codetrial.runner.config import RunConfig
from codetrial.runner.hidden import hidden_paths
from codetrial.sandbox import Sandbox
from codetrial.store import RunRecord, Store, new_run_id
from codetrial.suites import Suite, create_suite


def read_samples(path: Path, known: set[str]) -> list[tuple[str, str]]:
    """(task_id, completion) per line; one clear error naming the file, line and field."""
    if not path.is_file():
        raise UsageError(f"{path}: file not found")
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{number}: invalid JSON ({exc.msg})") from None
        for field in ("task_id", "completion"):
            if not isinstance(row, dict) or not isinstance(row.get(field), str):
                raise UsageError(f"{path}:{number}: field {field!r} missing or not a string")
        if row["task_id"] not in known:
            raise UsageError(f"{path}:{number}: field 'task_id' names unknown task "
                             f"{row['task_id']!r}")
        rows.append((row["task_id"], row["completion"]))
    return rows


async def grade_import(suite: Suite, task: Task, index: int, completion: str,
                       sandbox: Sandbox) -> Sample:
    program = suite.program_from_completion(task, completion)
    grade = await suite.grade(task, program, sandbox)
    attempt = Attempt(1, grade.verdict, reply=completion, code=program, output=grade.output,
                      tests=grade.tests, test_seconds=grade.seconds, details=dict(grade.details))
    if not completion.strip():
        attempt.verdict = Verdict.NOT_GENERATED
    return Sample(task.id, index, [attempt])


async def import_samples(store: Store, path: Path, suite_name: str, workers: int = 2) -> str:
    suite = create_suite(suite_name, {})
    tasks = {t.id: t for t in suite.load_tasks()}
    rows = read_samples(path, set(tasks))
    seen: Counter[str] = Counter()
    indexed = []
    for task_id, completion in rows:
        indexed.append((task_id, seen[task_id], completion))
        seen[task_id] += 1
    config = RunConfig(suite=suite_name, model=f"import:{path.name}", protocol="completion",
                       samples=max(seen.values(), default=1))
    run_id = new_run_id()
    store.create_run(RunRecord(run_id, suite_name, config.model,
                               config.as_dict() | {"suite_version": suite.version(),
                                                   "imported_from": str(path)}))
    async with Sandbox(workers=workers, hidden=hidden_paths(suite)) as sandbox:
        async def one(task_id: str, index: int, completion: str) -> None:
            sample = await grade_import(suite, tasks[task_id], index, completion, sandbox)
            store.save_sample(run_id, sample)

        await asyncio.gather(*(one(*row) for row in indexed))
    store.finish_run(run_id)
    return run_id
