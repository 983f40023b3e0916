"""Every check's recorded calls (grading.record_calls), kept in the suite data cache.

Recording runs each reference solution under its test, in the harness: for HumanEval about a
second of work (one canonical solution alone takes most of it) that depends only on the data
and on the recording code. So it is done once per data version and read back afterwards.

A stored list never decides a verdict: it only predicts the calls a test will make; the replay
compares every call the test really makes with it and grades apart on any difference.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codetrial.inside import plain as _plain
from codetrial.suites import grading
from codetrial.suites.data_cache import SuiteDataCache, data_key, parts_digest
from codetrial.suites.grading import CallCheck


def check_key(check: CallCheck) -> str:
    """A digest of the check's four sources, each with its length (hashed as they are:
    JSON-escaping them first cost more than the hashing)."""
    return parts_digest(part.encode()
                        for part in (check.prelude, check.test, check.entry, check.reference))


def recording_code() -> bytes:
    """What the recorded lists also depend on: the recorder, the value encoding, Python's
    version (the seeded random generator a test draws from)."""
    sources = (Path(module.__file__).read_bytes() for module in (grading, _plain))
    return b"\0".join([sys.version.encode(), *sources])


def remember_calls(name: str, data: bytes, checks: Iterable[CallCheck],
                   home: Path | None = None) -> None:
    """Make record_calls answer from the cache for `checks`; record the ones it lacks and
    store them. `data` is the bytes the checks come from; `name` names the cache file."""
    cache = SuiteDataCache(name, data_key(data, recording_code()), home)
    loaded = cache.load()
    entries = {key: text for key, text in loaded.items() if isinstance(text, str)}
    for check in checks:
        key = check_key(check)
        calls = _decoded(entries.get(key))
        if calls is not None:
            grading.known_calls(check, calls, entries[key])
        else:
            entries[key] = grading.calls_text(check, grading.record_calls(check))
    if entries != loaded:
        cache.save(entries)


def _decoded(text: str | None) -> list[Any] | None:
    """A stored list of calls: kept as the JSON text the sandboxed program reads, so that it
    is not written again for every sample."""
    try:
        calls = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return None
    return calls if isinstance(calls, list) else None
