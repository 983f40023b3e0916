"""Isolated execution of untrusted programs: limits, bubblewrap, warm fork-server workers.

The sandbox knows nothing of tasks: it runs a Program under Limits and returns an Outcome.
Programs may import the judging modules every worker preloads (see judged.py): they keep a
program's checks out of reach of the code it runs, whatever that code does.
"""

from codetrial.sandbox.mode import SandboxUnavailable, detect_mode
from codetrial.sandbox.sandbox import Sandbox
from codetrial.sandbox.types import Limits, Outcome, Program

__all__ = ["Limits", "Outcome", "Program", "Sandbox", "SandboxUnavailable", "detect_mode"]
