"""What the sandbox is asked to run and what it says happened. It knows nothing of tasks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["ok", "error", "timeout", "oom", "output_limit", "sandbox_error"]


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 10.0
    cpu_seconds: float = 10.0
    memory_mb: int = 1024
    max_processes: int = 32
    max_output_bytes: int = 64_000
    max_file_mb: int = 32


@dataclass(frozen=True)
class Program:
    """Either Python source run as __main__ in a forked warm child (`code`), or a command (`argv`).

    `files` are written into the fresh working directory first. A `code` program succeeds when
    it runs to its end without an exception; its module-level `__results__` (JSON-able) comes
    back as `Outcome.report`. An `argv` program reports by writing JSON lines that start with
    the nonce it reads from the fd named in $CODETRIAL_NONCE_FD to the fd in $CODETRIAL_REPORT_FD.
    """

    code: str | None = None
    argv: tuple[str, ...] | None = None
    files: dict[str, str | bytes] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    stdin: str = ""


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
