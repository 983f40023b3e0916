"""Plans and drives runs."""

from codetrial.runner.config import RunConfig
from codetrial.runner.engine import Plan, execute, pending, prepare, start_run

__all__ = ["Plan", "RunConfig", "execute", "pending", "prepare", "start_run"]
