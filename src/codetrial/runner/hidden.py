"""What no sandboxed program may see: the suite's answer keys and the harness's own files."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from codetrial.store.location import cache_dir, home
from codetrial.suites import Suite


def harness_paths() -> list[Path]:
    """The store and reply cache (earlier answers, maybe to this very task), the download cache
    (the JSON-Schema-Test-Suite), and codetrial's own package when installed where programs
    can see it (its graders are no business of theirs; no program imports it)."""
    spec = importlib.util.find_spec("codetrial")
    package = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    return [home(), cache_dir(), *package]


def hidden_paths(suite: Suite) -> tuple[str, ...]:
    """Everything the sandbox should mask for a run of `suite`, as strings."""
    found = [*suite.hidden_paths(), *harness_paths()]
    return tuple(dict.fromkeys(str(p.expanduser().absolute()) for p in found))
