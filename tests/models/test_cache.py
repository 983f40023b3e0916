import asyncio

from codetrial.models.base import Model, Reply, Request
from codetrial.models.cache import CachedModel, ResponseCache


class CountingModel(Model):
    name = "counting"

    def __init__(self):
        self.calls = 0

    async def generate(self, request: Request) -> Reply:
        self.calls += 1
        return Reply(text=f"answer {self.calls}")


def test_identical_requests_are_answered_from_the_cache(tmp_path):
    inner = CountingModel()
    model = CachedModel(inner, ResponseCache(tmp_path / "cache.sqlite"))
    request = Request(kind="completion", prompt="def f():", temperature=0.2)

    first = asyncio.run(model.generate(request))
    again = asyncio.run(model.generate(Request(kind="completion", prompt="def f():",
                                               temperature=0.2)))
    other_sample = asyncio.run(model.generate(Request(kind="completion", prompt="def f():",
                                                      temperature=0.2, sample_index=1)))
    assert inner.calls == 2
    assert again.text == first.text and again.cached and not first.cached
    assert other_sample.text == "answer 2"


def test_cache_survives_a_new_process(tmp_path):
    path = tmp_path / "cache.sqlite"
    request = Request(kind="chat", messages=[{"role": "user", "content": "hi"}])
    asyncio.run(CachedModel(CountingModel(), ResponseCache(path)).generate(request))
    fresh = CountingModel()
    reply = asyncio.run(CachedModel(fresh, ResponseCache(path)).generate(request))
    assert fresh.calls == 0 and reply.text == "answer 1"


def test_reference_field_is_not_part_of_the_key(tmp_path):
    inner = CountingModel()
    model = CachedModel(inner, ResponseCache(tmp_path / "c.sqlite"))
    asyncio.run(model.generate(Request(kind="completion", prompt="x", reference=Reply("a"))))
    asyncio.run(model.generate(Request(kind="completion", prompt="x", reference=Reply("b"))))
    assert inner.calls == 1
