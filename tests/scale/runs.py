"""Drive a whole run in this process, as the CLI does, keeping the plan for inspection."""

from __future__ import annotations

from codetrial.core import Sample
from codetrial.runner import RunConfig, execute, pending, prepare, start_run
from codetrial.runner.engine import Plan
from codetrial.store import Store


async def run_to_end(config: RunConfig, store: Store) -> tuple[str, Plan]:
    plan = await prepare(config, None)
    run_id = start_run(store, plan)
    try:
        await execute(store, run_id, plan, pending(store, run_id, plan))
    finally:
        await plan.model.aclose()
    return run_id, plan


def verdicts(samples: list[Sample]) -> dict[tuple[str, int], list[str]]:
    return {(s.task_id, s.index): [str(a.verdict) for a in s.attempts] for s in samples}
