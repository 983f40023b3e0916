"""The tests of an exercise run by the tool itself, as a developer would: in a plain directory,
the test files as shipped (un-skipped), no sandbox, no per-run names, no decoys, and for
JavaScript plain jest with the solution in its own process. The differential test compares its
per-test verdicts with codetrial's; the grading benchmark times it as the peer."""

from __future__ import annotations

import glob
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from codetrial.core import TestResult
from codetrial.languages import _driver as driver
from codetrial.languages import javascript
from codetrial.languages.base import Language, Workspace, sandbox_path
from codetrial.languages.grading import program

JEST_REPORT = ".out/jest.json"


def plain_steps(lang: Language, ws: Workspace) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The steps to run and the files to write for the tool's own run of `ws`."""
    if lang.name == "javascript":
        steps = [{"name": "dirs", "mkdir": [".out"],
                  "symlink": [str(javascript.NODE_DIR / "node_modules"), "node_modules"]},
                 {"name": "test", "argv": ["node", javascript.JEST, "--ci", "--json",
                                           f"--outputFile={JEST_REPORT}", "--runInBand",
                                           "--no-watchman", "--rootDir", "."],
                  "env": {"CI": "true"}}]
        return steps, dict(ws.files)
    built = program(lang, ws)  # also makes sure the warm builds exist
    files = {**built.files, **{p: ws.files[p] for p in ws.tests}}
    return json.loads(built.stdin)["steps"], files


def in_folder(files: dict[str, str], steps: list[dict[str, Any]], scratch: Path,
              collect: list[str]) -> tuple[list[dict[str, Any]], dict[str, str], float]:
    """`steps` run by the sandbox's own step runner in a fresh folder holding `files`, with the
    sandbox's PATH: what each step printed, the files `collect` names, and the seconds."""
    folder = Path(tempfile.mkdtemp(dir=scratch))
    for rel, text in files.items():
        if rel != ".codetrial-driver.py":
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text)
    here, path = os.getcwd(), os.environ["PATH"]
    start = time.perf_counter()
    os.chdir(folder)
    os.environ["PATH"] = sandbox_path()
    try:
        ran = [r for step in steps for r in driver._step(step)]  # noqa: SLF001 - the sandbox's
        found = {p: Path(p).read_text(errors="replace") for pattern in collect
                 for p in sorted(glob.glob(pattern))}
    finally:
        os.chdir(here)
        os.environ["PATH"] = path
    seconds = time.perf_counter() - start
    shutil.rmtree(folder, ignore_errors=True)
    return ran, found, seconds


def run(lang: Language, ws: Workspace, scratch: Path) -> tuple[list[TestResult], float]:
    """The per-test results of the tool's own run, and its seconds."""
    steps, files = plain_steps(lang, ws)
    collect = [JEST_REPORT] if lang.name == "javascript" else lang.plan(ws).collect
    ran, found, seconds = in_folder(files, steps, scratch, collect)
    tests, _ = lang.read({"steps": ran, "files": found, "keyed": found.get(JEST_REPORT)})
    return tests, seconds
