"""Realistic replies (tests/editformats/corpus/*.yaml), each with its expected outcome."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from codetrial.editformats import FORMATS, MalformedReply, get_format
from codetrial.models.base import ToolCall

CORPUS = Path(__file__).parent / "corpus"


def _load() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(CORPUS.glob("*.yaml")):
        cases += yaml.safe_load(path.read_text(encoding="utf-8"))
    return cases


CASES = _load()


def _crlf(text: str, on: bool) -> str:
    return text.replace("\n", "\r\n") if on else text


def _calls(case: dict[str, Any]) -> list[ToolCall]:
    return [ToolCall(call["name"], call["arguments"] if isinstance(call["arguments"], str)
                     else json.dumps(call["arguments"])) for call in case.get("tool_calls", [])]


def test_corpus_is_large_and_covers_every_format() -> None:
    counts = Counter(case["format"] for case in CASES)
    assert sum(counts.values()) >= 40
    assert set(counts) == set(FORMATS)
    names = [f"{case['format']}/{case['name']}" for case in CASES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case['format']}/{case['name']}")
def test_corpus_reply(case: dict[str, Any]) -> None:
    crlf = case.get("crlf", "")
    files_on, reply_on = crlf in ("files", "both"), crlf in ("reply", "both")
    before = {path: _crlf(text, files_on) for path, text in case["files_before"].items()}
    reply = _crlf(case.get("reply", ""), reply_on)
    expect = case["expect"]
    fmt = get_format(case["format"])
    if "malformed" in expect:
        with pytest.raises(MalformedReply) as caught:
            fmt.edit(reply, _calls(case), before)
        assert expect["malformed"] in str(caught.value)
        return
    result = fmt.edit(reply, _calls(case), before)
    if "error" in expect:
        assert expect["error"] in "\n".join(result.errors), result.errors
    else:
        assert result.ok, result.errors
    if "applied" in expect:
        assert expect["applied"] in "\n".join(result.applied), result.applied
    after = {path: _crlf(text, files_on) for path, text in expect.get("files_after", {}).items()}
    for path, text in after.items():
        assert result.files.get(path) == text, path
    if "files_after" in expect:
        others = {path: text for path, text in result.files.items() if path not in after}
        assert others == {path: text for path, text in before.items() if path not in after}
