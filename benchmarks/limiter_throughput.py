"""Throughput of the adaptive limiter in front of the real OpenAI-compatible backend.

A loopback server in its own process (a provider is not in the driver's process) answers every
request after a fixed latency; the backend (official openai SDK) sends N requests through an
AdaptiveLimiter at concurrency C. Ideal wall time is ceil(N / C) x latency; target: <= 1.2x.
Each round also sends the same requests with a bare aiohttp client through the same limiter (the
peer: what the server and the limiter allow), so the SDK's own cost shows in the same run.
With --limiter-only, asyncio.sleep stands in for the HTTP call: the limiter's own overhead.
Usage: python benchmarks/limiter_throughput.py [--requests 500] [--latency 0.2]
       [--concurrency 50] [--repeats 3] [--limiter-only]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the loopback server in tests/

import aiohttp  # noqa: E402
from tests.scale.loopback import LoopbackServer  # noqa: E402
from tests.scale.openai_server import OpenAIRoutes  # noqa: E402

from codetrial.models import ModelOptions, Request, create_model  # noqa: E402
from codetrial.runner.limiter import AdaptiveLimiter, RateLimitedModel  # noqa: E402


def serve(latency: float, conn: Connection) -> None:
    """The child process: serve until told to stop, then report what the server saw."""
    routes = OpenAIRoutes(lambda body: "ok", latency=latency)
    with LoopbackServer(routes) as server:
        conn.send(server.url)
        conn.recv()
        conn.send((routes.answered, server.max_in_flight))


async def send_all(url: str, requests: int, concurrency: int) -> tuple[float, float, str]:
    """Wall seconds, driver CPU seconds, and the limiter's final state."""
    limiter = AdaptiveLimiter(concurrency)
    model = RateLimitedModel(
        create_model("openai:bench", ModelOptions(base_url=url, max_retries=0)), limiter)
    await model.check()
    start, cpu = time.perf_counter(), time.process_time()
    try:
        await asyncio.gather(*(
            model.generate(Request(kind="chat", sample_index=i,
                                   messages=[{"role": "user", "content": f"request {i}"}]))
            for i in range(requests)))
    finally:
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        await model.aclose()
    return elapsed, cpu, str(limiter.state())


async def bare_all(url: str, requests: int, concurrency: int) -> tuple[float, float]:
    """The peer: the same chat requests with a bare aiohttp client, through the same limiter."""
    limiter = AdaptiveLimiter(concurrency)
    async with aiohttp.ClientSession() as session:
        async def one(i: int) -> str:
            body = {"model": "bench", "messages": [{"role": "user", "content": f"request {i}"}]}
            async with session.post(f"{url}/chat/completions", json=body) as response:
                return (await response.json())["choices"][0]["message"]["content"]

        start, cpu = time.perf_counter(), time.process_time()
        replies = await asyncio.gather(*(limiter.call(lambda i=i: one(i))
                                         for i in range(requests)))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert replies == ["ok"] * requests, json.dumps(replies[:3])
    return elapsed, cpu


async def sleep_all(latency: float, requests: int, concurrency: int) -> float:
    limiter = AdaptiveLimiter(concurrency)
    start = time.perf_counter()
    await asyncio.gather(*(limiter.call(lambda: asyncio.sleep(latency))
                           for _ in range(requests)))
    return time.perf_counter() - start


def one_round(args: argparse.Namespace) -> tuple[float, float]:
    """(SDK, bare client) wall seconds for one round; the server is restarted each round."""
    if args.limiter_only:
        elapsed = asyncio.run(sleep_all(args.latency, args.requests, args.concurrency))
        print(f"  {elapsed:.2f}s (limiter only)")
        return elapsed, elapsed
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(args.latency, child), daemon=True)
    server.start()
    try:
        url = f"{parent.recv()}/v1"
        elapsed, cpu, state = asyncio.run(send_all(url, args.requests, args.concurrency))
        bare, bare_cpu = asyncio.run(bare_all(url, args.requests, args.concurrency))
        parent.send("stop")
        answered, most = parent.recv()
    finally:
        server.join(timeout=10)
    assert answered == 2 * args.requests, answered
    per_call = 1000 / args.requests
    print(f"  openai SDK {elapsed:.2f}s (driver CPU {cpu * per_call:.1f} ms/request, limiter: "
          f"{state}); bare aiohttp {bare:.2f}s ({bare_cpu * per_call:.1f} ms/request); server saw "
          f"at most {most} at once")
    return elapsed, bare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limiter-only", action="store_true")
    args = parser.parse_args()
    ideal = math.ceil(args.requests / args.concurrency) * args.latency
    print(f"{args.requests} requests, {args.latency * 1000:.0f} ms latency, concurrency "
          f"{args.concurrency}, ideal {ideal:.2f}s (load average {os.getloadavg()[0]:.1f})")
    rounds = [one_round(args) for _ in range(args.repeats)]
    median = statistics.median(sdk for sdk, _ in rounds)
    peer = statistics.median(bare for _, bare in rounds)
    print(f"median {median:.2f}s, ratio {median / ideal:.2f}x of ideal (target <= 1.20x); "
          f"bare-client peer {peer:.2f}s ({peer / ideal:.2f}x), SDK/peer {median / peer:.2f}x")


if __name__ == "__main__":
    main()
