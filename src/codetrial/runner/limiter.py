"""Adaptive concurrency for API models: AIMD on the number of model calls in flight.

A provider says "too much" with 429 (rate limit) or 503/529 (overloaded), sometimes with a
Retry-After header. The limiter halves its limit on such a signal (once per congestion event:
calls already in flight when it halved do not halve it again), pauses every new call for the
Retry-After time, and adds one slot back after each run of `recover_after` successes. Failed
calls are retried here, so a throttled sample is delayed, not lost; after `max_attempts` the
InfraError reaches the protocol and the sample is stored as an infra error (retried on resume).

Backends need not know about the limiter: they raise InfraError `from` the SDK's exception, and
`classify` reads `status_code` and the response's Retry-After from that chain (the openai and
anthropic SDKs both expose them). A backend without an SDK may set `status_code` and
`retry_after` (seconds) on the exception it raises.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from codetrial.core.errors import InfraError
from codetrial.models.base import Model, ModelWrapper, Reply, Request

T = TypeVar("T")
OVERLOAD_STATUSES = frozenset({429, 503, 529})
RETRYABLE_CLIENT_STATUSES = frozenset({408, 409, 429})


@dataclass(frozen=True)
class Fault:
    """What one failed call tells the limiter."""

    overload: bool  # the provider asks for fewer calls
    retryable: bool
    retry_after: float | None = None


@dataclass(frozen=True)
class LimiterState:
    """A snapshot for the progress display and for tests."""

    limit: int
    maximum: int
    in_flight: int
    waiting: int
    successes: int
    throttled: int  # overload replies seen
    backoffs: int  # times the limit was cut
    retries: int
    failures: int  # calls given up on (became infra errors)
    paused_seconds: float  # left of a Retry-After pause

    def __str__(self) -> str:
        text = f"api {self.in_flight}/{self.limit}"
        if self.limit < self.maximum:
            text += f" (max {self.maximum})"
        if self.backoffs:
            text += f", {self.backoffs} backoffs"
        if self.paused_seconds > 0:
            text += f", paused {self.paused_seconds:.0f}s"
        return text


def classify(exc: BaseException) -> Fault:
    """Overload, retryable or final, from the first HTTP status found along the cause chain.

    No status at all (connection reset, timeout, empty reply) is a transient fault.
    """
    for cause in _chain(exc):
        status = getattr(cause, "status_code", None)
        if isinstance(status, int):
            retryable = status >= 500 or status in RETRYABLE_CLIENT_STATUSES
            return Fault(status in OVERLOAD_STATUSES, retryable, _retry_after(cause))
    return Fault(overload=False, retryable=True)


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 8:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _retry_after(exc: BaseException) -> float | None:
    explicit = getattr(exc, "retry_after", None)
    if isinstance(explicit, int | float):
        return float(explicit)
    headers = getattr(getattr(exc, "response", None), "headers", None)
    return parse_retry_after(headers) if headers is not None else None


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` (OpenAI), or `retry-after` in seconds or as a date."""
    with contextlib.suppress(TypeError, ValueError):
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return max(0.0, float(millis) / 1000)
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # 20 ms to import, for a header few servers send

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class AdaptiveLimiter:
    """Bounds model calls in flight between `minimum` and `maximum`, starting at `initial`."""

    def __init__(self, initial: int, maximum: int | None = None, *, minimum: int = 1,
                 recover_after: int = 5, decrease: float = 0.5, max_attempts: int = 8,
                 base_delay: float = 0.5, max_delay: float = 30.0,
                 max_pause: float = 120.0) -> None:
        if initial < 1 or minimum < 1:
            raise ValueError("a limiter needs at least one slot")
        self.minimum = min(minimum, initial)
        self.maximum = max(initial, maximum or initial)
        self.recover_after, self.decrease = recover_after, decrease
        self.max_attempts, self.base_delay, self.max_delay = max_attempts, base_delay, max_delay
        self.max_pause = max_pause
        self._limit = float(initial)
        self._in_flight = self._waiting = self._streak = self._epoch = 0
        self._paused_until = 0.0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._counts = dict.fromkeys(("successes", "throttled", "backoffs", "retries",
                                      "failures"), 0)
        self._start = time.monotonic()
        self.history: list[tuple[float, int]] = [(0.0, initial)]  # (seconds, limit) per change

    @property
    def limit(self) -> int:
        return int(self._limit)

    def state(self) -> LimiterState:
        pause = max(0.0, self._paused_until - time.monotonic())
        return LimiterState(self.limit, self.maximum, self._in_flight, self._waiting,
                            paused_seconds=pause, **self._counts)

    async def call(self, fn: Callable[[], Awaitable[T]]) -> T:
        """Run `fn` in a slot, retrying transient faults; raises the last InfraError at the end."""
        for attempt in itertools.count(1):
            epoch = await self._acquire()
            try:
                result = await fn()
            except InfraError as exc:
                fault = classify(exc)
                self._penalize(fault, epoch)
                if not fault.retryable:
                    raise
                if attempt >= self.max_attempts:
                    self._counts["failures"] += 1
                    raise InfraError(f"{exc} (gave up after {attempt} attempts)") from exc
            else:
                self._reward()
                return result
            finally:
                self._release()
            self._counts["retries"] += 1
            await asyncio.sleep(self._delay(fault, attempt))
        raise AssertionError("unreachable")

    def _may_start(self) -> bool:
        return self._in_flight < self.limit and time.monotonic() >= self._paused_until

    async def _acquire(self) -> int:
        """Wait for a free slot and for any pause to end; returns the congestion epoch."""
        self._waiting += 1
        try:
            while not self._may_start():
                await self._wait(self._paused_until - time.monotonic())
        finally:
            self._waiting -= 1
        self._in_flight += 1
        self._wake()  # after a pause, the first one through lets the others in
        return self._epoch

    async def _wait(self, pause: float) -> None:
        """Sleep in line until a slot frees up (or the pause ends); no herd of wake-ups."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter, pause if pause > 0 else None)
        finally:
            waiter.cancel()  # a no-op once woken; a cancelled waiter is skipped by _wake

    def _release(self) -> None:
        self._in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        """Wake as many waiters, first come first served, as there are free slots."""
        free = self.limit - self._in_flight
        while free > 0 and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1

    def _reward(self) -> None:
        self._counts["successes"] += 1
        self._streak += 1
        if self._streak >= self.recover_after and self._limit < self.maximum:
            self._streak = 0
            self._set_limit(min(self.maximum, self._limit + 1))

    def _penalize(self, fault: Fault, epoch: int) -> None:
        self._streak = 0
        if fault.retry_after is not None:
            until = time.monotonic() + min(fault.retry_after, self.max_pause)
            self._paused_until = max(self._paused_until, until)
        if not fault.overload:
            return
        self._counts["throttled"] += 1
        if epoch == self._epoch:  # the first overload reply of this congestion event
            self._epoch += 1
            self._counts["backoffs"] += 1
            self._set_limit(max(self.minimum, self._limit * self.decrease))

    def _set_limit(self, value: float) -> None:
        before = self.limit
        self._limit = value
        if self.limit != before:
            self.history.append((round(time.monotonic() - self._start, 3), self.limit))
            self._wake()

    def _delay(self, fault: Fault, attempt: int) -> float:
        """A Retry-After pause is waited in `_acquire`; otherwise exponential with jitter."""
        if fault.retry_after is not None:
            return 0.0
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)


class RateLimitedModel(ModelWrapper):
    """A backend whose calls go through a shared AdaptiveLimiter."""

    def __init__(self, inner: Model, limiter: AdaptiveLimiter) -> None:
        super().__init__(inner)
        self.limiter = limiter

    async def generate(self, request: Request) -> Reply:
        return await self.limiter.call(lambda: self.inner.generate(request))
