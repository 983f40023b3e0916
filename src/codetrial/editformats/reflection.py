"""The message sent back to a model when some of its edits could not be applied."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from codetrial.editformats.edits import ApplyResult, EditFailure
from codetrial.editformats.text import fence_for, split_lines


def reflection_message(result: ApplyResult, files: dict[str, str]) -> str:
    """Name each file, show the lines that did not match and the most similar lines of the
    file, say which other edits were applied, and ask for the failed edits only. `files` should
    be the files as they are now (usually `result.files`): the resent edits apply to those."""
    parts = [_failure(failure, files or result.files) for failure in result.failures]
    parts.append(_applied(result.applied))
    parts.append("Send again only the edits that failed, corrected so that the lines they look "
                 "for match the file exactly. Do not send the applied edits again.")
    return "\n\n".join(parts)


def _failure(failure: EditFailure, files: dict[str, str]) -> str:
    path = failure.edit.path or "(no file name)"
    text = f"The edit to {path} could not be applied: {failure.reason.rstrip('.')}."
    if not failure.missing or path not in files:
        return text
    text += f"\n\nThese lines were not found in {path}:\n{_fenced(failure.missing)}"
    similar = most_similar_lines(files[path], failure.missing)
    if similar:
        text += f"\n\nThe most similar lines in {path} are:\n{_fenced(similar)}"
    return text


def _applied(applied: list[str]) -> str:
    if not applied:
        return "None of the other edits were applied."
    return "These other edits were applied and are already in the files:\n" + "\n".join(
        f"- {line}" for line in applied)


def _fenced(text: str) -> str:
    fence = fence_for(text)
    return f"{fence}\n{text.rstrip(chr(10))}\n{fence}"


def most_similar_lines(content: str, wanted: str, floor: float = 0.5) -> str:
    """The run of file lines, as long as `wanted`, that difflib finds most similar to it; empty
    when nothing reaches `floor`, since far-off lines would only mislead the model. A cheap
    word-overlap score picks the few windows worth difflib's time (big files stay fast)."""
    lines, target = split_lines(content), split_lines(wanted)
    size, goal = max(1, len(target)), "\n".join(target)
    starts = _promising(lines, target, size)
    best, best_ratio = "", floor
    for start in starts:
        window = "\n".join(lines[start:start + size])
        ratio = SequenceMatcher(None, window, goal, autojunk=False).ratio()
        if ratio > best_ratio:
            best, best_ratio = window, ratio
    return best


def _promising(lines: list[str], target: list[str], size: int, keep: int = 8) -> list[int]:
    file_words, target_words = [_words(line) for line in lines], [_words(t) for t in target]
    scores = {}
    for start in range(max(1, len(lines) - size + 1)):
        pairs = zip(file_words[start:start + size], target_words, strict=False)
        scores[start] = sum(len(a & b) / (len(a | b) or 1) for a, b in pairs)
    return sorted(scores, key=lambda start: (-scores[start], start))[:keep]


def _words(line: str) -> set[str]:
    return set(re.findall(r"\w+|[^\w\s]", line))
