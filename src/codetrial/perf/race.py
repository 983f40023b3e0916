"""Build and run a speed race of validators in the sandbox, and read its measurements.

Every contender, trusted or not, is timed inside one sandbox program (`_timer.py`): generated
code never runs in the harness, and all contenders share one process, interleaved, so they
see the same machine state. Answers come back with the timings and are checked here against
jsonschema; a wrong contender's timings are kept but marked, and left out of the ratios.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codetrial.core import InfraError, UsageError
from codetrial.perf.cases import SCENARIOS, SIZES, RaceCase
from codetrial.sandbox import Limits, Sandbox
from codetrial.sandbox.judged import STDLIB
from codetrial.sandbox.types import Program
from codetrial.store import Store
from codetrial.suites.jsonschema.augment import load_validator
from codetrial.suites.jsonschema.contenders import (
    FASTJSONSCHEMA,
    JSONSCHEMA,
    JSONSCHEMA_RS,
    SchemaSpec,
    contender_code,
)

TIMER = (Path(__file__).parent / "_timer.py").read_text()
LIBRARIES = {"jsonschema": JSONSCHEMA, "fastjsonschema": FASTJSONSCHEMA,
             "jsonschema-rs": JSONSCHEMA_RS}
PRELOAD = ("jsonschema", "jsonschema_rs", "fastjsonschema", *STDLIB)


@dataclass(frozen=True)
class Settings:
    sizes: tuple[int, ...] = SIZES
    point_seconds: float = 1.0  # time budget per (case, scenario, size) once min_rounds are done
    min_rounds: int = 5
    max_rounds: int = 60
    target_spread: float = 0.05  # stop when interquartile range / median is below this
    min_batch_seconds: float = 0.002
    slow_seconds: float = 2.0
    total_seconds: float = 600.0

    def for_timer(self) -> dict[str, Any]:
        return {"point_seconds": self.point_seconds, "min_rounds": self.min_rounds,
                "max_rounds": self.max_rounds, "target_spread": self.target_spread,
                "min_batch_ns": int(self.min_batch_seconds * 1e9),
                "slow_seconds": self.slow_seconds}


@dataclass
class Measurement:
    case: str
    scenario: str
    size: int
    contender: str
    median_ns: float
    best_ns: float
    spread: float
    rounds: int
    calls: int
    correct: bool

    @property
    def ns(self) -> float:
        """The figure used everywhere: the best round, least disturbed by other load (timeit's
        advice); the median and the spread are kept to show how noisy the machine was."""
        return self.best_ns

    @property
    def per_second(self) -> float:
        return 1e9 / self.ns if self.ns else float("inf")


@dataclass
class RaceResult:
    measurements: list[Measurement] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # contenders that failed to load or answer

    def to_json(self) -> dict[str, Any]:
        return {"measurements": [asdict(m) | {"per_second": m.per_second}
                                 for m in self.measurements], "problems": self.problems}


def library_contenders(case: RaceCase) -> dict[str, str]:
    """The compiler and the libraries, each building its validator once and reusing it."""
    spec = SchemaSpec(case.schema)
    return {label: contender_code(name, spec) for label, name in LIBRARIES.items()}


def generated_contenders(store: Store, run_id: str, case: RaceCase) -> dict[str, str]:
    """The run's passing validators for the case's schema group, named by model and sample."""
    record = store.get_run(run_id)
    if record.suite != "jsonschema":
        raise UsageError(f"run {run_id} is a {record.suite} run, not a jsonschema run")
    found = {}
    for sample in store.load_samples(run_id):
        details = sample.attempts[-1].details if sample.attempts else {}
        if (sample.passed and details.get("file") == case.file
                and details.get("description") == case.description):
            found[f"{record.model} {sample.task_id}#{sample.index}"] = sample.attempts[-1].code
    return found


@dataclass(frozen=True)
class Point:
    case: str
    scenario: str
    size: int
    instance: Any
    expected: bool


def points_of(case: RaceCase, settings: Settings) -> list[Point]:
    reference = load_validator(contender_code(JSONSCHEMA, SchemaSpec(case.schema)))
    out = []
    for scenario in SCENARIOS:
        for size in case.sizes(settings.sizes):
            instance = case.instance(size, scenario)
            out.append(Point(case.name, scenario, size, instance, reference(instance)))
    return out


def race_program(entries: list[tuple[dict[str, str], list[Point]]], settings: Settings
                 ) -> Program:
    cases = [{"contenders": contenders,
              "points": [{"instance": json.dumps(p.instance), "group": p.scenario}
                         for p in points]} for contenders, points in entries]
    payload = {"cases": cases, "settings": settings.for_timer()}
    return Program(code=TIMER, files={"race.json": json.dumps(payload)})


async def run_race(cases: list[RaceCase], extra: dict[str, dict[str, str]], settings: Settings,
                   sandbox: Sandbox | None = None) -> RaceResult:
    """Race every case's libraries, baselines and `extra[case.name]` contenders."""
    entries = [({**library_contenders(c), **c.baselines, **extra.get(c.name, {})},
                points_of(c, settings)) for c in cases]
    limits = Limits(wall_seconds=settings.total_seconds, cpu_seconds=settings.total_seconds,
                    memory_mb=4096, max_output_bytes=256_000)
    program = race_program(entries, settings)
    if sandbox is None:
        async with Sandbox(workers=1, preload=PRELOAD) as own:
            outcome = await own.run(program, limits)
    else:
        outcome = await sandbox.run(program, limits)
    if outcome.status != "ok" or not isinstance(outcome.report, list):
        tail = (outcome.stderr or outcome.detail).strip()[-500:]
        raise InfraError(f"the race program ended with {outcome.status}: {tail}")
    return read_race(entries, outcome.report)


def read_race(entries: list[tuple[dict[str, str], list[Point]]], report: list[dict]
              ) -> RaceResult:
    result = RaceResult()
    for (_, points), case_report in zip(entries, report, strict=True):
        result.problems += [f"{points[0].case}: {name}: {status}"
                            for name, status in case_report["loaded"].items() if status != "ok"]
        for point, measured in zip(points, case_report["points"], strict=True):
            read_point(point, measured, result)
    return result


def read_point(point: Point, measured: dict[str, Any], result: RaceResult) -> None:
    for name, (kind, value) in measured["answers"].items():
        if kind != "bool" or value != point.expected:
            result.problems.append(f"{point.case} {point.scenario} size {point.size}: {name} "
                                   f"answered {kind} {value!r}, expected {point.expected}")
    for name, t in measured["timings"].items():
        kind, value = measured["answers"][name]
        result.measurements.append(Measurement(
            point.case, point.scenario, point.size, name, t["median_ns"], t["best_ns"],
            t["spread"], t["rounds"], t["calls"], kind == "bool" and value == point.expected))
