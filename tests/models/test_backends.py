"""The real backends: llama.cpp in process, and llama.cpp behind its OpenAI-compatible server."""

import asyncio

import pytest

from codetrial.core import InfraError, UsageError
from codetrial.models import ModelOptions, Request, create_model


def chat_request(**kw) -> Request:
    return Request(kind="chat", messages=[{"role": "user", "content": "Say hello."}],
                   max_tokens=16, **kw)


def test_local_model_chat_and_completion():
    model = create_model("local")
    chat = asyncio.run(model.generate(chat_request()))
    completion = asyncio.run(model.generate(
        Request(kind="completion", prompt="def add(a, b):\n", max_tokens=8)))
    assert chat.text and chat.usage.completion_tokens > 0 and chat.latency_seconds > 0
    assert completion.usage.prompt_tokens > 0 and completion.finish_reason in ("stop", "length")


def test_local_model_loads_once_per_process():
    assert create_model("local").runtime is create_model("local").runtime


def test_local_greedy_is_deterministic_whatever_came_before():
    """A, B, A: the second A must not reuse A's or B's cached prompt tokens in another batch
    shape (on some CPUs that changed the greedy text)."""
    model = create_model("local")
    other = Request(kind="chat", messages=[{"role": "user", "content": "Name three colours."}],
                    max_tokens=24)
    first = asyncio.run(model.generate(chat_request()))
    between = asyncio.run(model.generate(other))
    again = asyncio.run(model.generate(chat_request()))
    assert first.text and between.text != first.text
    assert again.text == first.text
    assert asyncio.run(model.generate(other)).text == between.text


def test_local_bad_paths(tmp_path):
    with pytest.raises(UsageError, match="not found"):
        create_model(f"local:{tmp_path / 'missing.gguf'}")
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"not a model at all")
    with pytest.raises(UsageError, match="not a GGUF"):
        create_model(f"local:{fake}")


def test_unknown_backend_lists_the_known_ones():
    with pytest.raises(UsageError, match="local.*openai.*reference"):
        create_model("nosuch:thing")


def test_openai_needs_a_key_without_base_url(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        create_model("openai:gpt-4o")


@pytest.mark.slow
def test_openai_backend_against_real_llama_server(llama_server):
    model = create_model("openai:smollm2", ModelOptions(base_url=llama_server))

    async def talk():
        await model.check()
        chat = await model.generate(chat_request())
        completion = await model.generate(
            Request(kind="completion", prompt="def add(a, b):\n", max_tokens=8, stop=["\ndef "]))
        await model.aclose()
        return chat, completion

    chat, completion = asyncio.run(talk())
    assert chat.text and chat.usage.completion_tokens > 0
    assert completion.usage.prompt_tokens > 0


def test_unreachable_endpoint_is_a_usage_error():
    from tests.conftest import free_port

    model = create_model("openai:x", ModelOptions(base_url=f"http://127.0.0.1:{free_port()}/v1"))

    async def check_then_close() -> None:
        try:
            await model.check()
        finally:
            await model.aclose()

    with pytest.raises(UsageError, match="unreachable"):
        asyncio.run(check_then_close())


def test_provider_faults_become_infra_errors():
    from tests.conftest import free_port

    options = ModelOptions(base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=0,
                           timeout_seconds=2)
    model = create_model("openai:x", options)

    async def generate_then_close() -> None:
        try:
            await model.generate(chat_request())
        finally:
            await model.aclose()

    with pytest.raises(InfraError):
        asyncio.run(generate_then_close())
