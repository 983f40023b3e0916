"""`codetrial --help` against a bare program that imports typer and rich and prints its help,
each a new process of the same interpreter, interleaved; prints the median ratio (target:
codetrial <= 1.5x). Both programs' bytecode is compiled first, as an installer does.
Usage: python benchmarks/cli_startup.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import codetrial

BARE = '''
from pathlib import Path

import typer
from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True, help="A bare typer program.")
err = Console(stderr=True)


@app.command()
def run(suite: str, model: str = "local", limit: int | None = None,
        path: Path | None = None) -> None:
    """Run a suite."""


@app.command()
def report(run_id: str, as_json: bool = False) -> None:
    """Print a run."""


app()
'''


def codetrial_argv() -> list[str]:
    """The entry point a user types, without a version manager's shim in front."""
    script = Path(sys.executable).parent / "codetrial"
    return [str(script)] if script.exists() else [sys.executable, "-m", "codetrial"]


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ))
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or "Usage" not in proc.stdout:
        sys.exit(f"{' '.join(argv)} did not print its help: {proc.stderr[-1000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    compileall.compile_dir(os.path.dirname(codetrial.__file__), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare.py"
        bare.write_text(BARE)
        compileall.compile_file(str(bare), quiet=1)
        commands = {"codetrial --help": [*codetrial_argv(), "--help"],
                    "bare typer+rich --help": [sys.executable, str(bare), "--help"]}
        for argv in commands.values():
            timed(argv)  # warm the file cache
        times: dict[str, list[float]] = {name: [] for name in commands}
        names = list(commands)
        for i in range(args.rounds):
            for name in names[i % 2:] + names[:i % 2]:
                times[name].append(timed(commands[name]))
    ours, theirs = (statistics.median(times[name]) for name in names)
    print(f"median of {args.rounds}: codetrial --help {ours * 1000:.0f} ms, bare typer+rich "
          f"program {theirs * 1000:.0f} ms, ratio {ours / theirs:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
