"""Where sandboxed grading runs: `local` (this machine's warm Sandbox) or `ray` (one per node).

Protocols and suites only call `await executor.run(program, limits, watch=None)`, exactly the
Sandbox's method, so they do not know which executor graded their program (the ray executor
sends a watch, pickled, to the node that runs its program).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Protocol

from codetrial.runner import early
from codetrial.sandbox import Limits, Outcome, Program, Sandbox
from codetrial.sandbox.slot import Watch

if TYPE_CHECKING:
    from codetrial.runner.config import RunConfig


class Executor(Protocol):
    """Runs programs under limits somewhere; `capacity` is how many run at once."""

    capacity: int

    @property
    def mode(self) -> str: ...

    async def run(self, program: Program, limits: Limits = ...,
                  watch: Watch | None = None) -> Outcome: ...

    async def aclose(self) -> None: ...


class LocalExecutor:
    """This machine's Sandbox: `workers` warm worker processes."""

    def __init__(self, workers: int, preload: tuple[str, ...] = (),
                 hidden: tuple[str, ...] = (), sandbox: Sandbox | None = None) -> None:
        """`sandbox`: one already made for these workers, preload and hidden paths."""
        self.sandbox = sandbox or Sandbox(workers=workers, preload=preload, hidden=hidden)
        self.capacity = workers

    @property
    def mode(self) -> str:
        return self.sandbox.mode

    @property
    def unmasked(self) -> list[str]:
        return self.sandbox.unmasked

    async def run(self, program: Program, limits: Limits = Limits(),  # noqa: B008
                  watch: Watch | None = None) -> Outcome:
        return await self.sandbox.run(program, limits, watch)

    async def warm(self) -> None:
        """Start every worker now, in the background, not when the first samples wait."""
        self.sandbox.start()

    async def aclose(self) -> None:
        await self.sandbox.aclose()


async def start_executor(config: RunConfig, preload: tuple[str, ...] = (),
                         hidden: tuple[str, ...] = ()) -> Executor:
    """The run's executor with its workers started; they import `preload` once (the suite's
    programs would each import them) and mask `hidden` (the suite's answer keys). A local
    sandbox is built in a thread (its probe waits for a trial worker), so the caller can
    prepare the rest of the run meanwhile."""
    executor: Executor
    if config.executor == "ray":
        from codetrial.runner.ray_executor import RayExecutor

        executor = await RayExecutor.start(config.ray_address, preload=preload, hidden=hidden)
    else:
        workers = config.sandbox_workers
        begun = await early.take(workers, preload, hidden)
        executor = (LocalExecutor(workers, preload, hidden, sandbox=begun) if begun is not None
                    else await _start_local(workers, preload, hidden))
    if unmasked := getattr(executor, "unmasked", []):
        print(f"codetrial: warning: the {executor.mode} sandbox cannot mask these answer keys "
              f"(only file permissions guard them): {', '.join(unmasked)}", file=sys.stderr)
    return executor


async def _start_local(workers: int, preload: tuple[str, ...], hidden: tuple[str, ...]
                       ) -> LocalExecutor:
    local = await asyncio.to_thread(LocalExecutor, workers, preload, hidden)
    try:
        await local.warm()
    except BaseException:
        await local.aclose()
        raise
    return local


@asynccontextmanager
async def open_executor(config: RunConfig, preload: tuple[str, ...] = (),
                        hidden: tuple[str, ...] = (),
                        started: Awaitable[Executor] | None = None) -> AsyncIterator[Executor]:
    """The run's executor (`started` when the caller began starting it earlier), stopped after
    the last sample."""
    executor = await (started or start_executor(config, preload, hidden))
    try:
        yield executor
    finally:
        await executor.aclose()


async def discard(started: asyncio.Future[Executor]) -> None:
    """Stop an executor that was being started for a run that will not happen."""
    try:
        executor = await started
    except BaseException:  # noqa: BLE001 - the run is failing already; its error wins
        return
    await executor.aclose()
