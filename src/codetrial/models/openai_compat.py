"""Any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp server, Ollama) via the official SDK.

Two choices keep the driver's CPU per call near 1 ms, so that one core keeps 50+ calls in flight
without delaying replies (benchmarks/limiter_throughput.py): the SDK's aiohttp transport (its
documented choice for high concurrency) and the client's plain `post` with a typed `cast_to`,
which skips the ~1 ms that `create()` spends re-typing request parameters we build as plain JSON.
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any

import openai
from openai.types import Completion
from openai.types.chat import ChatCompletion

from codetrial.core.errors import InfraError, UsageError, root_cause
from codetrial.models.base import Model, Reply, Request, ToolCall, Usage
from codetrial.models.refusals import refusal, refused_setting
from codetrial.models.registry import ModelOptions, backend

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
# OpenAI's reasoning models (through a gateway too: "openai/o3"): they take
# max_completion_tokens and refuse sampling settings codetrial would otherwise send by default.
REASONING_MODELS = re.compile(r"(?:^|/)(?:o\d|gpt-[5-9])(?:$|[-.])")
# Faults of the provider or the network, never of the model's answer.
_INFRA_ERRORS = (
    openai.APIConnectionError,
    openai.APITimeoutError,
    openai.RateLimitError,
    openai.InternalServerError,
    openai.APIResponseValidationError,
)


class OpenAICompatibleModel(Model):
    supports_tools = True
    rate_limited = True  # the runner puts an AdaptiveLimiter in front (it reads 429/Retry-After)

    def __init__(self, model: str, options: ModelOptions) -> None:
        self.model = model
        self.name = f"openai:{model}"
        self.reasoning = bool(REASONING_MODELS.search(model))
        self.base_url = options.base_url
        self.context_window = options.context_window
        self.client = openai.AsyncOpenAI(
            api_key=api_key(options),
            base_url=options.base_url,
            timeout=options.timeout_seconds,
            max_retries=options.max_retries,
            http_client=openai.DefaultAioHttpClient(),
        )

    async def check(self) -> None:
        """Fail fast with one clear line when the endpoint is unreachable or refuses the key."""
        try:
            await self.client.with_options(max_retries=0, timeout=10).models.list()
        except openai.APIConnectionError as exc:
            raise UsageError(f"{self.client.base_url}: endpoint unreachable ({root_cause(exc)})"
                             ) from exc
        except openai.AuthenticationError as exc:
            raise UsageError(f"{self.client.base_url}: API key refused") from exc

    async def generate(self, request: Request) -> Reply:
        start = time.perf_counter()
        try:
            if request.kind == "chat":
                reply = await self._chat(request)
            else:
                reply = await self._complete(request)
        except openai.BadRequestError as exc:
            sent = self.sent_settings(request)
            name = refused_setting(str(exc), sent, getattr(exc, "param", None))
            if name is not None:
                reasoning = self.reasoning or request.reasoning_effort is not None
                raise refusal(self.name, name, sent[name], str(exc), reasoning) from None
            if "context" in str(exc).lower():
                return Reply(finish_reason="context_window")
            raise InfraError(f"{self.name}: request rejected: {exc}") from exc
        except _INFRA_ERRORS as exc:
            raise InfraError(f"{self.name}: {type(exc).__name__}: {root_cause(exc)}") from exc
        except json.JSONDecodeError as exc:  # a truncated body comes straight out of the SDK
            raise InfraError(f"{self.name}: malformed reply: {exc}") from exc
        reply.latency_seconds = time.perf_counter() - start
        return reply

    def sent_settings(self, request: Request) -> dict[str, Any]:
        """A reasoning model (by name, or run at a reasoning effort) gets its budget as
        max_completion_tokens and no sampling setting the user did not ask for; any other
        model is greedy unless told otherwise. Legacy completions only know max_tokens."""
        if request.thinking_budget is not None:
            raise UsageError("--thinking-budget is Anthropic's; OpenAI models take "
                             "--reasoning-effort")
        reasoning = request.reasoning_effort is not None or self.reasoning
        chat = request.kind == "chat"
        params: dict[str, Any] = {
            "max_completion_tokens" if reasoning and chat else "max_tokens": request.max_tokens}
        if request.reasoning_effort is not None:
            params["reasoning_effort"] = request.reasoning_effort
        temperature = request.temperature if request.temperature is not None else (
            None if reasoning else 0.0)
        if temperature is not None:
            params["temperature"] = temperature
        if request.top_p is not None:
            params["top_p"] = request.top_p
        if request.seed is not None or request.sample_index:
            params["seed"] = (request.seed or 0) * 100_003 + request.sample_index
        return params

    def _sampling(self, request: Request) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model, **self.sent_settings(request)}
        if request.stop:
            params["stop"] = request.stop[:4]  # the API accepts at most four
        return params

    async def _chat(self, request: Request) -> Reply:
        params = self._sampling(request)
        if request.tools:
            params["tools"] = request.tools
        body = {"messages": request.messages, **params}
        out = await self.client.post("/chat/completions", body=body, cast_to=ChatCompletion)
        if not out.choices:
            raise InfraError(f"{self.name}: empty reply (no choices)")
        choice = out.choices[0]
        calls = [
            ToolCall(c.function.name, c.function.arguments or "", c.id or "")
            for c in (choice.message.tool_calls or [])
            if getattr(c, "function", None)
        ]
        return _reply(choice.message.content or "", calls, choice.finish_reason, out.usage)

    async def _complete(self, request: Request) -> Reply:
        body = {"prompt": request.prompt, **self._sampling(request)}
        out = await self.client.post("/completions", body=body, cast_to=Completion)
        if not out.choices:
            raise InfraError(f"{self.name}: empty reply (no choices)")
        return _reply(out.choices[0].text or "", [], out.choices[0].finish_reason, out.usage)

    async def aclose(self) -> None:
        await self.client.close()


def _reply(text: str, calls: list[ToolCall], finish: str | None, usage: Any) -> Reply:
    return Reply(
        text=text,
        tool_calls=calls,
        finish_reason=finish or "stop",
        usage=_usage(usage),
        cost_usd=getattr(usage, "cost", None),  # some gateways report the price per request
    )


def _usage(usage: Any) -> Usage:
    """Reasoning tokens are part of completion_tokens (and billed so); cached of prompt."""
    output = getattr(usage, "completion_tokens_details", None)
    prompt = getattr(usage, "prompt_tokens_details", None)
    return Usage(getattr(usage, "prompt_tokens", 0) or 0,
                 getattr(usage, "completion_tokens", 0) or 0,
                 reasoning_tokens=getattr(output, "reasoning_tokens", 0) or 0,
                 cached_tokens=getattr(prompt, "cached_tokens", 0) or 0)


def api_key(options: ModelOptions, default_env: str = DEFAULT_KEY_ENV) -> str:
    """The key from --api-key-env (or the provider's usual variable); servers may need none."""
    env = options.api_key_env or default_env
    key = os.environ.get(env)
    if key:
        return key
    if options.base_url:  # self-hosted servers usually ignore the key
        return "none"
    raise UsageError(f"missing API key: set ${env} (or pass --base-url for a self-hosted server)")


@backend("openai")
def _create(rest: str, options: ModelOptions) -> Model:
    if not rest:
        raise UsageError("openai needs a model name: --model openai:NAME")
    return OpenAICompatibleModel(rest, options)
