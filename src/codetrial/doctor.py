"""What `codetrial doctor` checks: sandbox mode, the embedded model's runtime, store location."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from codetrial.core import UsageError
from codetrial.core.check import Check


def checks(home: Path) -> list[Check]:
    from codetrial.languages.toolchains import toolchain_checks
    from codetrial.sandbox import detect_mode

    mode, reason = detect_mode()
    bwrap = shutil.which("bwrap")
    return [
        Check("python", True, sys.version.split()[0]),
        Check("sandbox", mode == "bubblewrap", f"{mode}: {reason}"),
        Check("bubblewrap", bwrap is not None, bwrap or "not found"),
        *runtime_checks(),
        *toolchain_checks(),
        Check("store", True, str(home / "runs.sqlite")),
    ]


def runtime_checks() -> list[Check]:
    """The embedded model's file, and whether llama.cpp really generates with it here (in a
    child process: a build that uses instructions this CPU lacks dies there, not in doctor)."""
    from codetrial.models.llama_runtime import probe
    from codetrial.models.local import check_gguf, default_gguf_path

    try:
        path = default_gguf_path()
        check_gguf(path)
    except UsageError as exc:
        return [Check("embedded model", False, str(exc), required=True)]
    result = probe(path)
    return [
        Check("embedded model", True, str(path), required=True),
        Check("llama.cpp runtime", result.ok, result.detail, required=True),
        Check("llama.cpp CPU features", result.ok, result.features or "unknown"),
    ]
