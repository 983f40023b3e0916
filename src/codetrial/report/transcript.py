"""An agent's try, step by step: each reply folded with its tool calls and their answers."""

from __future__ import annotations

import json
from typing import Any

from codetrial.core import Attempt
from codetrial.report.page import esc, esc_text

ANSWER_CHARS = 4_000  # of one tool answer, on the page (the store keeps what the model saw)


def _call_title(call: dict[str, Any]) -> str:
    args = call.get("arguments") or {}
    what = args.get("command") or args.get("path") or ""
    mark = "" if call.get("ok") else " ✗"
    return f"{call.get('name', '?')} {what}".strip()[:100] + mark


def _call_html(call: dict[str, Any]) -> str:
    args = dict(call.get("arguments") or {})
    shown = json.dumps(args, indent=1) if set(args) - {"command", "path"} else ""
    answer = str(call.get("answer", ""))
    if len(answer) > ANSWER_CHARS:
        answer = answer[:ANSWER_CHARS] + f"\n... ({len(answer) - ANSWER_CHARS} more chars)"
    seconds = f" ({call['seconds']:.2f} s)" if call.get("seconds") else ""
    return (f"<details><summary>{esc(_call_title(call))}{seconds}</summary>"
            + (f"<pre>{esc_text(shown)}</pre>" if shown else "")
            + f"<pre>{esc_text(answer)}</pre></details>")


def _step_html(number: int, step: dict[str, Any]) -> str:
    if "error" in step:
        return f"<p>step {number}: the model call failed: {esc(str(step['error']))}</p>"
    calls = step.get("calls") or []
    names = ", ".join(_call_title(c) for c in calls) or "no tool call"
    tokens = f"{step.get('prompt_tokens', 0)} in / {step.get('completion_tokens', 0)} out"
    cached = ", cached" if step.get("cached") else ""
    reply = str(step.get("reply") or "")
    return (f"<details><summary>step {number}: {esc(names)}</summary>"
            f"<p class=\"note\">model {float(step.get('model_seconds') or 0):.2f} s, tokens "
            f"{tokens}{cached}</p>"
            + (f"<pre>{esc_text(reply)}</pre>" if reply.strip() else "")
            + "".join(_call_html(c) for c in calls) + "</details>")


def transcript_html(attempt: Attempt) -> str:
    steps = attempt.details.get("transcript")
    if not isinstance(steps, list):
        return ""
    d = attempt.details
    head = (f"transcript: {len(steps)} replies, {d.get('steps', 0)} steps, ended by "
            f"{d.get('ended_by', '?')}; {d.get('failed_commands', 0)} failed commands, "
            f"{d.get('malformed_calls', 0)} malformed calls, tools "
            f"{float(d.get('tool_seconds') or 0):.2f} s")
    return (f"<details><summary>{esc(head)}</summary>"
            + "".join(_step_html(i, s) for i, s in enumerate(steps, 1)) + "</details>")
