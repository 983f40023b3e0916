"""Tokens and money as every report prints them: an unknown price reads "unknown", never $0."""

from __future__ import annotations

from typing import Any


def cost_text(summary: dict[str, Any]) -> str:
    """What the run paid, and what it would cost fresh when cached replies made it cheaper."""
    paid, fresh = summary.get("cost_usd"), summary.get("fresh_cost_usd", summary.get("cost_usd"))
    if paid is None:
        return "cost unknown"
    if fresh is not None and fresh > paid:
        return f"${paid:.4f} (fresh ${fresh:.4f}; cached replies are free)"
    return f"${paid:.4f}"


def tokens_text(summary: dict[str, Any]) -> str:
    """Reasoning tokens are billed as output but shown apart from the visible output."""
    reasoning = summary.get("reasoning_tokens") or 0
    text = f"{summary['tokens']} tokens"
    return f"{text} ({reasoning} reasoning)" if reasoning else text


def truncated_text(summary: dict[str, Any]) -> str:
    return str(summary.get("truncated_replies") or 0)
