"""JavaScript: jest 29.7 (pinned at set-up into a shared node_modules the sandbox sees
read-only) runs the spec files in one process and writes its --json report. The model's code
runs in the process that runs the tests: see the README for what that still allows."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from codetrial.core import TestResult, Verdict
from codetrial.languages import decoys
from codetrial.languages.base import Language, Plan, Workspace, language

NODE_DIR = Path(os.environ.get("CODETRIAL_NODE_DIR", "/usr/local/share/codetrial/node"))
JEST = "node_modules/jest/bin/jest.js"
REPORT = ".out/jest.json"
_SKIPS = [(re.compile(r"\bxtest\s*\("), "test("), (re.compile(r"\bxit\s*\("), "it("),
          (re.compile(r"\bxdescribe\s*\("), "describe("),
          (re.compile(r"\b(test|it|describe)\.skip\s*\("), r"\1(")]
_TEST = re.compile(r"\b(?:test|it)\s*\(\s*(['\"`])((?:(?!\1)[^\\]|\\.)*)\1")


@language("javascript")
class JavaScript(Language):
    name, display, fence = "javascript", "JavaScript", "javascript"
    extensions = (".js", ".mjs")
    packages = "nodejs npm and jest (bash scripts/setup_languages.sh javascript)"
    build_files = ("package.json", "package-lock.json", "babel.config.js", ".babelrc*",
                   "jest.config.*", ".npmrc", "node_modules/*")
    test_patterns = ("*.spec.js", "*.test.js")
    unskipped = "xtest, xit, xdescribe and test.skip/it.skip/describe.skip run as test/it/describe"
    # V8 reserves address space far beyond what it uses, per isolate: each worker thread
    # (parallel-letter-frequency) reserves gigabytes more. The heap is bounded by
    # --max-old-space-size (plan), real memory by the kernel's preference to kill the program.
    memory_mb = 65536

    def tools(self) -> dict[str, list[str]]:
        jest = NODE_DIR / JEST
        return {"node": ["node", "--version"],
                "jest": ["node", str(jest), "--version"] if jest.is_file() else []}

    def plan(self, ws: Workspace) -> Plan:
        run = ["node", JEST, "--ci", "--json", f"--outputFile={REPORT}", "--runInBand",
               "--no-watchman", "--cacheDirectory={wd}/.jest-cache", "--rootDir", "."]
        steps: list[dict[str, Any]] = [
            {"name": "dirs", "mkdir": [".out"],
             "symlink": [str(NODE_DIR / "node_modules"), "node_modules"]},
            {"name": "test", "argv": run,  # the heap bounded: RLIMIT_AS is V8's reservation
             "env": {"CI": "true", "NODE_OPTIONS": "--max-old-space-size=2048"}},
        ]
        masked = decoys.disguise({p: ws.files[p] for p in ws.tests}, decoys.JEST)
        return Plan(steps, collect=[REPORT], files=masked.files, names=masked.names,
                    decoys=masked.decoys)

    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        import json

        try:
            data = json.loads((report.get("files") or {}).get(REPORT) or "{}")
        except ValueError:
            return []
        results = []
        for suite in data.get("testResults", []) if isinstance(data, dict) else []:
            for case in suite.get("assertionResults", []) if isinstance(suite, dict) else []:
                if not isinstance(case, dict):
                    continue
                passed = case.get("status") == "passed"
                message = "\n".join(str(m) for m in case.get("failureMessages") or [])
                results.append(TestResult(str(case.get("title", "")),
                                          Verdict.PASSED if passed else Verdict.FAILED,
                                          message[-4000:]))
        return results

    def expected(self, sources: dict[str, str]) -> list[str]:
        return [title for text in sources.values() for _, title in _TEST.findall(text)]

    def unskip(self, text: str) -> str:
        for pattern, replacement in _SKIPS:
            text = pattern.sub(replacement, text)
        return text
