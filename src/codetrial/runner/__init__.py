"""Plans and drives runs.

The names are imported when first used: the command line begins the sandbox (runner.early)
before it imports the engine and everything the engine needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codetrial.core import lazy

if TYPE_CHECKING:
    from codetrial.runner.config import RunConfig
    from codetrial.runner.engine import Plan, execute, pending, prepare, start_run

__all__ = ["Plan", "RunConfig", "execute", "pending", "prepare", "start_run"]
__getattr__ = lazy.exports(__name__, {
    "RunConfig": "config", "Plan": "engine", "execute": "engine", "pending": "engine",
    "prepare": "engine", "start_run": "engine"})
