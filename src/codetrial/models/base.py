"""The one interface every backend implements: a Request in, a Reply out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from copy import deepcopy
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str  # JSON text, exactly as the model wrote it
    id: str = ""  # the API's id for the call, which its result must name (native tool loops)

    def to_dict(self) -> dict[str, str]:
        shown = {"name": self.name, "arguments": self.arguments}
        return {**shown, "id": self.id} if self.id else shown


@dataclass
class Request:
    """A chat (`messages`) or raw completion (`prompt`) request with its sampling parameters.

    `temperature` and `top_p` are None unless the user set them: each backend then sends what
    its model accepts (greedy where it can, nothing to a model that refuses sampling settings).
    `max_tokens` is the output budget, reasoning included. `reference` is what a perfect reply
    would be, filled in by the protocol; only the `reference` backend reads it and it is never
    sent to a real model nor part of the cache key.
    """

    kind: Literal["chat", "completion"]
    messages: list[dict[str, Any]] | None = None
    prompt: str | None = None
    tools: list[dict[str, Any]] | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int = 4096
    reasoning_effort: str | None = None  # OpenAI reasoning_effort, Anthropic output effort
    thinking_budget: int | None = None  # Anthropic extended thinking's budget_tokens
    stop: list[str] = field(default_factory=list)
    seed: int | None = None
    sample_index: int = 0
    reference: Reply | None = None

    def cache_key_fields(self) -> dict[str, Any]:
        """Every field but `reference` (never part of a key: asdict would copy the whole
        reference reply each time), copied so callers may change them (strings and numbers
        need no copy)."""
        return {name: _copied(getattr(self, name)) for name in _KEY_FIELDS}


def _copied(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)  # stop sequences
    return deepcopy(value)


_KEY_FIELDS = tuple(f.name for f in fields(Request) if f.name != "reference")


@dataclass
class Usage:
    """Tokens as billed: prompt_tokens includes cached ones, completion_tokens reasoning ones."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = "stop"
    usage: Usage = field(default_factory=Usage)
    latency_seconds: float = 0.0
    cost_usd: float | None = None
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Reply:
        return cls(
            text=d["text"],
            tool_calls=[ToolCall(**t) for t in d.get("tool_calls", [])],
            finish_reason=d.get("finish_reason", "stop"),
            usage=Usage(**d.get("usage", {})),
            latency_seconds=d.get("latency_seconds", 0.0),
            cost_usd=d.get("cost_usd"),
        )


class Model(ABC):
    """A backend. `name` identifies it in the store and in the response cache key."""

    name: str
    supports_tools: bool = False
    rate_limited: bool = False  # a remote API: the runner puts the adaptive limiter in front
    context_window: int | None = None
    reasoning: bool = False  # reasons before it answers: its output budget must cover that

    def sent_settings(self, request: Request) -> dict[str, Any]:
        """The settings this backend sends for `request` (what a run stores as sent; none
        for a contender that generates nothing); raises UsageError for a combination the API
        documents as refused."""
        return {}

    @abstractmethod
    async def generate(self, request: Request) -> Reply:
        """Answer one request. Raise InfraError for provider faults, never for bad answers."""

    async def check(self) -> None:  # noqa: B027 - optional hook
        """Raise UsageError before a run starts if the backend cannot be used at all."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections or weights."""


class ModelWrapper(Model):
    """A model in front of another (a cache, a rate limiter): same name and abilities; checks
    and closes pass through. Subclasses say how `generate` reaches the inner model."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.name = inner.name
        self.supports_tools = inner.supports_tools
        self.context_window = inner.context_window
        self.reasoning = inner.reasoning

    def sent_settings(self, request: Request) -> dict[str, Any]:
        return self.inner.sent_settings(request)

    async def check(self) -> None:
        await self.inner.check()

    async def aclose(self) -> None:
        await self.inner.aclose()
