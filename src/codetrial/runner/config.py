"""Everything that defines a run; stored with it so `--resume` rebuilds the same run."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class RunConfig(BaseModel):
    suite: str
    model: str = "local"
    protocol: str | None = None
    suite_options: dict[str, Any] = Field(default_factory=dict)
    base_url: str | None = None
    api_key_env: str | None = None
    context_window: int | None = None
    samples: int = Field(1, ge=1)
    temperature: float = Field(0.0, ge=0.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    max_tokens: int = Field(512, ge=1)
    seed: int | None = None
    task_ids: list[str] | None = None
    limit: int | None = None
    concurrency: int = Field(4, ge=1)  # API models: the limiter's starting level
    max_concurrency: int | None = Field(None, ge=1)  # API models: the most it may rise to
    sandbox_workers: int = Field(2, ge=1)  # local executor; on Ray each node uses its CPUs
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None  # "auto" or "HOST:6379"; None starts a local instance
    cache: bool = True
    request_timeout: float = Field(120.0, gt=0)  # seconds before a model call is an infra error
