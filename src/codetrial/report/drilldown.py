"""Per-sample drill-down: every try's prompt, reply, applied edits, test output and timings.

All of it is model or test output, so all of it is escaped; long texts are cut (the whole of
them stays in the store, see `codetrial export`). Failures come first: they are what people
open a report to read.
"""

from __future__ import annotations

import difflib
import json
import os
from collections import Counter
from dataclasses import dataclass
from typing import Any

from codetrial.core import Attempt, Sample, Verdict
from codetrial.report.page import Section, esc, esc_text
from codetrial.report.runs import RunView
from codetrial.report.tables import html_table
from codetrial.report.transcript import transcript_html

MAX_CHARS = 20_000
MAX_SAMPLES = 300  # per run


def clip(text: str, limit: int = MAX_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}\n... ({len(text) - limit} more chars)"


@dataclass(frozen=True)
class Shared:
    """What every sample of a run sends alike, shown once above its samples: the system prompt
    and the beginning of the first user message (a suite's instructions)."""

    system: str = ""
    prefix: str = ""

    def html(self) -> str:
        return (_block("system prompt (the same for every sample)", self.system)
                + _block("every prompt begins with", self.prefix))


def prompt_text(request: Any, shared: Shared = Shared(), earlier: list[Any] | None = None) -> str:
    """Chat messages as `role:` blocks, a completion prompt as itself, anything else as JSON.

    The page stays lean: what the run's samples share is shown once above them, and messages
    a previous try already sent (`earlier`) are not repeated."""
    if request is None:  # nothing was sent (an infra error before the request)
        return ""
    if isinstance(request, dict) and isinstance(request.get("messages"), list):
        messages = request["messages"]
        skip = len(earlier) if earlier and messages[:len(earlier)] == earlier else 0
        head = [f"[the first {skip} messages: as in the previous try]"] if skip else []
        return "\n\n".join(head + [_message(m, shared) for m in messages[skip:]
                                     if isinstance(m, dict)])
    if isinstance(request, dict) and "prompt" in request:
        suffix = request.get("suffix")
        return str(request["prompt"]) + (f"\n\n[suffix]\n{suffix}" if suffix else "")
    return json.dumps(request, indent=1, default=str)


def _message(message: dict[str, Any], shared: Shared) -> str:
    role, content = message.get("role", "?"), str(message.get("content", ""))
    if role == "system" and shared.system and content == shared.system:
        content = "[the run's system prompt, shown above the samples]"
    elif role == "user" and shared.prefix and content.startswith(shared.prefix):
        content = "[the beginning every prompt shares, shown above]\n" + content[
            len(shared.prefix):]
    return f"{role}:\n{content}"


def _messages(attempt: Attempt | None) -> list[Any] | None:
    request = attempt.request if attempt is not None else None
    return request.get("messages") if isinstance(request, dict) else None


def shared_parts(samples: list[Sample], least: int = 120) -> Shared:
    """The system message two or more first tries sent, and the beginning (whole lines, at
    least `least` characters) that every first user message shares."""
    firsts = [m for s in samples if s.attempts for m in (_messages(s.attempts[0]) or [])
              if isinstance(m, dict)]
    systems = Counter(str(m.get("content", "")) for m in firsts if m.get("role") == "system")
    system, count = systems.most_common(1)[0] if systems else ("", 0)
    users = [str(m.get("content", "")) for m in firsts if m.get("role") == "user"]
    prefix = os.path.commonprefix(users) if len(users) > 1 else ""
    prefix = prefix[:prefix.rfind("\n") + 1]
    return Shared(system if count > 1 else "", prefix if len(prefix) >= least else "")


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
            f"<pre>{esc_text(clip(text))}</pre></details>")


def verdict_class(verdict: Verdict) -> str:
    if verdict == Verdict.PASSED:
        return "verdict-passed"
    return "verdict-infra" if verdict.is_infra else "verdict-failed"


def timings(attempt: Attempt) -> str:
    cost = f", ${attempt.cost_usd:.4f}" if attempt.cost_usd else ""
    if not attempt.cost_known:
        cost = ", cost unknown"
    reasoning = f" ({attempt.reasoning_tokens} reasoning)" if attempt.reasoning_tokens else ""
    return (f"model {attempt.model_seconds:.2f} s, tests {attempt.test_seconds:.2f} s, "
            f"tokens {attempt.prompt_tokens} in / {attempt.completion_tokens} out{reasoning}"
            f"{cost}")


def tests_html(attempt: Attempt) -> str:
    """A row per test, unless all passed: then their count says it."""
    if all(t.verdict == Verdict.PASSED for t in attempt.tests):
        n = len(attempt.tests)
        return f'<p class="verdict-passed">all {n} tests passed</p>' if n > 1 else ""
    return html_table(["test", "verdict", "message"],
                      [[t.name, (t.verdict.value, verdict_class(t.verdict)), clip(t.message)]
                       for t in attempt.tests])


def attempt_html(attempt: Attempt, previous: Attempt | None, shared: Shared = Shared()) -> str:
    tests = tests_html(attempt)
    failed = attempt.verdict != Verdict.PASSED
    return (f'<div><p>try {attempt.try_index}: <b class="{verdict_class(attempt.verdict)}">'
            f"{esc(attempt.verdict.value)}</b>; {esc(timings(attempt))}</p>"
            + _block("prompt", prompt_text(attempt.request, shared, _messages(previous)))
            + (transcript_html(attempt) or _block("reply", attempt.reply))
            + _block("applied edits", applied_text(attempt, previous))
            + _block("code graded", "" if _in_reply(attempt) else attempt.code)
            + _block("test output", attempt.output, open_=failed)
            + tests + "</div>")


def _in_reply(attempt: Attempt) -> bool:
    """The code graded is the reply's own code block: shown once, in the reply."""
    return bool(attempt.code.strip()) and attempt.code.strip() in attempt.reply


def sample_html(sample: Sample, shared: Shared = Shared()) -> str:
    tries = sample.attempts
    seconds = sample.total("model_seconds") + sample.total("test_seconds")
    head = (f"{esc(sample.task_id)} #{sample.index}: "
            f'<span class="{verdict_class(sample.verdict)}">{esc(sample.verdict.value)}</span> '
            f"({len(tries)} {'try' if len(tries) == 1 else 'tries'}, {seconds:.2f} s)")
    body = "".join(attempt_html(a, tries[i - 1] if i else None, shared)
                   for i, a in enumerate(tries))
    return f"<details><summary>{head}</summary>{body or '<p>no attempt stored</p>'}</details>"


def _order(sample: Sample) -> tuple[int, str, int]:
    rank = 2 if sample.passed else 1 if sample.is_infra_error else 0
    return rank, sample.task_id, sample.index


def run_html(run: RunView) -> str:
    shown = sorted(run.samples, key=_order)[:MAX_SAMPLES]
    more = len(run.samples) - len(shown)
    note = f'<p class="note">{more} more samples not shown (passed ones last).</p>' if more else ""
    shared = shared_parts(shown)
    return (f"<h3>{esc(run.contender)}: {esc(run.record.suite)} ({esc(run.run_id)})</h3>"
            + shared.html() + "".join(sample_html(s, shared) for s in shown) + note)


def drilldown_section(runs: list[RunView]) -> Section | None:
    if not any(r.samples for r in runs):
        return None
    return Section("samples", "Samples", [
        '<p class="note">Failures first. Open a sample for its tries.</p>',
        *(run_html(r) for r in runs if r.samples)])
