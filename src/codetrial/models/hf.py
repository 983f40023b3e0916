"""Hugging Face transformers in process: `hf:<hub-id-or-directory>` or `hf:<file.gguf>`.

For users with a GPU and a checkpoint that no server serves (for throughput, serve it with
vLLM and use `openai:`). torch and transformers are imported when a model is created, never on
registry lookup (extra `codetrial[hf]`). Weights load once per process; generations run one at
a time in a thread, so the event loop keeps grading while the model works.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

from codetrial.core.errors import InfraError, UsageError
from codetrial.models.base import Model, Reply, Request, Usage
from codetrial.models.registry import ModelOptions, backend

_LOADED: dict[str, tuple[Any, Any]] = {}
_LOAD_LOCK = threading.Lock()


def import_transformers() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise UsageError("hf models need torch and transformers: "
                         "pip install 'codetrial[hf]'") from exc
    return torch, transformers


def load(spec: str) -> tuple[Any, Any]:
    """(model, tokenizer), loaded once per process; a GGUF file is dequantized by transformers."""
    with _LOAD_LOCK:
        if spec not in _LOADED:
            _LOADED[spec] = _load(spec)
        return _LOADED[spec]


def _load(spec: str) -> tuple[Any, Any]:
    torch, transformers = import_transformers()
    path = Path(spec).expanduser()
    source, extra = spec, {}
    if path.suffix == ".gguf":
        source, extra = str(path.parent), {"gguf_file": path.name}
    elif path.exists():
        source = str(path)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(source, **extra)
        model = transformers.AutoModelForCausalLM.from_pretrained(source, dtype="auto", **extra)
    except (OSError, ValueError, ImportError) as exc:
        raise UsageError(f"hf:{spec}: transformers could not load it ({exc})") from exc
    device = "cuda" if torch.cuda.is_available() else "cpu"
    return model.to(device).eval(), tokenizer


class HFModel(Model):
    supports_tools = False

    def __init__(self, spec: str, options: ModelOptions) -> None:
        self.spec = spec
        self.name = f"hf:{spec}"
        self.context_window = options.context_window
        self._lock = threading.Lock()

    def sent_settings(self, request: Request) -> dict[str, Any]:
        """Greedy unless a temperature is set (transformers' do_sample)."""
        if request.temperature:
            return {"do_sample": True, "temperature": request.temperature,
                    "top_p": request.top_p or 1.0, "max_new_tokens": request.max_tokens}
        return {"do_sample": False, "max_new_tokens": request.max_tokens}

    async def check(self) -> None:
        """Load the weights before the run starts: a bad path is a usage error, not 164 faults."""
        await asyncio.to_thread(load, self.spec)

    async def generate(self, request: Request) -> Reply:
        start = time.perf_counter()
        try:
            reply = await asyncio.to_thread(self._generate, request)
        except RuntimeError as exc:  # CUDA out of memory, device faults
            raise InfraError(f"{self.name}: {exc}") from exc
        reply.latency_seconds = time.perf_counter() - start
        return reply

    def _generate(self, request: Request) -> Reply:
        torch, _ = import_transformers()
        model, tokenizer = load(self.spec)
        inputs = tokenizer(prompt_text(request, tokenizer), return_tensors="pt").to(model.device)
        n_prompt = inputs["input_ids"].shape[1]
        room = self._room(model, n_prompt)
        if room <= 0:
            return Reply(finish_reason="context_window", usage=Usage(n_prompt, 0))
        max_new = min(request.max_tokens, room)
        with self._lock, torch.no_grad():
            if request.temperature:
                torch.manual_seed((request.seed or 0) * 100_003 + request.sample_index)
            out = model.generate(**inputs, max_new_tokens=max_new, tokenizer=tokenizer,
                                 **sampling(request, tokenizer))
        new = out[0, n_prompt:]
        text, stopped = cut_at_stop(tokenizer.decode(new, skip_special_tokens=True),
                                    request.stop)
        finish = "stop" if stopped or len(new) < max_new else "length"
        return Reply(text=text, finish_reason=finish, usage=Usage(n_prompt, len(new)))

    def _room(self, model: Any, n_prompt: int) -> int:
        window = self.context_window or getattr(model.config, "max_position_embeddings", None)
        return window - n_prompt if window else 1 << 30


def prompt_text(request: Request, tokenizer: Any) -> str:
    """The tokenizer's own chat template when it has one; plain role lines otherwise."""
    if request.kind == "completion":
        return request.prompt or ""
    messages = request.messages or []
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    lines = [f"{m['role']}: {m['content']}" for m in messages]
    return "\n".join([*lines, "assistant:"])


def sampling(request: Request, tokenizer: Any) -> dict[str, Any]:
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    params: dict[str, Any] = {"pad_token_id": pad}
    if request.stop:
        params["stop_strings"] = request.stop
    if request.temperature:  # unset or 0: greedy
        params.update(do_sample=True, temperature=request.temperature, top_p=request.top_p or 1.0)
    else:
        params.update(do_sample=False, temperature=None, top_p=None)
    return params


def cut_at_stop(text: str, stops: list[str]) -> tuple[str, bool]:
    """transformers stops after a stop string; the reply ends before it, as with the APIs."""
    cuts = [i for i in (text.find(s) for s in stops if s) if i >= 0]
    return (text[:min(cuts)], True) if cuts else (text, False)


@backend("hf")
def _create(rest: str, options: ModelOptions) -> Model:
    if not rest:
        raise UsageError("hf needs a model: --model hf:HUB_ID, hf:DIRECTORY or hf:FILE.gguf")
    import_transformers()
    return HFModel(rest, options)
