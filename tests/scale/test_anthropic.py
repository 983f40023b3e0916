"""The anthropic backend through the official SDK against a loopback Messages API server."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codetrial.core import InfraError, UsageError
from codetrial.models import ModelOptions, Request, create_model
from codetrial.runner import RunConfig
from codetrial.runner.limiter import AdaptiveLimiter, RateLimitedModel, classify
from codetrial.store import Store
from codetrial.suites.humaneval import read_problems
from tests.scale.loopback import LoopbackServer
from tests.scale.runs import run_to_end

pytest.importorskip("anthropic", reason="the anthropic backend needs codetrial[anthropic]")

Content = Callable[[dict[str, Any]], list[dict[str, Any]]]
WRITE_FILE = {"type": "function", "function": {
    "name": "write_file", "description": "Write a file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}


def text(value: str) -> Content:
    return lambda body: [{"type": "text", "text": value}]


class MessagesRoutes:
    """POST /v1/messages answers with `content(body)`; the first `overloaded` calls get 529."""

    def __init__(self, content: Content, overloaded: int = 0) -> None:
        self.content, self.overloaded = content, overloaded
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, method: str, path: str, body: dict[str, Any]
                 ) -> tuple[int, dict[str, str], Any]:
        if path.startswith("/v1/models/"):
            name = path.rsplit("/", 1)[1]
            if name != "claude-test":
                return 404, {}, error("not_found_error", f"model: {name}")
            return 200, {}, {"type": "model", "id": name, "display_name": name,
                             "created_at": "2025-01-01T00:00:00Z"}
        with self._lock:
            self.bodies.append(body)
            overloaded = len(self.bodies) <= self.overloaded
        if overloaded:
            return 529, {}, error("overloaded_error", "Overloaded")
        content = self.content(body)
        stop = "tool_use" if any(c["type"] == "tool_use" for c in content) else "end_turn"
        return 200, {}, {"id": "msg_1", "type": "message", "role": "assistant",
                         "model": body["model"], "content": content, "stop_reason": stop,
                         "stop_sequence": None, "usage": {"input_tokens": 11, "output_tokens": 7}}


def error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def model_at(server: LoopbackServer, name: str = "claude-test"):
    return create_model(f"anthropic:{name}", ModelOptions(base_url=server.url, max_retries=0))


def ask(routes: MessagesRoutes, request: Request, limiter: AdaptiveLimiter | None = None):
    async def go():
        model = model_at(server)
        try:
            await model.check()
            wrapped = RateLimitedModel(model, limiter) if limiter else model
            return await wrapped.generate(request)
        finally:
            await model.aclose()

    with LoopbackServer(routes) as server:
        return asyncio.run(go())


def test_chat_with_system_and_tools_becomes_a_tool_call():
    routes = MessagesRoutes(lambda body: [
        {"type": "text", "text": "Writing it."},
        {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {"path": "a.py"}}])
    request = Request(kind="chat", tools=[WRITE_FILE], stop=["END"], max_tokens=64,
                      messages=[{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": "Write a.py"}])
    reply = ask(routes, request)
    assert reply.text == "Writing it." and reply.finish_reason == "tool_calls"
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("write_file", {"path": "a.py"})]
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (11, 7)
    sent = routes.bodies[0]
    assert sent["system"] == "Be brief." and sent["messages"] == [
        {"role": "user", "content": "Write a.py"}]
    assert sent["tools"][0]["input_schema"]["properties"] == {"path": {"type": "string"}}
    assert sent["stop_sequences"] == ["END"] and sent["max_tokens"] == 64


def test_completion_is_a_prefilled_assistant_turn():
    routes = MessagesRoutes(text("\n    return a + b\n"))
    reply = ask(routes, Request(kind="completion", prompt="def add(a, b):\n"))
    assert reply.text == "    return a + b\n"
    assert routes.bodies[0]["messages"][-1] == {"role": "assistant",
                                                 "content": "def add(a, b):"}


def test_overloaded_529_feeds_the_limiter_and_is_retried():
    limiter = AdaptiveLimiter(4, base_delay=0.01)
    routes = MessagesRoutes(text("hi"), overloaded=1)
    reply = ask(routes, Request(kind="chat", messages=[{"role": "user", "content": "hi"}]),
                limiter)
    assert reply.text == "hi" and len(routes.bodies) == 2
    assert limiter.state().backoffs == 1 and limiter.limit == 2


def test_overload_without_a_limiter_is_an_overload_infra_error():
    routes = MessagesRoutes(text("hi"), overloaded=1)
    with pytest.raises(InfraError) as caught:
        ask(routes, Request(kind="chat", messages=[{"role": "user", "content": "hi"}]))
    assert classify(caught.value).overload


def test_unknown_model_fails_before_the_run():
    async def go(url: str):
        model = create_model("anthropic:nope", ModelOptions(base_url=url))
        try:
            await model.check()
        finally:
            await model.aclose()

    with LoopbackServer(MessagesRoutes(text(""))) as server, \
            pytest.raises(UsageError, match="no such model"):
        asyncio.run(go(server.url))


def test_humaneval_run_through_the_anthropic_backend(tmp_path: Path):
    solutions = {p["prompt"].rstrip(): p["canonical_solution"] for p in read_problems()}
    routes = MessagesRoutes(lambda body: [
        {"type": "text", "text": "\n" + solutions[body["messages"][-1]["content"]]}])
    with LoopbackServer(routes) as server:
        config = RunConfig(suite="humaneval", model="anthropic:claude-test", limit=8,
                           base_url=server.url, cache=False)
        store = Store(tmp_path / "runs.sqlite")
        run_id, plan = asyncio.run(run_to_end(config, store))
    samples = store.load_samples(run_id)
    assert len(samples) == 8 and all(s.passed for s in samples)
    assert plan.limiter is not None and plan.limiter.state().successes == 8
