"""The `run` tool: one shell command in the sandbox, on the workspace, files brought back.

Each command runs as its own sandbox program (a fresh working directory holding the
workspace, the suite's masks, no network, the language's limits) and the workspace becomes
what it left there (`Program.collect`): build directories and binaries stay behind, so state
between commands is the workspace's text files, never a process. Output is shown to the model
with timings masked ("0.004s", "12ms", "0m0.005s", "in 4s" -> "<time>"), so a rerun asks the
model the same questions and its cached replies still answer them.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from dataclasses import dataclass, field

from codetrial.sandbox import Limits, Program, Sandbox

OUTPUT_CAP = 12_000  # characters of a command's output the model is shown
# timings as tools print them: 0.004s, 12ms, 1.234µs, (3 ms), in 4s, 0m0.005s
_TIMING = re.compile(r"\b\d+m\d+(\.\d+)?s\b|\b\d+\.\d+ ?(ns|µs|us|ms|s|sec|seconds)\b|"
                     r"\b\d+ ?(ns|µs|us|ms)\b|\b(?<=in )\d+ ?s\b")
DROPPED_SHOWN = 10


@dataclass
class Ran:
    exit_code: int | None
    output: str
    status: str  # the sandbox's: ok, error, timeout, oom, output_limit, sandbox_error
    detail: str
    seconds: float
    files: dict[str, str] | None  # the workspace after the command; None: unchanged
    dropped: dict[str, str] = field(default_factory=dict)

    def answer(self, timeout: float) -> str:
        """What the model reads."""
        from codetrial.agent.tools import shown

        if self.status == "timeout":
            head = f"stopped: the command ran past its {timeout:g} s limit"
        elif self.exit_code is None or self.status in ("oom", "output_limit", "sandbox_error"):
            head = f"stopped: {self.status.replace('_', ' ')}"
            head += f" ({self.detail.splitlines()[0][:200]})" if self.detail else ""
        else:
            head = f"exit status {self.exit_code}"
        body = _TIMING.sub("<time>", self.output)
        text = f"{head}\n{shown(body, OUTPUT_CAP)}" if body else head
        return text + self._not_kept()

    def _not_kept(self) -> str:
        names = [f"{p} ({why})" for p, why in sorted(self.dropped.items())]
        if not names:
            return ""
        more = f", and {len(names) - DROPPED_SHOWN} more" if len(names) > DROPPED_SHOWN else ""
        return "\nnot kept in the folder: " + ", ".join(names[:DROPPED_SHOWN]) + more

    @property
    def failed(self) -> bool:
        return self.status != "ok"


def script(command: str, env: dict[str, str], path: list[str]) -> str:
    """bash that merges stderr into stdout, sets the toolchain's variables ({wd}: the working
    directory, wherever the sandbox mode puts it) and then runs the model's command."""
    lines = ["exec 2>&1"]
    if path:
        lines.append("export PATH=" + ":".join(shlex.quote(p) for p in path) + ':"$PATH"')
    for key, value in env.items():
        quoted = '"$PWD"'.join(shlex.quote(part) for part in value.split("{wd}"))
        lines.append(f"export {key}={quoted}")
    if any("{wd}/.tmp" in value for value in env.values()):  # Go's TMPDIR must exist
        lines.append("mkdir -p .tmp")
    return "\n".join(lines) + "\n" + command


async def run_command(sandbox: Sandbox, files: dict[str, str], command: str,
                      toolchain: Toolchain, timeout: float) -> Ran:
    program = Program(argv=("/bin/bash", "-c", script(command, toolchain.env, toolchain.path)),
                      files=dict(files), collect=True)
    limits = dataclasses.replace(toolchain.limits, wall_seconds=timeout,
                                 cpu_seconds=max(toolchain.limits.cpu_seconds, timeout))
    out = await sandbox.run(program, limits)
    after = out.files if out.files is not None and out.status != "sandbox_error" else None
    if after is not None:  # a file the caps left behind keeps the text it had
        after.update({p: files[p] for p, why in out.dropped.items()
                      if p in files and why.startswith("over ")})
    return Ran(out.exit_code, out.stdout + out.stderr, out.status, out.detail,
               out.wall_seconds, after, dict(out.dropped))


@dataclass(frozen=True)
class Toolchain:
    """How a language's commands run: the limits, the variables and the PATH they need."""

    limits: Limits
    env: dict[str, str] = field(default_factory=dict)
    path: list[str] = field(default_factory=list)
