"""What happened to a program, from its exit, its result channel and what it printed."""

from __future__ import annotations

import _ast  # noqa: F401 - compile() makes its ~120 AST types on first use: 2 ms in every child
import _operator  # compare_digest without hmac, whose OpenSSL would be in every fork
import json
import math
import os
import signal

from codetrial_capture import Watch


def parse_result(data: bytes, nonce: str, pid: int) -> dict | None:
    """The last message the child itself wrote (forked copies of it carry another pid)."""
    last = None
    for line in data.splitlines():
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):  # a program may write anything to this fd
            continue
        if isinstance(msg, dict) and msg.get("pid") == pid and nonce_matches(msg.get("nonce"),
                                                                            nonce):
            last = msg
    return last


def nonce_matches(given: object, nonce: str) -> bool:
    """In constant time, and never raising whatever the program wrote (compare_digest raises
    on a non-ASCII string: the worker failed, and the program's result became an infra error,
    left out of every rate)."""
    return isinstance(given, str) and given.isascii() and _operator._compare_digest(given, nonce)


def parse_reports(data: bytes, nonce: str) -> tuple[list, int]:
    """Report lines `<nonce> <json>`; any other line is dropped and counted."""
    reports, dropped = [], 0
    for line in data.splitlines():
        if not line.strip():
            continue
        tag, _, body = line.partition(b" ")
        try:
            if not _operator._compare_digest(tag, nonce.encode()):
                raise ValueError("wrong nonce")
            reports.append(json.loads(body))
        except (ValueError, RecursionError):
            dropped += 1
    return reports, dropped


def signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def judge_signal(watch: Watch, sig: int, oom_kills: int) -> tuple[str, str]:
    cpu_limit = max(1, math.ceil(watch.limits["cpu_seconds"]))
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and watch.cpu_seconds >= cpu_limit - 0.05):
        return "timeout", f"CPU time limit of {cpu_limit} s exceeded"
    if sig == signal.SIGKILL and oom_kills > 0:
        return "oom", "killed by the kernel's out-of-memory killer"
    return "error", f"killed by {signal_name(sig)}"


def judge_code(watch: Watch, result: dict | None, exit_code: int | None) -> tuple[str, str]:
    if result is None:
        return "error", f"exited with status {exit_code} before the program finished"
    if result.get("completed"):
        return "ok", ""
    exc = result.get("exception", "")
    if exc == "MemoryError":
        return "oom", f"MemoryError (memory limit {watch.limits['memory_mb']} MB)"
    if exc == "SystemExit":
        return "error", f"called sys.exit({exit_code}) before the program finished"
    if exc == "ResultsNotJSON":
        return "error", "__results__ is not JSON-serializable"
    return "error", f"raised {exc}"


def judge_argv(watch: Watch, exit_code: int | None) -> tuple[str, str]:
    if exit_code == 0:
        return "ok", ""
    tail = watch.capture("stderr").data[-4096:].decode("utf-8", "replace").strip().splitlines()
    if tail and tail[-1].startswith("MemoryError"):
        return "oom", f"MemoryError (memory limit {watch.limits['memory_mb']} MB)"
    return "error", f"exit status {exit_code}"


def judge(watch: Watch, req: dict, nonce: str, oom_kills: int) -> dict:
    """The reply for one finished program: what it printed, reported, and how it ended."""
    exit_code = os.WEXITSTATUS(watch.status) if os.WIFEXITED(watch.status) else None
    sig = os.WTERMSIG(watch.status) if os.WIFSIGNALED(watch.status) else None
    at_least = watch.killed_for == "output_limit"
    out, err = watch.capture("stdout"), watch.capture("stderr")
    data = bytes(watch.capture("result").data)
    result, dropped = None, 0
    if req.get("argv"):
        report, dropped = parse_reports(data, nonce)
    else:
        result = parse_result(data, nonce, watch.pid)
        report = (result or {}).get("results")
    status, detail = verdict(watch, req, result, exit_code, sig, oom_kills)
    if dropped:
        detail = f"{detail}; " if detail else ""
        detail += f"dropped {dropped} report line(s) without the right nonce"
    return {
        "status": status, "detail": detail, "exit_code": exit_code, "signal": sig,
        "wall_seconds": round(watch.wall, 4), "cpu_seconds": round(watch.cpu_seconds, 4),
        "stdout": out.text("stdout", at_least), "stderr": err.text("stderr", at_least),
        "truncated": out.truncated or err.truncated, "report": report,
    }


def verdict(watch: Watch, req: dict, result: dict | None, exit_code: int | None,
            sig: int | None, oom_kills: int) -> tuple[str, str]:
    setup = bytes(watch.capture("setup").data)
    if setup:
        return "sandbox_error", setup_detail(setup)
    if watch.killed_for == "abandoned":
        return "sandbox_error", "the harness went away during the program"
    if watch.killed_for == "stopped":
        return "stopped", "stopped by the harness: what it printed decided its verdict"
    if watch.killed_for == "timeout":
        return "timeout", f"wall time limit of {watch.limits['wall_seconds']} s exceeded"
    if watch.killed_for == "output_limit":
        return "output_limit", watch.over_cap
    if sig is not None:
        return judge_signal(watch, sig, oom_kills)
    if req.get("argv"):
        return judge_argv(watch, exit_code)
    return judge_code(watch, result, exit_code)


def setup_detail(setup: bytes) -> str:
    try:
        msg = json.loads(setup)
        return msg.get("exec_error") or "sandbox set-up failed: " + msg.get("setup_error", "")
    except (ValueError, AttributeError):
        return "sandbox set-up failed: " + setup.decode("utf-8", "replace")
