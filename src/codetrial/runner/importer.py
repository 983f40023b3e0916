"""Grade completions made elsewhere: HumanEval-style `{task_id, completion}` JSONL lines.

An import is a run like any other (runner/engine.py's execute): a bounded number of samples in
flight, each stored as it finishes, a progress bar, and `codetrial run --resume RUN_ID` after a
kill grades only what is not stored. The file is read twice, a line at a time: once to check
every line before anything is stored, then once per sample, at its offset; so memory holds an
offset per sample, never the completions.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codetrial.core import Attempt, Sample, Task, UsageError, Verdict
from codetrial.models.base import Model, Reply, Request
from codetrial.protocols import Protocol, SampleContext
from codetrial.runner.config import RunConfig
from codetrial.runner.engine import Plan, execute
from codetrial.store import RunRecord, Store, new_run_id
from codetrial.suites import Suite, create_suite


class SampleFile:
    """The lines of a samples file, checked, and found again by (task id, index)."""

    def __init__(self, path: Path, known: set[str]) -> None:
        if not path.is_file():
            raise UsageError(f"{path}: file not found")
        self.path = path
        self.offsets: dict[tuple[str, int], int] = {}
        counts: Counter[str] = Counter()
        with path.open("rb") as lines:
            for offset, row in _rows(path, lines, known):
                task_id = row["task_id"]
                self.offsets[(task_id, counts[task_id])] = offset
                counts[task_id] += 1
        self.counts = counts

    def completion(self, task_id: str, index: int) -> str:
        with self.path.open("rb") as file:
            file.seek(self.offsets[(task_id, index)])
            return json.loads(file.readline())["completion"]


def _rows(path: Path, lines: Any, known: set[str]):
    """(offset, row) of each non-blank line; one clear error naming the file, line and
    field."""
    offset = 0
    for number, line in enumerate(lines, start=1):
        start, offset = offset, offset + len(line)
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(f"{path}:{number}: invalid JSON ({exc})") from None
        for field in ("task_id", "completion"):
            if not isinstance(row, dict) or not isinstance(row.get(field), str):
                raise UsageError(f"{path}:{number}: field {field!r} missing or not a string")
        if row["task_id"] not in known:
            raise UsageError(f"{path}:{number}: field 'task_id' names unknown task "
                             f"{row['task_id']!r}")
        yield start, row


async def grade_import(suite: Suite, task: Task, index: int, completion: str,
                       sandbox: Any) -> Sample:
    """The completion after the task's prompt, graded as it is (no stop sequences)."""
    program = suite.program_from_completion(task, completion)
    grade = await suite.grade(task, program, sandbox)
    attempt = Attempt(1, grade.verdict, reply=completion, code=program, output=grade.output,
                      tests=grade.tests, test_seconds=grade.seconds, details=dict(grade.details))
    if not completion.strip():
        attempt.verdict = Verdict.NOT_GENERATED
    return Sample(task.id, index, [attempt])


class ImportedProtocol(Protocol):
    """Each sample's completion comes from the file, not from a model."""

    name = "completion"

    def __init__(self, samples: SampleFile) -> None:
        self.samples = samples

    async def run(self, task: Task, ctx: SampleContext) -> Sample:
        completion = self.samples.completion(task.id, ctx.index)
        return await grade_import(ctx.suite, task, ctx.index, completion, ctx.sandbox)


class NoModel(Model):
    """An import asks no model."""

    def __init__(self, path: Path) -> None:
        self.name = f"import:{path.name}"

    async def generate(self, request: Request) -> Reply:
        raise AssertionError("an import asks no model")


OnStart = Callable[[str, int], Callable[[Sample], None]]


async def import_samples(store: Store, path: Path, suite_name: str, workers: int = 2,
                         resume: str | None = None,
                         on_start: OnStart = lambda run_id, todo: lambda sample: None,
                         options: dict[str, Any] | None = None) -> str:
    """Grade the file as a new run, or the samples a killed import (`resume`) did not store.
    `on_start(run_id, samples to grade)`, called before the first is graded, returns what to
    call with each sample once it is stored (a progress bar). `options`: the suite's
    (`test_timeout`), stored with the run and used again on resume."""
    if resume:
        options = store.get_run(resume).config.get("suite_options") or {}
    suite = create_suite(suite_name, options or {})
    tasks = {t.id: t for t in suite.load_tasks()}
    samples = SampleFile(path, set(tasks))
    config = RunConfig(suite=suite_name, model=f"import:{path.name}", protocol="completion",
                       samples=max(samples.counts.values(), default=1),
                       sandbox_workers=workers, suite_options=dict(options or {}))
    plan = Plan(config, suite, [tasks[t] for t in samples.counts], NoModel(path),
                ImportedProtocol(samples))
    run_id = resume or _start(store, plan, path, len(samples.offsets))
    done = store.finished_keys(run_id)
    work = [(tasks[t], i) for t, i in samples.offsets if (t, i) not in done]
    await execute(store, run_id, plan, work, on_start(run_id, len(work)))
    return run_id


def _start(store: Store, plan: Plan, path: Path, planned: int) -> str:
    run_id = new_run_id()
    store.create_run(RunRecord(run_id, plan.config.suite, plan.model.name,
                               plan.config.as_dict() | {
                                   "suite_version": plan.suite.version(),
                                   "imported_from": str(path.resolve()),
                                   "planned_samples": planned}))
    return run_id
