"""Find a backend by the prefix of a model spec (`local`, `openai:gpt-4o`, `reference`).

Each backend module registers itself with `@backend("prefix")`, so adding a backend is adding
one module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from codetrial.core.registry import Registry
from codetrial.models.base import Model


@dataclass(frozen=True)
class ModelOptions:
    base_url: str | None = None
    api_key_env: str | None = None
    timeout_seconds: float = 120.0
    max_retries: int = 2
    context_window: int | None = None


Factory = Callable[[str, ModelOptions], Model]
BACKENDS: Registry[Factory] = Registry("model backend", "codetrial.models")
backend = BACKENDS.register


def backend_names() -> list[str]:
    return BACKENDS.names()


def create_model(spec: str, options: ModelOptions | None = None) -> Model:
    """`prefix` or `prefix:rest`; the factory validates `rest` and raises UsageError."""
    prefix, _, rest = spec.partition(":")
    return BACKENDS.get(prefix)(rest, options or ModelOptions())
