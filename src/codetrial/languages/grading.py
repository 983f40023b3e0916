"""Grade one polyglot exercise: a pristine copy, the solution files copied in, tests un-skipped,
built and run in the sandbox by the driver, per-test results read from the tools' reports.

Only the solution files the config lists, and source files the model added where the build
takes them (`Language.may_add`: a helper class, a header), reach the run; never a build file
(go.mod, Cargo.toml, package.json, ...) or a test: a model-written config or edited test
cannot change the verdict.
Every test the test files define must report a pass; one that never reports fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from importlib import resources
from typing import Any

from codetrial.core import Task, TestResult, Verdict
from codetrial.languages import scan
from codetrial.languages.base import Language, Plan, Workspace, get_language
from codetrial.languages.cache import cache_dir
from codetrial.sandbox import Limits, Outcome, Program, Sandbox
from codetrial.suites.base import Grade
from codetrial.suites.grading import verdict_of

DRIVER = ".codetrial-driver.py"
# go/counter asks for a test suite, not code: its test file defines no test
NO_TESTS = ("the test files define no test: graded by whether the build and the test run "
            "succeed, as aider's benchmark does (`go test` passes with no tests)")
_STATUS = {"timeout": Verdict.TIMEOUT, "oom": Verdict.OOM, "sandbox_error": Verdict.SANDBOX_ERROR}
# builds at once in this process: no more than the machine has cores, whatever the worker count
_BUILDS = threading.BoundedSemaphore(os.cpu_count() or 1)


def _driver_source() -> str:
    return resources.files("codetrial.languages").joinpath("_driver.py").read_text()


def workspace(lang: Language, slug: str, pristine: dict[str, str], solution: list[str],
              listed_tests: list[str], files: dict[str, str]) -> Workspace:
    """The exercise as graded: pristine, then the model's solution files, tests un-skipped."""
    editable = [p for p in solution if not lang.is_build_file(p)]
    editable += sorted(p for p in files if p not in editable and lang.may_add(p, pristine))
    work = dict(pristine)
    work.update({p: files[p] for p in editable if p in files})
    tests = sorted({*listed_tests, *(p for p in pristine if lang.is_test_file(p))})
    for path in tests:
        work[path] = lang.unskip(pristine[path])
    return Workspace(slug, work, editable, tests, cache_dir(), dict(pristine))


def program(lang: Language, ws: Workspace, plan: Plan | None = None) -> Program:
    plan = plan or lang.plan(ws)
    files = {**ws.files, **plan.files, DRIVER: _driver_source()}
    stdin = json.dumps({"steps": plan.steps, "collect": plan.collect})
    return Program(argv=(sys.executable, "-I", "-S", DRIVER), files=files, stdin=stdin)


async def grade(lang: Language, ws: Workspace, sandbox: Sandbox, limits: Limits) -> Grade:
    plan = await asyncio.to_thread(lang.plan, ws)  # warm builds run here (once), apart
    built = program(lang, ws, plan)
    await asyncio.to_thread(_BUILDS.acquire)
    try:
        outcome = await sandbox.run(built, lang.limits(limits))
    finally:
        _BUILDS.release()
    report = _keyed(_report(outcome), plan.key)
    expected = lang.expected({p: ws.files[p] for p in ws.tests})
    parsed, misfits = lang.read(report) if report else ([], [])
    reported, forged = unmask(parsed, plan)
    forged += [_own_names(f, plan) for f in misfits]
    tests = reconcile(expected, reported)
    # with decoys the test binary always exits as failed: its tests' results decide, and the
    # model reads their messages, not the raw output
    shown = _without_test_output(report, plan)
    verdict = _verdict(outcome, shown, tests)
    details = {"language": lang.name, **_integrity(lang, ws, forged)}
    if forged:  # failed whatever the tests said, and shown apart from ordinary failures
        verdict = Verdict.FAILED
        tests = [t if t.verdict != Verdict.PASSED else TestResult(
            t.name, Verdict.FAILED, "reported passed, in results that were forged") for t in tests]
    if not expected and not tests and report is not None and outcome.status == "ok":
        verdict = Verdict.PASSED if _steps_ok(report) else Verdict.FAILED
        details["no_tests"] = NO_TESTS
    return Grade(verdict, tests, _output(outcome, shown, tests), outcome.wall_seconds, details)


def _report(outcome: Outcome) -> dict[str, Any] | None:
    reports = outcome.report if isinstance(outcome.report, list) else []
    return reports[-1] if reports and isinstance(reports[-1], dict) else None


def _keyed(report: dict[str, Any] | None, key: str) -> dict[str, Any] | None:
    """The report with the output line that follows `key` moved out of the steps' output into
    report["keyed"]: only a process that was told the key can have written it."""
    if report is None or not key:
        return report
    keyed, steps = None, []
    for step in report.get("steps", ()):
        lines = str(step.get("output", "")).split("\n")
        mine = [line for line in lines if line.startswith(key + " ")]
        keyed = mine[-1][len(key) + 1:] if mine else keyed
        steps.append({**step, "output": "\n".join(line for line in lines
                                                  if not line.startswith(key + " "))})
    return {**report, "steps": steps, "keyed": keyed}


def _integrity(lang: Language, ws: Workspace, forged: list[str]) -> dict[str, Any]:
    """What the code tried (from its files: scan.py) and what the run shows it forged."""
    tried = scan.tried(lang.name, {p: ws.files[p] for p in ws.solution if p in ws.files})
    tried += [f"forged results: {f}" for f in forged]
    return {**({"tried": tried} if tried else {}), **({"forged": forged} if forged else {})}


def unmask(reported: list[TestResult], plan: Plan) -> tuple[list[TestResult], list[str]]:
    """Results under the tests' own names, without the decoys; a decoy that passed is evidence
    that the code wrote the results (see decoys.py)."""
    if not plan.names and not plan.decoys:
        return reported, []
    found, forged = [], []
    for test in reported:
        top, _, sub = test.name.partition("/")  # Go's subtests, Catch2's sections
        scope, _, top = top.rpartition("::")  # Rust's modules
        if top in plan.decoys:
            # a decoy fails as a whole; its subtests and sections may pass (Go, Catch2)
            if test.verdict == Verdict.PASSED and not sub:
                forged.append(f"a decoy of {plan.decoys[top]} (honest code fails it) passed")
            continue
        own = (f"{scope}::" if scope else "") + plan.names.get(top, top) + (f"/{sub}" if sub
                                                                            else "")
        found.append(TestResult(own, test.verdict, _own_names(test.message, plan)))
    return found, forged


def _own_names(text: str, plan: Plan) -> str:
    for run, own in plan.names.items():
        text = text.replace(run, own)
    for run, own in plan.decoys.items():
        text = text.replace(run, f"a decoy of {own}")
    return text


def reconcile(expected: list[str], reported: list[TestResult]) -> list[TestResult]:
    """The reported results, plus a failure for every expected test that never reported."""
    seen = {t.name for t in reported}
    names = {n.rsplit("::", 1)[-1].rsplit("/", 1)[-1] for n in seen}
    names |= {n.split("/", 1)[0] for n in seen}  # Catch2 reports "case/section"
    missing = [e for e in expected if e not in seen and e not in names]
    return reported + [TestResult(m, Verdict.FAILED, "this test never reported a result")
                       for m in missing]


def _verdict(outcome: Outcome, report: dict[str, Any] | None, tests: list[TestResult]) -> Verdict:
    if outcome.status in _STATUS:
        return _STATUS[outcome.status]
    if report is None:
        return verdict_of(outcome) if outcome.status != "ok" else Verdict.ERROR
    if tests and all(t.verdict == Verdict.PASSED for t in tests) and _steps_ok(report):
        return Verdict.PASSED
    return Verdict.FAILED


def _steps_ok(report: dict[str, Any]) -> bool:
    return all(s.get("exit") == 0 for s in report.get("steps", ()))


def _without_test_output(report: dict[str, Any] | None, plan: Plan) -> dict[str, Any] | None:
    """The report less the test step when decoys ran (they fail): the model reads its tests'
    messages, not the raw output, and the step's exit status decides nothing."""
    if report is None or not plan.decoys:
        return report
    steps = [s for s in report.get("steps", ())
             if str(s.get("name")).partition(":")[0] != "test"]  # Rust's: test:<binary>
    return {**report, "steps": steps}


def _output(outcome: Outcome, report: dict[str, Any] | None, tests: list[TestResult]) -> str:
    """What the model reads on its next try: the steps' output, then the failed tests."""
    if report is None:  # killed before the driver reported: what it printed, and why
        ended = "Tests timed out!" if outcome.status == "timeout" else outcome.detail
        return "\n".join([outcome.stdout, outcome.stderr, ended]).strip()[-20_000:]
    parts = [s.get("output", "") for s in report.get("steps", ()) if s.get("output")]
    failed = [f"{t.name}: {t.verdict}\n{t.message}".strip() for t in tests
              if t.verdict != Verdict.PASSED]
    if outcome.status == "timeout":
        parts.append("Tests timed out!")
    elif not tests:
        parts.append("No test ran: nothing the test files define reported a result.")
    return "\n".join([*parts, *failed]).strip()[-20_000:]


async def grade_task(task: Task, files: dict[str, str], sandbox: Sandbox, limits: Limits) -> Grade:
    """An exercism task of a language with a plan (the suite grades Python itself)."""
    data = task.data
    lang = get_language(data["language"])
    ws = workspace(lang, data["slug"], data["pristine"], list(data["stubs"]),
                   list(data["test_files"]), files)
    result = await grade(lang, ws, sandbox, limits)
    result.details.update(unskipped=lang.unskipped, toolchain=lang.version())
    return result
