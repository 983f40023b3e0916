"""What `codetrial doctor` checks: sandbox mode, embedded model, store location."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

from codetrial.core import UsageError


def checks(home: Path) -> list[tuple[str, bool, str]]:
    from codetrial.models.local import check_gguf, default_gguf_path
    from codetrial.sandbox import detect_mode

    mode, reason = detect_mode()
    results = [
        ("python", True, sys.version.split()[0]),
        ("sandbox", mode == "bubblewrap", f"{mode}: {reason}"),
        ("bubblewrap", shutil.which("bwrap") is not None, shutil.which("bwrap") or "not found"),
        ("llama-cpp-python", importlib.util.find_spec("llama_cpp") is not None,
         "importable" if importlib.util.find_spec("llama_cpp") else "missing"),
    ]
    try:
        path = default_gguf_path()
        check_gguf(path)
        results.append(("embedded model", True, str(path)))
    except UsageError as exc:
        results.append(("embedded model", False, str(exc)))
    results.append(("store", True, str(home / "runs.sqlite")))
    return results
