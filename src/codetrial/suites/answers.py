"""What a judged program answered: the answers its judge gave (its report, or the answer
lines it printed while it ran), what the code under test tried, and its output without
those lines."""

from __future__ import annotations

import json
from typing import Any

from codetrial.inside.plain import ANSWER_PREFIX
from codetrial.sandbox import Outcome


def answer_lines_in(stdout: str) -> int:
    """How many lines of `stdout` are answer lines (counted, not parsed)."""
    return stdout.startswith(ANSWER_PREFIX) + stdout.count("\n" + ANSWER_PREFIX)


def printed_answers(stdout: str) -> list[Any]:
    """The answer lines a program printed, up to the first that is not JSON."""
    items = []
    for line in stdout.split("\n"):  # not splitlines(): it also splits at \x1c-\x1e
        if line.startswith(ANSWER_PREFIX):
            try:
                items.append(json.loads(line[len(ANSWER_PREFIX):]))
            except (ValueError, RecursionError):
                break
    return items


def is_tried(item: Any) -> bool:
    return isinstance(item, dict) and list(item) == ["tried"]


def answers_of(outcome: Outcome) -> list[Any]:
    """The answers a program gave: its report when it finished (none if that is not a list),
    else the lines it printed (what the code tried, reported among them, left out)."""
    if outcome.status == "ok":
        report = outcome.report if isinstance(outcome.report, list) else []
        return [a for a in report if not is_tried(a)]
    return [a for a in printed_answers(outcome.stdout) if not is_tried(a)]


_TRIED_LINE = ANSWER_PREFIX + '{"tried": '  # how the judges print one (json.dumps)


def tried_of(outcome: Outcome) -> list[str]:
    """What the code under test tried ("kind:detail"), as the judges report it: the audit
    hook's findings, for the report only (a verdict never depends on them)."""
    report = outcome.report if isinstance(outcome.report, list) else []
    found = [str(t) for item in [*report, *_printed_tried(outcome)] if is_tried(item)
             and isinstance(item["tried"], list) for t in item["tried"]]
    return list(dict.fromkeys(found))[:50]


def _printed_tried(outcome: Outcome) -> list[Any]:
    """The printed answer lines that say what was tried (the others are not parsed)."""
    if _TRIED_LINE not in outcome.stdout:
        return []
    return [item for item in printed_answers(outcome.stdout) if is_tried(item)]


def tried_details(outcome: Outcome, also: tuple[str, ...] = ()) -> dict[str, Any]:
    tried = [*tried_of(outcome), *also]
    return {"tried": tried} if tried else {}


def program_output(outcome: Outcome, limit: int = 4000) -> str:
    """What the program printed, without its answer lines."""
    lines = outcome.stdout.split("\n")
    stdout = "\n".join(ln for ln in lines if not ln.startswith(ANSWER_PREFIX)).strip("\n")
    text = stdout + ("\n" if stdout and outcome.stderr else "") + outcome.stderr
    return text[-limit:]
