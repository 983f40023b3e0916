"""Reasoning models, full-length edits, settings that reach the API and real costs: whole runs
through the real SDKs against loopback servers that behave as the providers document."""

from __future__ import annotations

import asyncio
import re

import genai_prices
import pytest

from codetrial.core import UsageError
from codetrial.metrics.summary import run_summary
from codetrial.report.html_report import write_html_report
from codetrial.report.usage_text import cost_text
from codetrial.runner import RunConfig, execute, pending, prepare, start_run
from codetrial.store import Store
from tests.models.providers import REASONING_SPENT, AnthropicProvider, OpenAIProvider, tokens
from tests.scale.runs import run_to_end
from tests.suites.exercism_fixture import EXERCISES, make_exercises

pytest.importorskip("anthropic", reason="the anthropic backend needs codetrial[anthropic]")

LINES = 300
LONG_SOLUTION = "".join(f"def helper_{i}(value):\n    return value + {i}\n\n\n"
                        for i in range(LINES // 4)) + (
    "def two_fer(name='you'):\n    return f'One for {name}, one for me.'\n")
TWO_FER = EXERCISES["two-fer"]["example"][".meta/example.py"]


def whole_reply(text: str) -> str:
    return f"two_fer.py\n```python\n{text}```\n"


def edit_config(tmp_path, model: str, provider, **settings) -> RunConfig:
    path = make_exercises(tmp_path / "ex", names=["two-fer"])
    return RunConfig(suite="exercism", model=model, base_url=provider.base_url, cache=False,
                     suite_options={"path": str(path), "edit_format": "whole", "tries": 1},
                     **settings)


def run(config: RunConfig, store: Store) -> dict:
    run_id, _ = asyncio.run(run_to_end(config, store))
    return run_summary(store, run_id) | {"config": store.get_run(run_id).config,
                                          "samples": store.load_samples(run_id)}


def test_a_300_line_whole_file_edit_is_not_cut_short_by_default(tmp_path):
    assert LONG_SOLUTION.count("\n") >= LINES and tokens(whole_reply(LONG_SOLUTION)) > 512
    store = Store(tmp_path / "b.sqlite")
    with OpenAIProvider(lambda body: whole_reply(LONG_SOLUTION)) as api:
        full = run(edit_config(tmp_path, "openai:gpt-4o", api), Store(tmp_path / "a.sqlite"))
        cut = run(edit_config(tmp_path, "openai:gpt-4o", api, max_tokens=200), store)
    assert full["passed"] == 1 and full["truncated_replies"] == 0
    assert full["config"]["sent"] == {"max_tokens": 16_384, "temperature": 0.0}
    assert api.bodies[0]["max_tokens"] == 16_384 and api.bodies[0]["temperature"] == 0.0
    replies = len(api.bodies) - 1  # every reply of the run under 200 tokens was cut there
    assert cut["passed"] == 0 and cut["truncated_replies"] == replies >= 1
    page = write_html_report(store, [cut["run_id"]], tmp_path / "r.html").read_text()
    assert "truncated by the output budget" in page
    assert f'<td class="num">{replies}</td><td class="num">{replies}</td>' in page  # both


def test_a_reasoning_effort_run_sends_what_a_reasoning_model_takes_and_counts_its_tokens(
        tmp_path):
    store = Store(tmp_path / "runs.sqlite")
    with OpenAIProvider(lambda body: whole_reply(TWO_FER)) as api:
        summary = run(edit_config(tmp_path, "openai:o-test", api, reasoning_effort="high"), store)
    [body] = api.bodies
    assert body["reasoning_effort"] == "high" and body["max_completion_tokens"] == 32_768
    assert "temperature" not in body and "max_tokens" not in body and "top_p" not in body
    assert summary["config"]["sent"] == {"max_completion_tokens": 32_768,
                                         "reasoning_effort": "high"}
    assert summary["passed"] == 1 and summary["reasoning_tokens"] == REASONING_SPENT["high"]
    [sample] = summary["samples"]
    assert sample.attempts[0].reasoning_tokens == REASONING_SPENT["high"]
    assert sample.attempts[0].completion_tokens > REASONING_SPENT["high"]  # billed as output
    page = write_html_report(store, [summary["run_id"]], tmp_path / "r.html").read_text()
    assert "sent reasoning_effort=high" in page and "sent max_completion_tokens=32768" in page
    assert f"({REASONING_SPENT['high']} reasoning)" in page and "sent temperature" not in page


def test_a_setting_the_api_refuses_stops_the_run_with_a_line_naming_it(tmp_path):
    from codetrial.cli import run_async

    store = Store(tmp_path / "runs.sqlite")
    with OpenAIProvider(lambda body: whole_reply(TWO_FER), ("o-test", "o3-test")) as api:
        config = edit_config(tmp_path, "openai:o3-test", api, temperature=0.2)
        with pytest.raises(UsageError, match=r"refused temperature=0\.2 \(set by --temperature"):
            asyncio.run(run_async(store, config, None))
        # a setting a model does not know is the same: not an infra error retried forever
        config = edit_config(tmp_path, "openai:gpt-4o", api, reasoning_effort="low")
        with pytest.raises(UsageError, match=r"refused reasoning_effort='low'"):
            asyncio.run(run_async(store, config, None))
        # a reasoning model codetrial cannot tell by its name: the line says what to pass
        config = edit_config(tmp_path, "openai:o-test", api)
        with pytest.raises(UsageError, match=r"max_tokens=16384 .*pass --reasoning-effort"):
            asyncio.run(run_async(store, config, None))
    assert store.list_runs() == []  # nothing half-written is left behind
    assert "max_tokens" not in api.bodies[0]  # known by its name: max_completion_tokens


def anthropic_config(tmp_path, provider, model: str = "claude-old", **settings) -> RunConfig:
    return edit_config(tmp_path, f"anthropic:{model}", provider, **settings)


def test_anthropic_receives_the_temperature_under_the_api_version_that_takes_it(tmp_path):
    with AnthropicProvider(lambda body: whole_reply(TWO_FER)) as api:
        default = run(anthropic_config(tmp_path, api), Store(tmp_path / "a.sqlite"))
        chosen = run(anthropic_config(tmp_path, api, temperature=0.2, top_p=0.9),
                     Store(tmp_path / "b.sqlite"))
    assert default["passed"] == chosen["passed"] == 1
    first, second = api.bodies
    assert not {"temperature", "top_p"} & first.keys()
    assert api.headers[0]["anthropic-version"] != "2023-06-01"  # the SDK's own version
    assert (second["temperature"], second["top_p"]) == (0.2, 0.9)
    assert api.headers[1]["anthropic-version"] == "2023-06-01"
    assert chosen["config"]["sent"] == {"max_tokens": 16_384, "temperature": 0.2, "top_p": 0.9}


def test_anthropic_refusals_are_usage_errors_naming_the_setting(tmp_path):
    with AnthropicProvider(lambda body: whole_reply(TWO_FER)) as api:
        store = Store(tmp_path / "runs.sqlite")
        with pytest.raises(UsageError, match=r"refused temperature=0\.2"):
            run(anthropic_config(tmp_path, api, "claude-new", temperature=0.2), store)
        asked = len(api.bodies)
        with pytest.raises(UsageError, match="only temperature 1"):  # before any request
            asyncio.run(prepare(anthropic_config(tmp_path, api, temperature=0.2,
                                                 thinking_budget=2048), None))
    assert len(api.bodies) == asked


def test_anthropic_thinking_budget_is_sent_on_top_of_the_output_and_counted_apart(tmp_path):
    with AnthropicProvider(lambda body: whole_reply(TWO_FER), thinking_spent=300) as api:
        summary = run(anthropic_config(tmp_path, api, thinking_budget=2048, max_tokens=1000),
                      Store(tmp_path / "runs.sqlite"))
    [body] = api.bodies
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 3048  # the thinking does not eat the answer's budget
    assert summary["passed"] == 1 and summary["reasoning_tokens"] == 300
    [sample] = summary["samples"]
    assert "Let me think" not in sample.attempts[0].reply  # thinking is not the answer


def listed_price(model: str, prompt: int, output: int) -> float:
    price = genai_prices.calc_price(genai_prices.Usage(input_tokens=prompt, output_tokens=output),
                                    model, provider_id="openai")
    return float(price.total_price)


def test_cost_is_the_price_list_s_an_unpriced_model_s_is_unknown_and_overrides_win(tmp_path):
    with OpenAIProvider(lambda body: whole_reply(TWO_FER)) as api:
        priced = run(edit_config(tmp_path, "openai:gpt-4o", api), Store(tmp_path / "a.sqlite"))
        unpriced = run(edit_config(tmp_path, "openai:my-own-model", api),
                       Store(tmp_path / "b.sqlite"))
        overridden = run(edit_config(tmp_path, "openai:my-own-model", api, price_in=1.0,
                                     price_out=2.0), Store(tmp_path / "c.sqlite"))
    [attempt] = priced["samples"][0].attempts
    expected = listed_price("gpt-4o", attempt.prompt_tokens, attempt.completion_tokens)
    assert expected > 0 and priced["cost_usd"] == pytest.approx(expected)
    assert unpriced["cost_usd"] is None and unpriced["fresh_cost_usd"] is None
    assert cost_text(unpriced) == "cost unknown"
    [attempt] = overridden["samples"][0].attempts
    assert overridden["cost_usd"] == pytest.approx(
        (attempt.prompt_tokens * 1.0 + attempt.completion_tokens * 2.0) / 1e6)


def test_a_rerun_from_the_cache_is_free_and_says_what_it_would_cost_fresh(tmp_path):
    from rich.console import Console

    from codetrial.report.terminal import print_summary

    store = Store(tmp_path / "runs.sqlite")

    async def go(config):
        plan = await prepare(config, tmp_path / "cache.sqlite")
        run_id = start_run(store, plan)
        try:
            await execute(store, run_id, plan, pending(store, run_id, plan))
        finally:
            await plan.model.aclose()
        return run_summary(store, run_id)

    with OpenAIProvider(lambda body: whole_reply(TWO_FER)) as api:
        config = edit_config(tmp_path, "openai:gpt-4o", api)
        config.cache = True
        first, again = asyncio.run(go(config)), asyncio.run(go(config))
    assert len(api.bodies) == 1 and first["cost_usd"] > 0
    assert again["cost_usd"] == 0 and again["fresh_cost_usd"] == pytest.approx(first["cost_usd"])
    console = Console(width=200)
    with console.capture() as captured:
        print_summary(again, console)
    shown = captured.get()
    assert re.search(r"\$0\.0000 \(fresh \$0\.\d{4}; cached replies are free\)", shown)
