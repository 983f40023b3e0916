"""Ask candidate `validate` functions about instances, in the sandbox, and read the answers.

The sandbox program (`_grader.py`) sees code and instances only; labels stay here. Several
candidates can share one program, which is how the compliance check grades a whole suite for
the price of one interpreter.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codetrial.sandbox import Limits, Outcome, Program, Sandbox

GRADER = (Path(__file__).parent / "_grader.py").read_text()


@dataclass
class Answer:
    """What validate said about one instance: a bool, or an error/timeout with its reason."""

    kind: str  # "bool", "error", "timeout"
    value: Any

    @property
    def says(self) -> bool | None:
        return self.value if self.kind == "bool" else None

    def is_right(self, expected: bool) -> bool:
        return self.kind == "bool" and self.value == expected


@dataclass
class Checked:
    """One candidate's answers; `load` is "ok" or why it did not load or run at all."""

    load: str
    answers: list[Answer] = field(default_factory=list)
    status: str = "ok"  # the sandbox status of the whole program
    tried: list[str] = field(default_factory=list)  # what the code tried (never a verdict)

    @property
    def loaded(self) -> bool:
        return self.load == "ok"


@dataclass(frozen=True)
class Case:
    code: str
    instances: list[Any]


def limits_for(cases: list[Case]) -> Limits:
    calls = sum(len(c.instances) for c in cases)
    seconds = min(600.0, 30.0 + 0.05 * calls)
    return Limits(wall_seconds=seconds, cpu_seconds=seconds, memory_mb=2048,
                  max_output_bytes=256_000)


def program_for(cases: list[Case]) -> Program:
    payload = [{"code": c.code, "instances": [json.dumps(i) for i in c.instances]}
               for c in cases]
    return Program(code=GRADER, files={"cases.json": json.dumps(payload)})


async def check(sandbox: Sandbox, cases: list[Case]) -> tuple[list[Checked], Outcome]:
    outcome = await sandbox.run(program_for(cases), limits_for(cases))
    return read_outcome(outcome, len(cases)), outcome


def read_outcome(outcome: Outcome, count: int) -> list[Checked]:
    """A program that died or reported nothing gives every case the same reason."""
    report = outcome.report
    if outcome.status == "ok" and isinstance(report, list) and len(report) == count:
        return [Checked(r["load"], [Answer(*a) for a in r["answers"]],
                        tried=[str(t) for t in r.get("tried") or []]) for r in report]
    return [Checked(why_no_report(outcome), [], outcome.status)] * count


def why_no_report(outcome: Outcome) -> str:
    if outcome.status == "ok":
        return "the program ended without reporting (exit or os._exit while loading?)"
    tail = (outcome.stderr or outcome.detail).strip().splitlines()[-1:] or [""]
    return f"{outcome.status}: {tail[0][:300]}"
