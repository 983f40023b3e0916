"""Per-sample drill-down: every try's prompt, reply, applied edits, test output and timings.

All of it is model or test output, so all of it is escaped; long texts are cut (the whole of
them stays in the store, see `codetrial export`). Failures come first: they are what people
open a report to read.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from codetrial.core import Attempt, Sample, Verdict
from codetrial.report.page import Section, esc
from codetrial.report.runs import RunView
from codetrial.report.tables import html_table

MAX_CHARS = 20_000
MAX_SAMPLES = 300  # per run


def clip(text: str, limit: int = MAX_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}\n... ({len(text) - limit} more chars)"


def prompt_text(request: Any) -> str:
    """Chat messages as `role:` blocks, a completion prompt as itself, anything else as JSON."""
    if request is None:  # nothing was sent (an infra error before the request)
        return ""
    if isinstance(request, dict) and isinstance(request.get("messages"), list):
        return "\n\n".join(f"{m.get('role', '?')}:\n{m.get('content', '')}"
                           for m in request["messages"] if isinstance(m, dict))
    if isinstance(request, dict) and "prompt" in request:
        suffix = request.get("suffix")
        return str(request["prompt"]) + (f"\n\n[suffix]\n{suffix}" if suffix else "")
    return json.dumps(request, indent=1, default=str)


def applied_text(attempt: Attempt, previous: Attempt | None) -> str:
    """What the edit format applied, and how the graded code changed since the last try."""
    notes = "\n".join(str(a) for a in attempt.details.get("applied", []))
    if previous is None or previous.code == attempt.code:
        return notes
    diff = difflib.unified_diff(previous.code.splitlines(), attempt.code.splitlines(),
                                f"try {previous.try_index}", f"try {attempt.try_index}",
                                lineterm="")
    return "\n\n".join(t for t in (notes, "\n".join(diff)) if t)


def _block(title: str, text: str, open_: bool = False) -> str:
    if not text.strip():
        return ""
    return (f"<details{' open' if open_ else ''}><summary>{esc(title)}</summary>"
            f"<pre>{esc(clip(text))}</pre></details>")


def verdict_class(verdict: Verdict) -> str:
    if verdict == Verdict.PASSED:
        return "verdict-passed"
    return "verdict-infra" if verdict.is_infra else "verdict-failed"


def timings(attempt: Attempt) -> str:
    cost = f", ${attempt.cost_usd:.4f}" if attempt.cost_usd else ""
    return (f"model {attempt.model_seconds:.2f} s, tests {attempt.test_seconds:.2f} s, "
            f"tokens {attempt.prompt_tokens} in / {attempt.completion_tokens} out{cost}")


def attempt_html(attempt: Attempt, previous: Attempt | None) -> str:
    tests = html_table(["test", "verdict", "message"],
                       [[t.name, (t.verdict.value, verdict_class(t.verdict)), clip(t.message)]
                        for t in attempt.tests]) if attempt.tests else ""
    failed = attempt.verdict != Verdict.PASSED
    return (f'<div><p>try {attempt.try_index}: <b class="{verdict_class(attempt.verdict)}">'
            f"{esc(attempt.verdict.value)}</b>; {esc(timings(attempt))}</p>"
            + _block("prompt", prompt_text(attempt.request))
            + _block("reply", attempt.reply)
            + _block("applied edits", applied_text(attempt, previous))
            + _block("code graded", attempt.code)
            + _block("test output", attempt.output, open_=failed)
            + tests + "</div>")


def sample_html(sample: Sample) -> str:
    tries = sample.attempts
    seconds = sample.total("model_seconds") + sample.total("test_seconds")
    head = (f"{esc(sample.task_id)} #{sample.index}: "
            f'<span class="{verdict_class(sample.verdict)}">{esc(sample.verdict.value)}</span> '
            f"({len(tries)} {'try' if len(tries) == 1 else 'tries'}, {seconds:.2f} s)")
    body = "".join(attempt_html(a, tries[i - 1] if i else None) for i, a in enumerate(tries))
    return f"<details><summary>{head}</summary>{body or '<p>no attempt stored</p>'}</details>"


def _order(sample: Sample) -> tuple[int, str, int]:
    rank = 2 if sample.passed else 1 if sample.is_infra_error else 0
    return rank, sample.task_id, sample.index


def run_html(run: RunView) -> str:
    shown = sorted(run.samples, key=_order)[:MAX_SAMPLES]
    more = len(run.samples) - len(shown)
    note = f'<p class="note">{more} more samples not shown (passed ones last).</p>' if more else ""
    return (f"<h3>{esc(run.contender)}: {esc(run.record.suite)} ({esc(run.run_id)})</h3>"
            + "".join(sample_html(s) for s in shown) + note)


def drilldown_section(runs: list[RunView]) -> Section | None:
    if not any(r.samples for r in runs):
        return None
    return Section("samples", "Samples", [
        '<p class="note">Failures first. Open a sample for its tries.</p>',
        *(run_html(r) for r in runs if r.samples)])
