"""The `codetrial` command: a run's sandbox starts before the command line framework loads.

Importing typer and the commands is a third of a short run's start, and the sandbox's workers
need none of it: `codetrial run SUITE ...` begins them from the raw arguments (see
runner.early.guess), then the command line proper parses and runs.
"""

from __future__ import annotations

import gc
import sys


def main() -> None:
    gc.disable()  # nothing to collect while the command imports (cli.main turns it on again)
    if sys.argv[1:2] == ["run"]:
        from codetrial.runner import early

        early.guess(sys.argv[1:])
    from codetrial.cli import main as cli_main

    cli_main()
