"""What the sandbox is asked to run and what it says happened. It knows nothing of tasks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# "stopped": the caller's watch stopped it, what it printed having decided (see Sandbox.run)
Status = Literal["ok", "error", "timeout", "oom", "output_limit", "sandbox_error", "stopped"]


@dataclass(frozen=True)
class Limits:
    """Per-program limits. All are set in the program's own process before its code runs."""

    wall_seconds: float = 10.0  # from fork to exit; then the whole process tree is killed
    cpu_seconds: float = 10.0  # per process, rounded up to whole seconds (RLIMIT_CPU)
    memory_mb: int = 1024  # address space on top of what the process already maps (RLIMIT_AS)
    max_processes: int = 32  # processes *and threads* of the program's uid (RLIMIT_NPROC)
    max_output_bytes: int = 64_000  # kept per stream; 16x this in all kills the program
    max_file_mb: int = 32  # largest file it may write (RLIMIT_FSIZE)


@dataclass(frozen=True)
class Program:
    """Either Python source run as __main__ in a forked warm child (`code`), or a command (`argv`).

    `files` are written into the fresh working directory first. A `code` program succeeds when
    it runs to its end without an exception; its module-level `__results__` (JSON-able) comes
    back as `Outcome.report`. An `argv` program reports by writing JSON lines that start with
    the nonce it reads from the fd named in $CODETRIAL_NONCE_FD to the fd in $CODETRIAL_REPORT_FD;
    `Outcome.report` is then the list of accepted objects, and status "ok" means exit status 0.
    Code that shares a process with its checks can forge their result (the nonce is in its
    memory): a reporter should read the nonce before it imports the code under test. Programs
    can keep the checks out of its reach with the modules every worker preloads:
    `codetrial_judge` (call the code by value; or fork it apart) and `codetrial_unittest`.
    """

    code: str | None = None
    argv: tuple[str, ...] | None = None
    files: dict[str, str | bytes] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    stdin: str = ""
    collect: bool = False  # bring the workdir's text files back (Outcome.files)


@dataclass
class Outcome:
    status: Status
    exit_code: int | None = None
    signal: int | None = None
    stdout: str = ""
    stderr: str = ""
    report: Any = None
    wall_seconds: float = 0.0
    detail: str = ""
    truncated: bool = False  # stdout or stderr was cut to Limits.max_output_bytes
    cpu_seconds: float = 0.0
    files: dict[str, str] | None = None  # the workdir as the program left it (Program.collect)
    dropped: dict[str, str] = field(default_factory=dict)  # files not brought back, and why
