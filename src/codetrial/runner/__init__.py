"""Plans and drives runs.

The names are imported when first used: the command line begins the sandbox (runner.early)
before it imports the engine and everything the engine needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codetrial.runner.config import RunConfig
    from codetrial.runner.engine import Plan, execute, pending, prepare, start_run

_MODULE_OF = {"RunConfig": "config", "Plan": "engine", "execute": "engine", "pending": "engine",
              "prepare": "engine", "start_run": "engine"}
__all__ = ["Plan", "RunConfig", "execute", "pending", "prepare", "start_run"]


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
