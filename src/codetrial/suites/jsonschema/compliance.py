"""A contender's compliance with a whole selection, graded in one sandbox program.

Grades exactly as the suite does (same sandbox program, same verdict rules) but pays for one
interpreter and one library import instead of one per schema: the quick way to check that a
compiler or library scores what it should, e.g. against the figures in REFERENCE.md.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from codetrial.core import Task, Verdict
from codetrial.sandbox import Sandbox
from codetrial.suites.jsonschema.checking import Case, check
from codetrial.suites.jsonschema.contenders import contender_code, contender_version
from codetrial.suites.jsonschema.suite import spec_of
from codetrial.suites.jsonschema.verdicts import results_of, schema_verdict


async def compliance(contender: str, tasks: list[Task], sandbox: Sandbox) -> dict[str, Any]:
    cases = [Case(contender_code(contender, spec_of(t)), [x["data"] for x in t.data["tests"]])
             for t in tasks]
    checked, outcome = await check(sandbox, cases)
    verdicts: Counter[str] = Counter()
    passed = total = 0
    failed: list[str] = []
    for task, result in zip(tasks, checked, strict=True):
        tests = results_of(task.data["tests"], result)
        verdicts[schema_verdict(result, tests).value] += 1
        passed += sum(t.verdict == Verdict.PASSED for t in tests)
        total += len(tests)
        failed += [f"{task.id}: {t.name}" for t in tests if t.verdict != Verdict.PASSED]
    return {"contender": contender, "version": contender_version(contender),
            "status": outcome.status, "tests_passed": passed, "tests_total": total,
            "verdicts": dict(verdicts), "failed": failed}
