"""`yaml`: a directory of YAML cases (from `codetrial synth`, or written by hand).

Each case is code with one `<here>` hole; the model fills it (protocols `fim` and `fill-chat`),
the completed code and then the case's test run in the sandbox on the engine the case names
(plain Python, DuckDB, or Spark). `--path DIR` (option `path`) names the directory.

A hole that is a string literal's body (SQL) takes the fill as data, and the test runs in the
same program. A hole for Python runs the filled code apart from the test, which sees the names it
reads as plain values (numbers, strings, containers, Fraction, Decimal; read once, before it
runs), calls the code's functions by value and imports what the context imports itself: a fill
cannot lie to the test, and a test of a Python hole compares data, not other objects (a DuckDB
connection, say, does not cross).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path
from typing import Any

from codetrial.core import Sample, Task, TestResult, UsageError
from codetrial.sandbox import Sandbox
from codetrial.suites.answers import tried_details
from codetrial.suites.base import Grade, Suite, suite
from codetrial.suites.grading import failure_text, verdict_of
from codetrial.synth.cases import Case, case_files, load_case
from codetrial.synth.engines import ENGINES
from codetrial.synth.execute import run_with_test

MOST_FAILED = 10


@suite("yaml")
class YamlCases(Suite):
    name = "yaml"
    default_protocol = "fim"

    def directory(self) -> Path:
        path = self.options.get("path")
        if not path:
            raise UsageError("suite yaml needs a directory of cases: --path DIR")
        return Path(path)

    def load_tasks(self) -> list[Task]:
        cases = {p.stem: load_case(p) for p in case_files(self.directory())}
        if not cases:
            raise UsageError(f"{self.directory()}: no .yaml cases in it")
        for engine in sorted({c.engine for c in cases.values()}):
            ENGINES[engine].check()
        return [Task(id=stem, suite=self.name, prompt=case.context, data=case.to_dict())
                for stem, case in cases.items()]

    def hidden_paths(self) -> tuple[Path, ...]:
        """The case files hold canonical solutions and tests."""
        return (self.directory(),)

    def version(self) -> str:
        """A digest of every case file: two runs compare only if they ran the same cases."""
        files = case_files(self.directory())
        digest = hashlib.sha256()
        for path in files:
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        return f"yaml {len(files)} cases sha256:{digest.hexdigest()[:16]}"

    # infill hooks (see protocols/infill.py) ------------------------------
    def infill_parts(self, task: Task) -> tuple[str, str]:
        return _case(task).parts()

    def reference_infill(self, task: Task) -> str:
        return task.data["canonical_solution"]

    def program_from_infill(self, task: Task, fill: str) -> str:
        return _case(task).filled(fill)

    async def grade(self, task: Task, code: str, sandbox: Sandbox) -> Grade:
        case = _case(task)
        outcome = await run_with_test(sandbox, ENGINES[case.engine], code, case.test,
                                      context=case.context)
        verdict = verdict_of(outcome)
        message = "" if outcome.status == "ok" else failure_text(outcome)
        return Grade(verdict, [TestResult("test", verdict, message)], message,
                     outcome.wall_seconds, tried_details(outcome))

    def summarize(self, samples: list[Sample]) -> dict[str, Any]:
        table = most_failed(samples, self._names())
        shown = ", ".join(f"{row['name']} ({row['passed']}/{row['samples']})" for row in table)
        return {"most_failed": table, "suite_figures": {"most failed functions": shown or "-"}}

    def _names(self) -> dict[str, str]:
        """Task id -> function name; the files may be gone when an old run is reported."""
        try:
            return {t.id: t.data["name"] for t in self.load_tasks()}
        except UsageError:
            return {}


def _case(task: Task) -> Case:
    return Case(**task.data)


def most_failed(samples: list[Sample], names: dict[str, str],
                top: int = MOST_FAILED) -> list[dict[str, Any]]:
    """Functions by failed samples (infra errors left out), most first; ties by name."""
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    cases: dict[str, set[str]] = defaultdict(set)
    for sample in samples:
        if sample.is_infra_error:
            continue
        name = names.get(sample.task_id, sample.task_id)
        per[name][0] += 1
        per[name][1] += int(sample.passed)
        cases[name].add(sample.task_id)
    rows = [{"name": name, "cases": len(cases[name]), "samples": n, "passed": c,
             "failed": n - c, "pass_rate": c / n} for name, (n, c) in per.items() if n > c]
    return sorted(rows, key=lambda r: (-r["failed"], r["pass_rate"], r["name"]))[:top]
