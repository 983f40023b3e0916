"""Grading on a real local Ray instance (2 CPUs) agrees with the local sandbox."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codetrial.core import InfraError, Verdict
from codetrial.runner import RunConfig
from codetrial.runner.executors import LocalExecutor
from codetrial.sandbox import Limits, Outcome, Program
from codetrial.store import Store
from codetrial.suites.grading import grade_by_value
from tests.hardening.square_check import HANGS_AFTER_A_WRONG_ANSWER, SQUARE, Counting
from tests.scale.runs import run_to_end, verdicts

ray = pytest.importorskip("ray", reason="the ray executor needs the extra codetrial[ray]")

PROGRAMS = [
    Program(code="__results__ = {'sum': 1 + 2}"),
    Program(code="assert 1 == 2, 'wrong'"),
    Program(code="import sys\nprint('out')\nsys.exit(3)"),
    Program(code="while True:\n    pass"),
]
LIMITS = Limits(wall_seconds=1, cpu_seconds=1)


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def summary(outcome: Outcome) -> tuple:
    return outcome.status, outcome.exit_code, outcome.report, outcome.stdout


@pytest.mark.timeout(180)
def test_humaneval_on_ray_gets_the_local_verdicts(tmp_path: Path, local_ray):
    store = Store(tmp_path / "runs.sqlite")
    seen = {}
    for executor in ("local", "ray"):
        config = RunConfig(suite="humaneval", model="reference", limit=20, concurrency=4,
                           executor=executor, cache=False)
        run_id, _ = asyncio.run(run_to_end(config, store))
        seen[executor] = verdicts(store.load_samples(run_id))
    assert len(seen["ray"]) == 20 and seen["ray"] == seen["local"]
    assert ray.is_initialized()  # the executor joined this instance and left it running


@pytest.mark.timeout(120)
def test_ray_outcomes_match_the_local_sandbox(local_ray):
    from codetrial.runner.ray_executor import RayExecutor

    async def outcomes(executor) -> list[tuple]:
        try:
            results = await asyncio.gather(*(executor.run(p, LIMITS) for p in PROGRAMS))
        finally:
            await executor.aclose()
        return [summary(o) for o in results]

    remote = asyncio.run(RayExecutor.start(None))
    assert remote.capacity == 2 and [n["workers"] for n in remote.nodes] == [2]
    on_ray = asyncio.run(outcomes(remote))
    assert on_ray == asyncio.run(outcomes(LocalExecutor(2)))
    assert [o[0] for o in on_ray] == ["ok", "error", "error", "timeout"]


@pytest.mark.timeout(120)
def test_a_lost_sandbox_actor_makes_an_infra_error(local_ray):
    from codetrial.runner.ray_executor import RayExecutor

    async def go() -> None:
        executor = await RayExecutor.start(None)
        try:
            ray.kill(executor._hosts[0].handle, no_restart=True)  # as if its node died
            with pytest.raises(InfraError, match="ray: the sandbox on .* failed"):
                await executor.run(PROGRAMS[0], LIMITS)
        finally:
            await executor.aclose()

    asyncio.run(go())


@pytest.mark.timeout(120)
def test_on_ray_a_decided_verdict_stops_the_program_on_its_node(local_ray):
    """The grader's watch travels with the program: a wrong first answer ends the program
    there, instead of the hang that follows running to the time limit."""
    from codetrial.runner.ray_executor import RayExecutor

    async def go() -> tuple:
        executor = await RayExecutor.start(None)
        try:
            ending = Counting(executor)
            grade = await grade_by_value(SQUARE, HANGS_AFTER_A_WRONG_ANSWER, ending,
                                         Limits(wall_seconds=60))
            right = await grade_by_value(SQUARE, "def sq(n):\n    return n * n\n", ending,
                                         Limits(wall_seconds=60))
            return grade, right, ending.ended
        finally:
            await executor.aclose()

    grade, right, ended = asyncio.run(go())
    assert (grade.verdict, right.verdict, ended) == (Verdict.FAILED, Verdict.PASSED,
                                                      ["stopped", "ok"])
    assert grade.seconds < 30 and "assert candidate(3) == 9" in grade.output
