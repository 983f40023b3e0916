"""Anthropic's Messages API through the official `anthropic` SDK (extra `codetrial[anthropic]`).

The SDK is imported when a model is created, never on registry lookup. Requests are OpenAI-shaped
(the protocols' lingua franca), so this module translates: system messages become `system`,
function tools become Anthropic tools, `tool_use` blocks become ToolCalls. The Messages API has
no raw completion: a completion request is sent as a chat whose assistant turn is prefilled with
the prompt, so the reply continues it.

Sampling settings: the API version this SDK sends (2026-10-21) refuses temperature, top_p and
top_k at any value, and the SDK has no such parameters. So they are sent only when the user set
them, in the body, with the last API version that takes them (2023-06-01); a model that refuses
them there too is a usage error naming the setting. With extended thinking on, the API allows
only temperature 1 and top_p in [0.95, 1]; anything else is refused before the run starts.
Seeds are never sent: the API has none.
"""

from __future__ import annotations

import json
import time
from typing import Any

from codetrial.core.errors import InfraError, UsageError, root_cause
from codetrial.models.base import Model, Reply, Request, ToolCall, Usage
from codetrial.models.openai_compat import api_key
from codetrial.models.refusals import refusal, refused_setting
from codetrial.models.registry import ModelOptions, backend

DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
SAMPLING_API_VERSION = "2023-06-01"  # the last version that accepts temperature and top_p
CONTINUE_PROMPT = "Continue the text in your turn exactly where it stops. Write nothing else."
_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
           "tool_use": "tool_calls"}


def import_anthropic() -> Any:
    try:
        import anthropic
    except ImportError as exc:
        raise UsageError("anthropic models need the SDK: pip install 'codetrial[anthropic]'"
                         ) from exc
    return anthropic


class AnthropicModel(Model):
    supports_tools = True
    rate_limited = True  # the runner puts an AdaptiveLimiter in front (429, 529 overloaded)

    def __init__(self, model: str, options: ModelOptions) -> None:
        self.sdk = import_anthropic()
        self.model = model
        self.name = f"anthropic:{model}"
        self.context_window = options.context_window
        self.client = self.sdk.AsyncAnthropic(
            api_key=api_key(options, DEFAULT_KEY_ENV), base_url=options.base_url,
            timeout=options.timeout_seconds, max_retries=options.max_retries,
            http_client=self.sdk.DefaultAioHttpClient(),  # as for openai: less CPU per call
        )

    async def check(self) -> None:
        """Fail fast when the endpoint is unreachable, refuses the key or lacks the model."""
        client = self.client.with_options(max_retries=0, timeout=10)
        try:
            await client.models.retrieve(self.model)
        except self.sdk.APIConnectionError as exc:
            raise UsageError(f"{self.client.base_url}: endpoint unreachable ({root_cause(exc)})"
                             ) from exc
        except self.sdk.AuthenticationError as exc:
            raise UsageError(f"{self.client.base_url}: API key refused") from exc
        except self.sdk.NotFoundError as exc:
            raise UsageError(f"{self.name}: no such model at {self.client.base_url}") from exc

    async def generate(self, request: Request) -> Reply:
        start = time.perf_counter()
        try:
            out = await self.client.messages.create(**self._params(request))
        except self.sdk.BadRequestError as exc:
            sent = self.sent_settings(request)
            name = refused_setting(str(exc), sent)
            if name is not None:
                raise refusal(self.name, name, sent[name], str(exc), reasoning=True) from None
            if "too long" in str(exc).lower() or "context" in str(exc).lower():
                return Reply(finish_reason="context_window")
            raise InfraError(f"{self.name}: request rejected: {exc}") from exc
        except self.sdk.APIError as exc:  # status faults keep their status for the limiter
            raise InfraError(f"{self.name}: {type(exc).__name__}: {root_cause(exc)}") from exc
        reply = _reply(out, request)
        reply.latency_seconds = time.perf_counter() - start
        return reply

    def sent_settings(self, request: Request) -> dict[str, Any]:
        """The budget covers the thinking too: max_tokens is the thinking budget plus the
        visible output's."""
        params: dict[str, Any] = {"max_tokens": request.max_tokens}
        thinking = request.thinking_budget
        if thinking is not None:
            params["thinking"] = {"type": "enabled", "budget_tokens": thinking}
            params["max_tokens"] = request.max_tokens + thinking
        if request.reasoning_effort is not None:
            params["output_config"] = {"effort": request.reasoning_effort}
        params.update(_sampling(request.temperature, request.top_p, thinking is not None))
        return params

    def _params(self, request: Request) -> dict[str, Any]:
        system, messages = split_system(request.messages or [])
        if request.kind == "completion":
            messages = prefilled(request.prompt or "")
        settings = self.sent_settings(request)
        sampling = {k: settings.pop(k) for k in ("temperature", "top_p") if k in settings}
        params: dict[str, Any] = dict(model=self.model, messages=messages, **settings)
        if sampling:  # not parameters of this SDK: in the body, under the version taking them
            params["extra_body"] = sampling
            params["extra_headers"] = {"anthropic-version": SAMPLING_API_VERSION}
        if system:
            params["system"] = system
        if request.stop:
            params["stop_sequences"] = request.stop
        if request.tools:
            params["tools"] = [anthropic_tool(t) for t in request.tools]
        return params

    async def aclose(self) -> None:
        await self.client.close()


def _sampling(temperature: float | None, top_p: float | None, thinking: bool
              ) -> dict[str, float]:
    """The sampling settings the user set, refused here where the API would refuse them."""
    if thinking and temperature not in (None, 1.0):
        raise UsageError(f"--temperature {temperature:g}: with --thinking-budget Anthropic "
                         "allows only temperature 1")
    if thinking and top_p is not None and not 0.95 <= top_p <= 1.0:
        raise UsageError(f"--top-p {top_p:g}: with --thinking-budget Anthropic allows top_p "
                         "from 0.95 to 1")
    return {k: v for k, v in (("temperature", temperature), ("top_p", top_p)) if v is not None}


def split_system(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The Messages API takes system text apart from the turns, a call as a `tool_use` block
    of the assistant's turn and its result as a `tool_result` block of the next user turn."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "system":
            continue
        turn = _turn(message)
        if turns and turns[-1]["role"] == turn["role"] == "user" and message["role"] == "tool":
            turns[-1]["content"] = _blocks(turns[-1]["content"]) + turn["content"]
        else:
            turns.append(turn)
    return system, turns


def _blocks(content: Any) -> list[dict[str, Any]]:
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


def _turn(message: dict[str, Any]) -> dict[str, Any]:
    if message["role"] == "tool":
        return {"role": "user", "content": [{"type": "tool_result",
                                             "tool_use_id": message["tool_call_id"],
                                             "content": message["content"]}]}
    calls = message.get("tool_calls") or []
    if not calls:
        return {"role": message["role"], "content": message["content"]}
    blocks = [{"type": "text", "text": message["content"]}] if message.get("content") else []
    blocks += [{"type": "tool_use", "id": c["id"], "name": c["function"]["name"],
                "input": json.loads(c["function"]["arguments"] or "{}")} for c in calls]
    return {"role": "assistant", "content": blocks}


def prefilled(prompt: str) -> list[dict[str, str]]:
    """A completion as a chat: the API refuses an assistant turn ending in whitespace."""
    return [{"role": "user", "content": CONTINUE_PROMPT},
            {"role": "assistant", "content": prompt.rstrip()}]


def anthropic_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI function tool as an Anthropic tool (an Anthropic-shaped one passes through)."""
    function = tool.get("function")
    if function is None:
        return tool
    return {"name": function["name"], "description": function.get("description", ""),
            "input_schema": function.get("parameters", {"type": "object"})}


def _reply(out: Any, request: Request) -> Reply:
    text = "".join(b.text for b in out.content if b.type == "text")
    calls = [ToolCall(b.name, json.dumps(b.input), b.id) for b in out.content
             if b.type == "tool_use"]
    if request.kind == "completion":
        text = continuation(request.prompt or "", text)
    return Reply(text=text, tool_calls=calls, usage=_usage(out.usage),
                 finish_reason=_FINISH.get(out.stop_reason or "", out.stop_reason or "stop"))


def _usage(usage: Any) -> Usage:
    """Anthropic's input_tokens leaves out cache reads and writes; codetrial's prompt_tokens
    counts every input token, as OpenAI's does. output_tokens includes the thinking."""
    cached = usage.cache_read_input_tokens or 0
    prompt = usage.input_tokens + cached + (usage.cache_creation_input_tokens or 0)
    details = getattr(usage, "output_tokens_details", None)
    return Usage(prompt, usage.output_tokens, cached_tokens=cached,
                 reasoning_tokens=getattr(details, "thinking_tokens", 0) or 0)


def continuation(prompt: str, text: str) -> str:
    """The reply continues the prompt without its trailing whitespace: drop what repeats it."""
    tail = prompt[len(prompt.rstrip()):]
    return text[len(tail):] if tail and text.startswith(tail) else text


@backend("anthropic")
def _create(rest: str, options: ModelOptions) -> Model:
    if not rest:
        raise UsageError("anthropic needs a model name: --model anthropic:NAME")
    return AnthropicModel(rest, options)
