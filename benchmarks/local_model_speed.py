"""Tokens per second of the embedded model: through codetrial (llama.cpp in a child process,
a clean context per request) against raw llama-cpp-python in this process, interleaved.

    python3 benchmarks/local_model_speed.py [--rounds 5] [--max-tokens 96]

Both generate greedily from the same prompts (their first tokens differ, so neither side can reuse
a cached prompt), hence the same tokens; the ratio is codetrial's tokens/s over raw's.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from codetrial.models import Request, create_model
from codetrial.models.local import default_gguf_path

PROMPTS = [
    "def fibonacci(n):\n",
    "# Sort a list of numbers in place\nnumbers = [",
    "class Stack:\n    \"\"\"A last-in, first-out stack.\"\"\"\n",
    "Write one sentence about the sea:",
    "import json\n\ndef load(path):\n",
    "SELECT name, COUNT(*) FROM orders",
]


def raw_round(llama, max_tokens: int) -> tuple[int, float]:
    tokens, start = 0, time.perf_counter()
    for prompt in PROMPTS:
        out = llama.create_completion(prompt=prompt, max_tokens=max_tokens, temperature=0.0)
        tokens += out["usage"]["completion_tokens"]
    return tokens, time.perf_counter() - start


def codetrial_round(model, max_tokens: int) -> tuple[int, float]:
    async def all_prompts() -> int:
        made = 0
        for prompt in PROMPTS:
            reply = await model.generate(Request(kind="completion", prompt=prompt,
                                                 max_tokens=max_tokens))
            made += reply.usage.completion_tokens
        return made

    start = time.perf_counter()
    tokens = asyncio.run(all_prompts())
    return tokens, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=96)
    args = parser.parse_args()

    from llama_cpp import Llama

    llama = Llama(model_path=str(default_gguf_path()), n_ctx=4096, verbose=False)
    model = create_model("local")
    asyncio.run(model.check())
    raw_round(llama, 8)  # warm both: first evaluations page the weights in
    codetrial_round(model, 8)
    ratios, raw_rates, ours_rates = [], [], []
    for k in range(args.rounds):
        raw_tokens, raw_s = raw_round(llama, args.max_tokens)
        our_tokens, our_s = codetrial_round(model, args.max_tokens)
        raw_rate, our_rate = raw_tokens / raw_s, our_tokens / our_s
        raw_rates.append(raw_rate)
        ours_rates.append(our_rate)
        ratios.append(our_rate / raw_rate)
        same = "same tokens" if raw_tokens == our_tokens else f"{raw_tokens} vs {our_tokens} tokens"
        print(f"round {k + 1}: raw {raw_rate:.1f} tok/s, codetrial {our_rate:.1f} tok/s, "
              f"ratio {ratios[-1]:.3f} ({same})")
    print(f"median: raw {statistics.median(raw_rates):.1f} tok/s, codetrial "
          f"{statistics.median(ours_rates):.1f} tok/s, codetrial/raw "
          f"{statistics.median(ratios):.3f}x (target >= 0.95x)")
    llama.close()


if __name__ == "__main__":
    main()
