"""The hf backend on a tiny GPT-2 that the test builds itself (random weights, local tokenizer)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from codetrial.core import UsageError
from codetrial.models import ModelOptions, Reply, Request, create_model

pytest.importorskip("torch", reason="the hf backend needs torch (extra codetrial[hf])")
pytest.importorskip("transformers", reason="the hf backend needs transformers (codetrial[hf])")

CORPUS = ["def add(a, b):\n    return a + b\n", "user: hi\nassistant: hello\n"]
TEMPLATE = "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}<assistant>"


def build_tiny_gpt2(where: Path, chat_template: str | None = None) -> Path:
    """A 2-layer GPT-2 with a byte-level BPE trained here: nothing comes from a hub."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(CORPUS * 5, vocab_size=300, min_frequency=1,
                            special_tokens=["<|endoftext|>"])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer,
                                        eos_token="<|endoftext|>")
    tokenizer.chat_template = chat_template
    eos = tokenizer.eos_token_id
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=32, n_embd=32, n_layer=2,
                        n_head=2, bos_token_id=eos, eos_token_id=eos)
    torch.manual_seed(0)
    GPT2LMHeadModel(config).save_pretrained(where)
    tokenizer.save_pretrained(where)
    return where


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))


def generate(spec: Path | str, request: Request, **options) -> Reply:
    model = create_model(f"hf:{spec}", ModelOptions(**options))

    async def go() -> Reply:
        await model.check()
        return await model.generate(request)

    return asyncio.run(go())


def completion(**fields) -> Request:
    return Request(kind="completion", prompt="def add(a, b):\n", **fields)


def test_greedy_completion_is_repeatable_and_bounded(tiny: Path):
    first = generate(tiny, completion(max_tokens=8))
    assert generate(tiny, completion(max_tokens=8)).text == first.text
    assert first.finish_reason == "length" and first.usage.completion_tokens == 8
    assert first.usage.prompt_tokens > 0 and first.latency_seconds > 0


def test_stop_strings_end_the_reply_before_them(tiny: Path):
    full = generate(tiny, completion(max_tokens=12)).text
    stop = next((ch for ch in full[1:] if ch.isprintable() and ch != "\ufffd"), full[:1])
    cut = generate(tiny, completion(max_tokens=12, stop=[stop]))
    assert cut.text == full[:full.find(stop)] and cut.finish_reason == "stop"


def test_sampling_follows_seed_and_sample_index(tiny: Path):
    def draw(index: int) -> str:
        return generate(tiny, completion(max_tokens=16, temperature=1.0, seed=7,
                                         sample_index=index)).text

    first = draw(0)
    assert draw(0) == first and draw(1) != first


def test_chat_uses_the_tokenizer_template_or_plain_role_lines(tiny: Path, tmp_path: Path):
    from transformers import AutoTokenizer

    templated = build_tiny_gpt2(tmp_path / "templated", TEMPLATE)
    tokenizer = AutoTokenizer.from_pretrained(tiny)
    chat = Request(kind="chat", messages=[{"role": "user", "content": "hi"}], max_tokens=2)
    for spec, text in ((tiny, "user: hi\nassistant:"), (templated, "<user>hi<assistant>")):
        assert generate(spec, chat).usage.prompt_tokens == len(tokenizer(text)["input_ids"])


def test_context_window_bounds_the_reply(tiny: Path):
    long = generate(tiny, completion(max_tokens=1000))
    assert long.usage.prompt_tokens + long.usage.completion_tokens == 32  # n_positions
    assert generate(tiny, completion(), context_window=3).finish_reason == "context_window"


def test_a_missing_model_is_a_usage_error(tmp_path: Path):
    with pytest.raises(UsageError, match="could not load"):
        generate(tmp_path / "missing", completion())


@pytest.mark.skipif(os.environ.get("CODETRIAL_TEST_GGUF") != "1",
                    reason="loading the embedded GGUF through transformers takes about a minute "
                           "on 2 CPUs: set CODETRIAL_TEST_GGUF=1")
def test_the_embedded_gguf_through_transformers():
    pytest.importorskip("gguf", reason="transformers reads GGUF files with the gguf package")
    pytest.importorskip("accelerate", reason="transformers loads GGUF files with accelerate")
    from codetrial.models.local import default_gguf_path

    reply = generate(default_gguf_path(), Request(
        kind="chat", messages=[{"role": "user", "content": "Say hello."}], max_tokens=8))
    assert reply.text.strip() and reply.usage.completion_tokens > 0
