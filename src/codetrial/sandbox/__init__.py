"""Isolated execution of untrusted programs: limits, bubblewrap, warm fork-server workers.

The sandbox knows nothing of tasks: it runs a Program under Limits and returns an Outcome.
"""

from codetrial.sandbox.mode import SandboxUnavailable, detect_mode
from codetrial.sandbox.sandbox import Sandbox
from codetrial.sandbox.types import Limits, Outcome, Program

__all__ = ["Limits", "Outcome", "Program", "Sandbox", "SandboxUnavailable", "detect_mode"]
