"""Every check's recorded calls (grading.record_calls), kept in the suite data cache.

Recording runs each reference solution under its test, in the harness: for HumanEval about a
second of work (one canonical solution alone takes most of it) that depends only on the data
and on the recording code. So it is done once per data version and read back afterwards.

A stored list never decides a verdict: it only predicts the calls a test will make; the replay
compares every call the test really makes with it and grades apart on any difference.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path

from codetrial.sandbox import _plain
from codetrial.suites import grading
from codetrial.suites.data_cache import SuiteDataCache, data_key
from codetrial.suites.grading import CallCheck


def check_key(check: CallCheck) -> str:
    text = json.dumps([check.prelude, check.test, check.entry, check.reference])
    return hashlib.sha256(text.encode()).hexdigest()


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
    entries = {key: calls for key, calls in loaded.items() if isinstance(calls, list)}
    for check in checks:
        key = check_key(check)
        if key in entries:
            grading.known_calls(check, entries[key])
        else:
            entries[key] = grading.record_calls(check)
    if entries != loaded:
        cache.save(entries)
