"""The adaptive limiter on its own: AIMD, Retry-After, retries, giving up."""

from __future__ import annotations

import asyncio
import time

import httpx2 as httpx
import openai
import pytest

from codetrial.core import InfraError
from codetrial.runner.limiter import AdaptiveLimiter, classify, parse_retry_after


class StatusFault(Exception):
    """What a backend without an SDK raises: a status and maybe a Retry-After."""

    def __init__(self, status_code: int, retry_after: float | None = None) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code, self.retry_after = status_code, retry_after


def fault(status: int, retry_after: float | None = None) -> InfraError:
    try:
        raise StatusFault(status, retry_after)
    except StatusFault as exc:
        try:
            raise InfraError(str(exc)) from exc
        except InfraError as wrapped:
            return wrapped


class Provider:
    """Fails each call id the first `failures` times with `error`, counting concurrency."""

    def __init__(self, error: InfraError | None = None, failures: int = 1) -> None:
        self.error, self.failures = error, failures
        self.seen: dict[int, int] = {}
        self.in_flight = self.max_in_flight = 0

    async def call(self, key: int, seconds: float = 0.01) -> int:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(seconds)
            self.seen[key] = self.seen.get(key, 0) + 1
            if self.error is not None and self.seen[key] <= self.failures:
                raise self.error
            return key
        finally:
            self.in_flight -= 1


def run_all(limiter: AdaptiveLimiter, provider: Provider, n: int) -> list[int]:
    async def go() -> list[int]:
        return await asyncio.gather(*(limiter.call(lambda k=k: provider.call(k))
                                      for k in range(n)))

    return asyncio.run(go())


def test_never_more_in_flight_than_the_limit():
    provider = Provider()
    assert run_all(AdaptiveLimiter(5), provider, 40) == list(range(40))
    assert provider.max_in_flight == 5


def test_one_burst_of_429s_halves_the_limit_once_then_it_recovers():
    limiter = AdaptiveLimiter(8, recover_after=4, base_delay=0.01)
    provider = Provider(fault(429), failures=1)
    assert run_all(limiter, provider, 8) == list(range(8))  # nothing lost
    state = limiter.state()
    assert (state.throttled, state.backoffs, state.retries, state.failures) == (8, 1, 8, 0)
    limits = [limit for _, limit in limiter.history]
    assert limits == [8, 4, 5, 6]  # 8 successes: +1 per 4
    run_all(limiter, Provider(), 8)
    assert limiter.limit == 8 and limiter.history[-1][1] == 8


def test_overload_statuses_back_off_other_faults_only_retry():
    assert classify(fault(529)).overload and classify(fault(503)).overload
    assert classify(fault(500)).retryable and not classify(fault(500)).overload
    assert classify(InfraError("connection reset")).retryable
    assert not classify(fault(400)).retryable and not classify(fault(401)).retryable
    limiter = AdaptiveLimiter(4, base_delay=0.01)
    run_all(limiter, Provider(fault(500)), 4)
    assert limiter.state().backoffs == 0 and limiter.limit == 4


def test_retry_after_pauses_every_new_call():
    limiter = AdaptiveLimiter(4)
    provider = Provider(fault(429, retry_after=0.5), failures=1)
    start = time.monotonic()
    run_all(limiter, provider, 1)
    assert time.monotonic() - start >= 0.5
    assert limiter.state().paused_seconds == 0


def test_gives_up_after_max_attempts_as_an_infra_error():
    limiter = AdaptiveLimiter(2, max_attempts=3, base_delay=0.01)
    provider = Provider(fault(503), failures=99)
    with pytest.raises(InfraError, match="gave up after 3 attempts"):
        run_all(limiter, provider, 1)
    assert provider.seen == {0: 3} and limiter.state().failures == 1
    assert limiter.limit == 1  # halved per attempt, never below the minimum


def test_a_refused_request_is_not_retried():
    provider = Provider(fault(400), failures=99)
    with pytest.raises(InfraError, match="HTTP 400"):
        run_all(AdaptiveLimiter(2), provider, 1)
    assert provider.seen == {0: 1}


def test_retry_after_headers_as_providers_send_them():
    assert parse_retry_after(httpx.Headers({"retry-after": "3"})) == 3.0
    assert parse_retry_after(httpx.Headers({"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    assert parse_retry_after(httpx.Headers({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0
    assert parse_retry_after(httpx.Headers({"retry-after": "soon"})) is None
    assert parse_retry_after(httpx.Headers({})) is None


def test_reads_status_and_retry_after_through_the_sdk_exception():
    request = httpx.Request("POST", "http://127.0.0.1/v1/completions")
    response = httpx.Response(429, headers={"retry-after": "2"}, request=request)
    sdk_error = openai.RateLimitError("slow down", response=response, body=None)
    try:
        raise InfraError("openai:x: RateLimitError") from sdk_error
    except InfraError as exc:
        seen = classify(exc)
    assert seen.overload and seen.retryable and seen.retry_after == 2.0
