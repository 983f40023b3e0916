"""Plan and drive a run: tasks x samples x model, bounded concurrency, samples stored as done."""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codetrial.core import Attempt, Sample, Task, UsageError, Verdict
from codetrial.models import Model, ModelOptions, create_model
from codetrial.models.cache import CachedModel, ResponseCache
from codetrial.models.pricing import PricedModel, PriceOverride
from codetrial.protocols import PROTOCOLS, Protocol, SampleContext, Sampling
from codetrial.runner.batched_writes import BatchedWrites
from codetrial.runner.config import RunConfig
from codetrial.runner.executors import Executor, discard, open_executor, start_executor
from codetrial.runner.gate import GatedModel
from codetrial.runner.hidden import hidden_paths
from codetrial.store import RunRecord, Store, new_run_id
from codetrial.suites import Suite, create_suite, select_tasks

if TYPE_CHECKING:
    from codetrial.runner.limiter import AdaptiveLimiter


@dataclass
class Plan:
    """A validated run: everything that can fail on bad input has been checked."""

    config: RunConfig
    suite: Suite
    tasks: list[Task]
    model: Model
    protocol: Protocol
    sampling: Sampling = Sampling()
    sent: dict[str, Any] = field(default_factory=dict)  # what the backend sends: stored
    limiter: AdaptiveLimiter | None = None  # API models only; its state() feeds the display
    executor: asyncio.Future[Executor] | None = None  # started by prepare, taken by execute

    async def aclose(self) -> None:
        """The model's connections, and the executor if no execute took it."""
        started, self.executor = self.executor, None
        try:
            await self.model.aclose()
        finally:
            if started is not None:
                await discard(started)


async def prepare(config: RunConfig, cache_path: Path | None) -> Plan:
    """Build suite, tasks, model and protocol; raises UsageError before anything is stored.
    The executor starts first and comes up while tasks are loaded and the model is checked."""
    suite = create_suite(config.suite, config.suite_options)
    starting = asyncio.ensure_future(start_executor(config, suite.preload, hidden_paths(suite)))
    try:
        await asyncio.sleep(0)  # let its thread start before the loading below holds this one
        tasks = select_tasks(suite.load_tasks(), config.task_ids, config.limit)
        protocol, model, limiter = await _protocol_and_model(config, suite, cache_path)
    except BaseException:
        await discard(starting)
        raise
    plan = Plan(config, suite, tasks, model, protocol, run_sampling(config, protocol, model),
                limiter=limiter, executor=starting)
    try:  # a combination the API documents as refused stops here, before anything is stored
        plan.sent = model.sent_settings(plan.sampling.request(kind=protocol.request_kind))
    except BaseException:
        await plan.aclose()
        raise
    return plan


def run_sampling(config: RunConfig, protocol: Protocol, model: Model) -> Sampling:
    """The settings every request carries; the budget is the protocol's unless set."""
    reasoning = model.reasoning or bool(config.reasoning_effort or config.thinking_budget)
    budget = config.max_tokens or protocol.budget(reasoning)
    return Sampling(config.temperature, config.top_p, budget, config.seed,
                    config.reasoning_effort, config.thinking_budget)


async def _protocol_and_model(config: RunConfig, suite: Suite, cache_path: Path | None
                              ) -> tuple[Protocol, Model, AdaptiveLimiter | None]:
    protocol = PROTOCOLS.get(config.protocol or suite.default_protocol)()
    protocol.check(suite, config.suite_options, config.model)
    options = ModelOptions(base_url=config.base_url, api_key_env=config.api_key_env,
                           context_window=config.context_window, max_retries=0,
                           timeout_seconds=config.request_timeout)
    backend = create_model(config.model, options)
    try:
        await backend.check()
        model, limiter = backend, None
        if model.rate_limited:  # the limiter retries, not the SDK (max_retries=0)
            from codetrial.runner.limiter import AdaptiveLimiter, RateLimitedModel

            limiter = AdaptiveLimiter(config.concurrency, config.max_concurrency,
                                      max_attempts=config.max_attempts)
            model = RateLimitedModel(model, limiter)
        else:
            model = GatedModel(model, config.concurrency)
        if config.cache and cache_path is not None and model.name != "reference":
            model = CachedModel(model, ResponseCache(cache_path))
        if backend.rate_limited or config.price_in is not None or config.price_out is not None:
            model = PricedModel(model, config.base_url,
                                PriceOverride(config.price_in, config.price_out))
    except BaseException:
        await backend.aclose()  # its HTTP client, before the loop that owns it ends
        raise
    return protocol, model, limiter


def start_run(store: Store, plan: Plan) -> str:
    run_id = new_run_id()
    config = plan.config.as_dict()
    config["suite_version"] = plan.suite.version()
    config["protocol"] = plan.protocol.name
    config["planned_samples"] = len(plan.tasks) * plan.config.samples
    config["sent"] = plan.sent
    config.update(plan.suite.run_settings(plan.tasks))
    store.create_run(RunRecord(run_id, plan.config.suite, plan.model.name, config))
    return run_id


def pending(store: Store, run_id: str, plan: Plan) -> list[tuple[Task, int]]:
    done = store.finished_keys(run_id)
    return [(t, i) for t in plan.tasks for i in range(plan.config.samples)
            if (t.id, i) not in done]


async def execute(
    store: Store, run_id: str, plan: Plan, work: list[tuple[Task, int]],
    on_sample: Callable[[Sample], None] = lambda s: None,
) -> None:
    """Run the pending samples; each is stored within COMMIT_SECONDS of its end (with the
    others that end meanwhile), and reported to `on_sample` once stored."""
    queue: asyncio.Queue[tuple[Task, int]] = asyncio.Queue()
    for item in work:
        queue.put_nowait(item)
    sampling = plan.sampling
    stored = store.stored_keys(run_id)  # infra errors being retried: replaced, not added
    writes = BatchedWrites(store, run_id, on_sample)
    started, plan.executor = plan.executor, None
    folding: asyncio.Future[None] | None = None
    try:
        async with open_executor(plan.config, plan.suite.preload, hidden_paths(plan.suite),
                                 started) as executor:
            await _run_all(queue, plan, executor, sampling, stored, writes)
            store.finish_run(run_id)
            # the log's fsyncs wait while the workers stop, rather than after them
            folding = asyncio.ensure_future(asyncio.to_thread(store.fold_log))
    finally:
        if folding is not None:
            await folding


async def _run_all(queue: asyncio.Queue[tuple[Task, int]], plan: Plan, executor: Executor,
                   sampling: Sampling, stored: set[tuple[str, int]],
                   writes: BatchedWrites) -> None:
    """Every queued sample, samples_in_flight at a time; each finished one goes to `writes`."""

    async def worker() -> None:
        while not queue.empty():
            task, index = queue.get_nowait()
            ctx = SampleContext(plan.suite, plan.model, executor, sampling, index,
                                plan.config.suite_options)
            sample = await run_sample(plan.protocol, task, ctx)
            writes.add(sample, replace=(task.id, index) in stored)

    try:
        await asyncio.gather(*(worker() for _ in range(samples_in_flight(plan, executor))))
    finally:  # an interrupted run keeps what it graded
        writes.flush()


def samples_in_flight(plan: Plan, executor: Executor) -> int:
    """Enough samples to fill every model slot (the limiter's highest level) and to keep each
    sandbox worker busy with one more program queued, whatever the model's speed: the model's
    concurrency bounds its calls (GatedModel, the limiter), not the samples being graded."""
    slots = plan.limiter.maximum if plan.limiter is not None else plan.config.concurrency
    return slots + 2 * executor.capacity


async def run_sample(protocol: Protocol, task: Task, ctx: SampleContext) -> Sample:
    """A harness fault inside one sample is that sample's infra error, not the run's end; a
    usage error (the API refused a setting) ends the run: every sample would meet it."""
    try:
        return await protocol.run(task, ctx)
    except UsageError:
        raise
    except Exception:  # noqa: BLE001 - recorded, retried on resume
        failed = Attempt(1, Verdict.INFRA_ERROR, output=traceback.format_exc(limit=8))
        return Sample(task.id, ctx.index, [failed])
