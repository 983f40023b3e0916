"""The programs that run inside the sandbox, and the modules they import.

Standalone on purpose: stdlib only, never importing codetrial. The harness ships them as files
(sandbox/launch.py binds them into every worker's sandbox) and the worker loads each by file
under its `codetrial_<name>` name (`codetrial_frames`, `codetrial_judge`, ...), so that a
program's own `judge.py` or `frames.py` never collides with them. They import one another by
those names. The harness imports the few it needs as this package's modules (`plain`, `frames`).

- frames: length-prefixed frames, the one wire format of every channel (harness and worker,
  judge and subject, tests and subject, the llama.cpp child).
- worker (the entry), system, privileges, child, channel, capture, outcome, cleanup, server:
  the fork server that runs one program at a time; channel is its end of the harness's pipes
  (requests, replies, what a running program printed so far, stops).
- exception_text: tracebacks as Python prints them, without the carets that cost a parse.
- plain, audit: values as plain data; what the model's code tried.
- proxy, judge, subject, unittest: the model's code in a process of its own, reached by value
  or through handles.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).parent
PREFIX = "codetrial_"


class _Standalone:
    """A finder for `import codetrial_<name>`: this folder's `<name>.py`, as the worker loads
    it (so that its own `import codetrial_...` lines work in this process too)."""

    def find_spec(self, name: str, path: object = None, target: object = None
                  ) -> ModuleSpec | None:
        file = HERE / f"{name.removeprefix(PREFIX)}.py"
        if not name.startswith(PREFIX) or not file.is_file():
            return None
        return importlib.util.spec_from_file_location(name, file)


def standalone(name: str) -> ModuleType:
    """`codetrial_<name>` loaded in this process as the worker loads it: for tests and tools
    that use an in-sandbox module directly."""
    if not any(isinstance(finder, _Standalone) for finder in sys.meta_path):
        sys.meta_path.append(_Standalone())
    return importlib.import_module(PREFIX + name)
