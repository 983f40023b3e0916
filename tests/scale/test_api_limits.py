"""A run against a loopback OpenAI-compatible server that throttles: nothing is lost, the
limiter backs off and comes back."""

from __future__ import annotations

import asyncio
from pathlib import Path

from codetrial.runner import RunConfig
from codetrial.store import Store
from codetrial.suites.humaneval import read_problems
from tests.scale.loopback import LoopbackServer
from tests.scale.openai_server import Answer, OpenAIRoutes
from tests.scale.runs import run_to_end


def canonical_completions() -> Answer:
    """Answers a HumanEval prompt with its canonical body, so every sample should pass."""
    solutions = {p["prompt"]: p["canonical_solution"] for p in read_problems()}
    return lambda body: solutions.get(body.get("prompt", ""), "    pass\n")


def test_throttled_run_loses_nothing_and_the_limiter_recovers(tmp_path: Path):
    routes = OpenAIRoutes(canonical_completions(), latency=0.05, throttle={10, 11, 12},
                          retry_after="1")
    with LoopbackServer(routes) as server:
        config = RunConfig(suite="humaneval", model="openai:fake", base_url=f"{server.url}/v1",
                           limit=60, concurrency=8, cache=False)
        store = Store(tmp_path / "runs.sqlite")
        run_id, plan = asyncio.run(run_to_end(config, store))
    samples = store.load_samples(run_id)
    assert len(samples) == 60 and all(s.passed for s in samples)
    assert (routes.throttled, routes.answered) == (3, 60)
    assert server.max_in_flight <= 8
    assert plan.limiter is not None
    state = plan.limiter.state()
    assert state.throttled == 3 and state.backoffs >= 1 and state.failures == 0
    limits = [limit for _, limit in plan.limiter.history]
    low = limits.index(min(limits))
    assert min(limits) <= 4 and limits[low:] == sorted(limits[low:]) and limits[-1] == 8
