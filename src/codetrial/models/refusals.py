"""A request the API refused because of a setting we sent: the user's to fix, not a fault.

A 400 that names a sent setting (OpenAI's error says which in `param`; Anthropic's message
starts with it) becomes a UsageError naming the setting and the flag that sets it, so the run
stops at once with one line instead of storing an infra error per sample."""

from __future__ import annotations

from typing import Any

from codetrial.core.errors import UsageError

FLAGS = {
    "temperature": "--temperature", "top_p": "--top-p", "max_tokens": "--max-tokens",
    "max_completion_tokens": "--max-tokens", "reasoning_effort": "--reasoning-effort",
    "output_config": "--reasoning-effort", "thinking": "--thinking-budget", "seed": "--seed",
}


def refused_setting(message: str, sent: dict[str, Any], param: str | None = None) -> str | None:
    """The sent setting the error names: `param` when the API says, else the first named."""
    if param in sent:
        return param
    lowered = message.lower()
    named = [name for name in sent if name in lowered]
    return max(named, key=len) if named else None  # max_completion_tokens, not max_tokens


SENT_TO_NON_REASONING = ("max_tokens", "temperature")  # what a reasoning model refuses


def refusal(model: str, name: str, value: Any, message: str, reasoning: bool) -> UsageError:
    flag = FLAGS.get(name, name)
    hint = ("; if it is a reasoning model, pass --reasoning-effort"
            if name in SENT_TO_NON_REASONING and not reasoning else "")
    return UsageError(f"{model}: the API refused {name}={value!r} (set by {flag}, or sent by "
                      f"default{hint}): {message.strip()[:300]}")
