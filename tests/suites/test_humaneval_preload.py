"""HumanEval's workers preload only what its programs import (suites/humaneval.py IMPORTS):
nothing its reference solutions need may be left for every child to import again (hashlib
aside, see IMPORTS)."""

from __future__ import annotations

import json

from codetrial.sandbox import Limits, Program, Sandbox
from codetrial.suites import create_suite
from codetrial.suites.grading import record_calls
from codetrial.suites.humaneval import call_check

HASHLIB = {"hashlib", "_hashlib", "_blake2"}

# Every reference solution, called with every argument list its test makes, in one program.
SOLVE_ALL = """
import json, sys
import codetrial_plain as plain
before = set(sys.modules)
failed = []
for task_id, code, entry, calls in json.loads(sys.stdin.read()):
    namespace = {"__name__": "__main__"}
    exec(compile(code, task_id, "exec"), namespace)
    for call in calls:
        args, kwargs = plain.decode(call)
        try:
            namespace[entry](*args, **kwargs)
        except Exception:  # a test may expect the reference to raise
            pass
__results__ = sorted(set(sys.modules) - before)
"""


def test_the_reference_solutions_import_nothing_the_workers_lack(bubblewrap: None) -> None:
    suite = create_suite("humaneval", {})
    tasks = suite.load_tasks()
    cases = [(t.id, suite.reference_code(t), t.data["entry_point"], record_calls(call_check(t)))
             for t in tasks]
    control = [("control", "import csv\ndef f():\n    pass\n", "f", [])]
    limits = Limits(wall_seconds=60, cpu_seconds=60, memory_mb=1024)
    with Sandbox(workers=1, preload=suite.preload) as sandbox:
        out = sandbox.run_sync(Program(code=SOLVE_ALL, stdin=json.dumps(cases)), limits)
        seen = sandbox.run_sync(Program(code=SOLVE_ALL, stdin=json.dumps(control)), limits)
    assert out.status == "ok", out.stderr
    assert len(cases) == 164
    # hashlib is left to the one task that uses it (HumanEval/162): OpenSSL in every fork
    # would cost more than its import there
    assert out.report == sorted(HASHLIB), f"imported in every child: {out.report}"
    assert "csv" in seen.report  # what a solution imports is seen
