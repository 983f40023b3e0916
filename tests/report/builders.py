"""Runs written straight into a Store, for the cases a reference run never produces: infra
errors, failures with test output, passes on a later try, hostile model output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codetrial.core import Attempt, Sample, TestResult, Verdict
from codetrial.store import RunRecord, Store

# A model name that would run if it reached the page (or a chart's JSON) unescaped.
HOSTILE_NAME = "m</script><script>document.documentElement.dataset.pwned = 3</script>"
# Model output that would run if any of it reached the page unescaped.
HOSTILE = ('</script><script>document.documentElement.dataset.pwned = 1</script>'
           '<img src=x onerror="document.documentElement.dataset.pwned = 2">'
           '<!-- <b id="injected">')


def add_run(store: Store, run_id: str, suite: str, model: str, stored: list[Sample],
            finished: bool = True, **config: Any) -> str:
    """finished=False: as a run whose process died after storing `stored`."""
    store.create_run(RunRecord(run_id, suite, model, {"suite": suite, "model": model,
                                                      "samples": 1, **config}))
    for sample in stored:
        store.save_sample(run_id, sample)
    if finished:
        store.finish_run(run_id)
    return run_id


def attempt(verdict: Verdict, try_index: int = 1, **fields: Any) -> Attempt:
    tests = [TestResult("check", Verdict.PASSED if verdict == Verdict.PASSED else verdict,
                        "" if verdict == Verdict.PASSED else "AssertionError: wrong")]
    return Attempt(try_index=try_index, verdict=verdict, tests=tests, model_seconds=0.5,
                   test_seconds=0.25, prompt_tokens=10, completion_tokens=5, **fields)


def completion_run(store: Store, run_id: str = "hostile", model: str = "model-x") -> str:
    """Three samples: one passed, one failed with hostile output, one infra error."""
    samples = [
        Sample("HumanEval/0", 0, [attempt(Verdict.PASSED, request={"kind": "completion",
                                                                    "prompt": "def f():\n"},
                                          reply="    return 1\n")]),
        Sample("HumanEval/1", 0, [attempt(Verdict.FAILED, request={
            "kind": "chat", "messages": [{"role": "user", "content": "write g"}]},
            reply=HOSTILE, code=f"def g():\n    return {HOSTILE!r}\n",
            output=f"Traceback: AssertionError {HOSTILE}")]),
        Sample("HumanEval/2", 0, [Attempt(1, Verdict.INFRA_ERROR, output="API timed out")]),
    ]
    return add_run(store, run_id, "humaneval", model, samples, protocol="completion")


def edit_sample(task: str, repeat: int, passed_on: int | None, tries: int = 2) -> Sample:
    """An exercise that passes on try `passed_on` (None: never) of `tries`."""
    last = passed_on or tries
    attempts = [attempt(Verdict.PASSED if t == passed_on else Verdict.FAILED, t,
                        request={"kind": "chat", "messages": [
                            {"role": "user", "content": f"fix solution.py (try {t})"}]},
                        reply=f"edit {t}", code=f"# solution.py\nanswer = {t}\n",
                        output="" if t == passed_on else f"FAIL: test_answer (try {t})",
                        details={"applied": [f"solution.py: replaced line {t}"],
                                 "malformed_replies": 0})
                for t in range(1, last + 1)]
    return Sample(task, repeat, attempts, {"edit_format": "diff", "tries": tries})


def edit_run(store: Store, run_id: str, model: str, passes: list[list[int | None]]) -> str:
    """passes[repeat][task]: the try each exercise passed on."""
    samples = [edit_sample(f"HumanEval/{t}", r, p) for r, row in enumerate(passes)
               for t, p in enumerate(row)]
    return add_run(store, run_id, "humaneval-edit", model, samples, protocol="edit",
                   samples=len(passes), suite_options={"edit_format": "diff", "tries": "2"})


def schema_sample(task: str, verdict: str, passed: int, total: int,
                  mistakes: list[dict[str, Any]] = ()) -> Sample:
    tests = [TestResult(f"test {i}", Verdict.PASSED if i < passed else Verdict.FAILED)
             for i in range(total)]
    details = {"schema_verdict": verdict, "file": task.split("/")[0], "tests_passed": passed,
               "tests_total": total, "schema": '{"type": "integer"}', "description": task,
               "mistakes": list(mistakes), "unexplained": 0}
    return Sample(task, 0, [Attempt(1, Verdict.PASSED if verdict == "ok" else Verdict.FAILED,
                                    tests=tests, details=details)])


MISTAKE = {"tag": "bool-is-int", "title": "treats true as 1", "hits": 2, "probes": 5,
           "example": {"instance": "true", "expected": False, "got": True}}


def schema_run(store: Store, run_id: str, model: str, with_mistake: bool) -> str:
    samples = [schema_sample("type/0", "ok", 3, 3),
               schema_sample("enum/0", "partial", 1, 2, [MISTAKE] if with_mistake else [])]
    return add_run(store, run_id, "jsonschema", model, samples, protocol="chat",
                   suite_options={"draft": "2020-12"})


def synth_state(directory: Path) -> dict[str, int]:
    """A synthesis state beside the cases: 6 examples of 4 functions, 5 kept, 4 instructed,
    3 validated, 3 written (and 1 waiting for review). Returns the funnel it should give."""
    from codetrial.synth.filtering import Filtered
    from codetrial.synth.seeds import Draft, Seed
    from codetrial.synth.state import State

    draft = Draft("python", "", "x = <here>", "1", "x")
    functions = ["gcd", "gcd", "median", "mode", "mode", "dumps"]
    seeds = [Seed(f"seed{i}", f, f"{f}()", draft) for i, f in enumerate(functions)]
    state = State(directory)
    try:
        state.save_filtered([Filtered(s, "error" if i == 5 else None, 1)
                             for i, s in enumerate(seeds)])
        for i, seed in enumerate(seeds[:4]):
            state.record_step(seed.id, "instruction", 0, "m", {}, "do it", "do it", "ok")
            passed = i < 3
            state.record_step(seed.id, "validation", 0, "m", {}, "1", {"fill": "1", "detail": ""},
                              "passed" if passed else "failed")
            state.set_case(seed.id, "written" if passed else "review")
        state.record_step(seeds[4].id, "instruction", 0, "m", {}, "f()", "f()", "names-function")
    finally:
        state.close()
    return {"documented functions": 4, "seeds": 5, "instructions": 4, "validated": 3,
            "cases": 3}


def perf_file(path: Path) -> Path:
    """A race as `codetrial perf jsonschema --out` writes it: a quadratic contender falls
    behind a linear one as the input grows."""
    sizes = (1, 10, 100, 1000)
    ratios = [{"case": "uniqueItems", "scenario": scenario, "size": n, "contender": name,
               "ratio": round(factor(n), 2)}
              for scenario in ("valid", "invalid") for n in sizes
              for name, factor in (("jsonschema", lambda n: 1.0),
                                   ("model-x", lambda n: 1 + n / 10))]
    path.write_text(json.dumps({"measurements": [], "problems": [], "ratios": ratios,
                                "slopes": [], "crossovers": [], "run_id": "race-1"}))
    return path
