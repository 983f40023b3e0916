"""What the agent's `run` tool adds to a command: the tool call (the command in the sandbox on
the workspace, its files brought back) against the same command run in the sandbox directly,
and against it run outside any sandbox. Interleaved rounds on one warm sandbox; prints the
median of each and the ratios (targets: tool <= 1.2x sandbox, tool <= outside + 50 ms).
Usage: python benchmarks/agent_run_overhead.py [--rounds 40]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from codetrial.agent.shell import Toolchain, run_command
from codetrial.sandbox import Limits, Program, Sandbox

# a Python exercise's workspace as the agent sees it: stub, instructions, a test of its own
WORKSPACE = {"leap.py": "def leap_year(year):\n    pass\n",
             "INSTRUCTIONS.md": "Given a year, report if it is a leap year.\n" * 20,
             "my_test.py": "import leap\nassert leap.leap_year(2000) in (None, True)\n"}
COMMANDS = ("true", "ls -la", "python3 my_test.py")


async def _rounds(box: Sandbox, command: str, rounds: int, outside: Path) -> dict[str, list]:
    limits = Limits(wall_seconds=30)
    toolchain = Toolchain(limits)
    times: dict[str, list[float]] = {"tool": [], "sandbox": [], "outside": []}
    for _ in range(rounds):
        start = time.perf_counter()
        ran = await run_command(box, WORKSPACE, command, toolchain, 30)
        times["tool"].append(time.perf_counter() - start)
        assert ran.exit_code == 0, ran
        start = time.perf_counter()
        out = await box.run(Program(argv=("/bin/bash", "-c", command), files=WORKSPACE), limits)
        times["sandbox"].append(time.perf_counter() - start)
        assert out.exit_code == 0, out
        start = time.perf_counter()
        subprocess.run(["/bin/bash", "-c", command], cwd=outside, check=True,
                       capture_output=True)
        times["outside"].append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, Sandbox(workers=1) as box:
        outside = Path(folder)
        for name, text in WORKSPACE.items():
            (outside / name).write_text(text)
        for command in COMMANDS:
            asyncio.run(_rounds(box, command, 3, outside))  # warm
            times = asyncio.run(_rounds(box, command, args.rounds, outside))
            tool, box_s, out_s = (statistics.median(times[k]) * 1000
                                  for k in ("tool", "sandbox", "outside"))
            print(f"{command!r:22} tool {tool:6.1f} ms  sandbox {box_s:6.1f} ms  outside "
                  f"{out_s:6.1f} ms  tool/sandbox {tool / box_s:.2f}x  tool-outside "
                  f"{tool - out_s:+.1f} ms")


if __name__ == "__main__":
    main()
