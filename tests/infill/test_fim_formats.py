"""Each FIM format, character for character, and which one a model's name selects."""

import pytest

from codetrial.core import UsageError
from codetrial.protocols.fim_formats import FORMATS, fim_format, hole_end
from codetrial.protocols.infill import with_header

PRE = "def f(x):\n    return "
SUF = "\n\nprint(f(2))\n"

EXPECTED = {
    "starcoder": ("<fim_prefix>def f(x):\n    return <fim_suffix>\n\nprint(f(2))\n<fim_middle>",
                  ["<|endoftext|>", "<file_sep>"]),
    "santacoder": ("<fim-prefix>def f(x):\n    return <fim-suffix>\n\nprint(f(2))\n<fim-middle>",
                   ["<|endoftext|>"]),
    "codellama": ("<PRE> def f(x):\n    return  <SUF>\n\nprint(f(2))\n <MID>", ["<EOT>"]),
    "deepseek": ("<\uff5cfim\u2581begin\uff5c>def f(x):\n    return <\uff5cfim\u2581hole\uff5c>"
                 "\n\nprint(f(2))\n<\uff5cfim\u2581end\uff5c>", []),
    "qwen": ("<|fim_prefix|>def f(x):\n    return <|fim_suffix|>\n\nprint(f(2))\n<|fim_middle|>",
             ["<|endoftext|>", "<|fim_pad|>", "<|file_sep|>"]),
    "codegemma": ("<|fim_prefix|>def f(x):\n    return <|fim_suffix|>\n\nprint(f(2))\n"
                  "<|fim_middle|>", ["<|file_separator|>"]),
    "codestral": ("[SUFFIX]\n\nprint(f(2))\n[PREFIX]def f(x):\n    return ", []),
    "prefix": ("def f(x):\n    return ", ["\n"]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_prompt_and_stops_exactly(name):
    fmt = FORMATS[name]
    prompt, stops = EXPECTED[name]
    assert fmt.prompt(PRE, SUF) == prompt
    assert fmt.stops(PRE, SUF) == stops


def test_every_format_is_tested():
    assert set(FORMATS) == set(EXPECTED)


def test_deepseek_uses_fullwidth_bar_and_lower_block():
    prompt = FORMATS["deepseek"].prompt("a", "b")
    assert prompt.startswith("<\uff5c") and "\u2581" in prompt and "|" not in prompt


def test_header_goes_before_the_prefix():
    prefix = with_header(PRE, "# Databricks notebook source")
    assert FORMATS["starcoder"].prompt(prefix, SUF).startswith(
        "<fim_prefix># Databricks notebook source\ndef f(x):")
    assert FORMATS["codestral"].prompt(prefix, SUF).endswith(
        "[PREFIX]# Databricks notebook source\ndef f(x):\n    return ")
    assert with_header(PRE, None) == PRE


@pytest.mark.parametrize("model,expected", [
    ("openai:bigcode/starcoder2-7b", "starcoder"),
    ("openai:Qwen/CodeQwen1.5-7B", "starcoder"),
    ("openai:bigcode/santacoder", "santacoder"),
    ("openai:codellama/CodeLlama-7b-hf", "codellama"),
    ("openai:deepseek-ai/deepseek-coder-6.7b-base", "deepseek"),
    ("openai:Qwen/Qwen2.5-Coder-7B", "qwen"),
    ("openai:qwen2.5-coder:1.5b", "qwen"),
    ("openai:google/codegemma-7b", "codegemma"),
    ("openai:codestral-latest", "codestral"),
    ("local:SmolLM2-135M-Instruct.Q4_1.gguf", "prefix"),
    ("reference", "prefix"),
])
def test_format_detected_from_model_name(model, expected):
    assert fim_format(None, model).name == expected


def test_option_overrides_detection_and_unknown_is_a_usage_error():
    assert fim_format("codegemma", "openai:bigcode/starcoder2-7b").name == "codegemma"
    with pytest.raises(UsageError, match="fim_format='gpt'"):
        fim_format("gpt", "reference")


@pytest.mark.parametrize("prefix,suffix,stop", [
    ('query = r"""', '"""\n', '"""'),  # the rest of the hole's line
    ("result = ", "\n", "\n"),  # the hole ends its line
    ("def f():\n    ", "\n\nprint(f())\n", "\nprint(f())"),  # a body: up to the next code
    ("def f():\n    ", "\n", "\n\n\n"),  # nothing follows
])
def test_prefix_format_stops_where_the_suffix_begins(prefix, suffix, stop):
    assert hole_end(prefix, suffix) == stop


def test_the_local_model_has_no_fim_tokens_so_it_gets_the_prefix_format():
    """SmolLM2's vocabulary splits `<fim_prefix>` into pieces: FIM tokens would be noise."""
    from codetrial.models import create_model

    model = create_model("local")
    assert len(model.tokenize("<fim_prefix>", special=True)) > 1
    assert len(model.tokenize("<|endoftext|>", special=True)) == 1
