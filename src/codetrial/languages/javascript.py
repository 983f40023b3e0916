"""JavaScript: jest 29.7 (pinned at set-up into a shared node_modules the sandbox sees
read-only) runs the spec files; the model's modules run in a node process of their own.

Each solution module a spec imports is replaced, at its path, by a stub whose exports come from
the subject: a separate node process, started by jest's process with a clean environment, in
`.subject/`, a copy of the exercise without its tests (see node/tests.cjs and node/wire.cjs).
The spec is removed from the disk before the model's code runs, jest's process is undumpable,
and jest's results arrive as a line of its output after a per-run key the subject never sees
(node/reporter.cjs): neither a report file nor printed results nor a replaced `expect` can
speak for jest.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import secrets
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from codetrial.core import TestResult, Verdict
from codetrial.languages.base import Language, Plan, Workspace, language

NODE_DIR = Path(os.environ.get("CODETRIAL_NODE_DIR", "/usr/local/share/codetrial/node"))
JEST = "node_modules/jest/bin/jest.js"
OURS = ".codetrial"  # our node modules, next to the exercise
SUBJECT = ".subject"  # the exercise less its tests: where the model's code runs
KEY_ENV = "CODETRIAL_JEST_KEY"
_NODE_FILES = ("channel.cjs", "wire.cjs", "tests.cjs", "subject.cjs", "reporter.cjs", "confine.py")
# `test.skip` marks Exercism's optional tests, too slow for its own runner (robot-name makes all
# 676,000 names): they stay skipped, as in Exercism's runner and aider's benchmark
_SKIPS = [(re.compile(r"\bxtest\s*\("), "test("), (re.compile(r"\bxit\s*\("), "it("),
          (re.compile(r"\bxdescribe\s*\("), "describe(")]
_NOT_RUN = ("pending", "skipped", "todo", "disabled")
_TEST = re.compile(r"\b(?:test|it)\s*\(\s*(['\"`])((?:(?!\1)[^\\]|\\.)*)\1")
_IMPORT = re.compile(r"(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)"
                     r"""(['"])(\.{1,2}/[^'"]+)\1""")


@cache
def _node_sources() -> dict[str, str]:
    folder = resources.files("codetrial.languages").joinpath("node")
    return {f"{OURS}/{name}": folder.joinpath(name).read_text() for name in _NODE_FILES}


def _relative(path: str, target: str) -> str:
    rel = posixpath.relpath(target, posixpath.dirname(path) or ".")
    return rel if rel.startswith("../") else "./" + rel


def imported(spec_path: str, text: str, files: dict[str, str]) -> set[str]:
    """The files of the exercise that a spec imports or requires by a relative path."""
    found = set()
    for _, spec in _IMPORT.findall(text):
        base = posixpath.normpath(posixpath.join(posixpath.dirname(spec_path), spec))
        for candidate in (base, base + ".js", base + ".mjs", base + "/index.js"):
            if candidate in files:
                found.add(candidate)
                break
    return found


@language("javascript")
class JavaScript(Language):
    name, display, fence = "javascript", "JavaScript", "javascript"
    extensions = (".js", ".mjs")
    packages = "nodejs npm and jest (bash scripts/setup_languages.sh javascript)"
    build_files = ("package.json", "package-lock.json", "babel.config.js", ".babelrc*",
                   "jest.config.*", ".npmrc", "node_modules/*")
    test_patterns = ("*.spec.js", "*.test.js")
    unskipped = ("xtest, xit and xdescribe run as test, it and describe; test.skip (Exercism's "
                 "optional, slow tests) stays skipped")
    # V8 reserves address space far beyond what it uses, per isolate: each worker thread
    # (parallel-letter-frequency) reserves gigabytes more. The heap is bounded by
    # --max-old-space-size (plan), real memory by the kernel's preference to kill the program.
    memory_mb = 65536

    def tools(self) -> dict[str, list[str]]:
        jest = NODE_DIR / JEST
        return {"node": ["node", "--version"],
                "jest": ["node", str(jest), "--version"] if jest.is_file() else []}

    def plan(self, ws: Workspace) -> Plan:
        key = secrets.token_hex(16)
        run = ["node", JEST, "--ci", "--runInBand", "--no-watchman", "--no-cache",
               "--cacheDirectory={wd}/.jest-cache", "--rootDir", ".",
               "--reporters=default", f"--reporters=./{OURS}/reporter.cjs",
               f"--modulePathIgnorePatterns=<rootDir>/{SUBJECT}/",
               f"--testPathIgnorePatterns=/node_modules/|<rootDir>/{SUBJECT}/"]
        env = {"CI": "true", "NODE_OPTIONS": "--max-old-space-size=2048", KEY_ENV: key}
        if (NODE_DIR / "undumpable.so").is_file():
            env["LD_PRELOAD"] = str(NODE_DIR / "undumpable.so")
        steps: list[dict[str, Any]] = [
            {"name": "dirs", "symlink": [str(NODE_DIR / "node_modules"), "node_modules"]},
            {"name": "test", "argv": run, "env": env},  # the heap bounded: RLIMIT_AS is V8's
        ]
        return Plan(steps, files=self._files(ws), key=key)

    def _files(self, ws: Workspace) -> dict[str, str]:
        """Our modules; the exercise less its tests under .subject/; a stub at each solution
        module a spec imports; each spec, which hides itself from the disk as it starts."""
        tests = set(ws.tests)
        files = dict(_node_sources())
        files.update({f"{SUBJECT}/{p}": text for p, text in ws.files.items()
                      if p not in tests and not self.is_build_file(p)})
        solution = set(ws.solution)
        for spec in ws.tests:
            text = ws.files[spec]
            for module in imported(spec, text, ws.files) & solution:
                loader = _relative(module, f"{OURS}/tests.cjs")
                files[module] = (f"module.exports = require({json.dumps(loader)})"
                                 f".load({json.dumps(module)});\n")
            hider = _relative(spec, f"{OURS}/tests.cjs")
            files[spec] = f"require({json.dumps(hider)}).hide(__filename); " + text
        return files

    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        try:
            data = json.loads(report.get("keyed") or "{}")
        except ValueError:
            return []
        results = []
        for suite in data.get("testResults", []) if isinstance(data, dict) else []:
            for case in suite.get("assertionResults", []) if isinstance(suite, dict) else []:
                if not isinstance(case, dict) or case.get("status") in _NOT_RUN:
                    continue  # test.skip: not expected either (see _SKIPS)
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
