"""The checks' compiled code (grading.check_sources), kept in the suite data cache.

Every check compiles its prelude and its test each time it runs in a new process: for HumanEval
328 sources, about 70 ms of each run's CPU. The code objects depend only on the sources and on
the interpreter, so they are compiled once per data version and Python build and read back as
marshalled code afterwards. Marshal data is read only from a file the data cache trusts (ours
alone, whole by its digest: marshal must never see bytes a sandboxed program could write), and
each code object is handed to grading only for the exact source and filename it was compiled
from; anything missing, foreign or changed is compiled again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import sys
from collections.abc import Iterable
from pathlib import Path
from types import CodeType

from codetrial.suites import grading
from codetrial.suites.data_cache import SuiteDataCache, data_key
from codetrial.suites.grading import CallCheck

FORMAT = b"compiled checks 2"  # 2: compiled without inherited __future__ flags


def source_key(source: str, filename: str) -> str:
    return hashlib.sha256(f"{filename}\0{source}".encode()).hexdigest()


def interpreter() -> bytes:
    """What a code object depends on besides its source: the bytecode and marshal formats."""
    return b"\0".join([FORMAT, importlib.util.MAGIC_NUMBER, sys.version.encode(),
                       str(marshal.version).encode()])


def remember_code(name: str, data: bytes, checks: Iterable[CallCheck],
                  home: Path | None = None) -> None:
    """Make grading.compiled answer from the cache for `checks`' sources; compile the ones it
    lacks and store them. `data` is the bytes the checks come from; `name` names the file."""
    cache = SuiteDataCache(name, data_key(data, interpreter()), home, suffix=".marshal")
    entries = _loaded(cache.load_bytes())
    compiled = 0
    for check in checks:
        for source, filename in grading.check_sources(check):
            key = source_key(source, filename)
            code = entries.get(key)
            if code is None or code.co_filename != filename:
                code = entries[key] = grading.compiled(source, filename)
                compiled += 1
            grading.known_code(source, filename, code)
    if compiled:
        cache.save_bytes(marshal.dumps(entries))


def _loaded(body: bytes | None) -> dict[str, CodeType]:
    """The code objects a trusted body holds, by source_key."""
    if body is None:
        return {}
    try:
        entries = marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return {}
    if not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if isinstance(k, str) and isinstance(v, CodeType)}
