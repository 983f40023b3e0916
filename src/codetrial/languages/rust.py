"""Rust: `cargo test --no-run` builds every test binary offline against Debian's crates
(/usr/share/cargo/registry as the crates.io source), the test sources are removed, then each
binary runs with `--include-ignored`; results are libtest's `test NAME ... ok|FAILED` lines."""

from __future__ import annotations

import re
from typing import Any

from codetrial.core import TestResult, Verdict
from codetrial.languages.base import Language, Plan, Workspace, language

CARGO_CONFIG = """[net]
offline = true

[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "/usr/share/cargo/registry"
"""
_RESULT = re.compile(r"^test (\S+) \.\.\. (ok|FAILED|ignored)\b", re.M)
_FAILURE = re.compile(r"^---- (\S+) stdout ----\n(.*?)(?=^---- |^failures:$|\Z)", re.M | re.S)
_TEST_FN = re.compile(r"#\[test\]\s*(?:#\[[^\]]*\]\s*)*(?:pub\s+)?fn\s+(\w+)")
# a test binary: deps/<crate>-<16 hex digits>, no extension
TEST_BINARIES = ".target/debug/deps/*-" + "[0-9a-f]" * 16


def cargo_env() -> dict[str, str]:
    return {"CARGO_HOME": "{wd}/.cargo-home", "CARGO_TARGET_DIR": "{wd}/.target",
            "CARGO_TERM_COLOR": "never", "CARGO_BUILD_JOBS": "2", "CARGO_INCREMENTAL": "0"}


@language("rust")
class Rust(Language):
    name, display, fence = "rust", "Rust", "rust"
    extensions = (".rs",)
    packages = "rustc-web cargo-web (apt-get install rustc-web cargo-web)"
    build_files = ("Cargo.toml", "Cargo.lock", "build.rs", ".cargo/*")
    test_patterns = ("tests/*.rs",)
    unskipped = "--include-ignored (every #[ignore] test runs)"

    def tools(self) -> dict[str, list[str]]:
        return {"rustc": ["rustc", "--version"], "cargo": ["cargo", "--version"]}

    def plan(self, ws: Workspace) -> Plan:
        env = cargo_env()
        steps: list[dict[str, Any]] = [
            {"name": "build", "argv": ["cargo", "test", "--no-run", "--offline"], "env": env,
             "required": True},
            {"name": "hide", "remove": list(ws.tests)},
            {"name": "test", "argv": ["{}", "--include-ignored", "--test-threads", "2"],
             "each": TEST_BINARIES, "env": {"RUST_BACKTRACE": "0"}},
        ]
        return Plan(steps, files={".cargo-home/config.toml": CARGO_CONFIG})

    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        results: dict[str, TestResult] = {}
        for step in report.get("steps", ()):
            if not str(step.get("name", "")).startswith("test:"):
                continue
            text = step.get("output", "")
            messages = dict(_FAILURE.findall(text))
            for name, word in _RESULT.findall(text):
                verdict = Verdict.PASSED if word == "ok" else Verdict.FAILED
                results[name] = TestResult(name, verdict, messages.get(name, "").strip()[-4000:])
        return list(results.values())

    def expected(self, sources: dict[str, str]) -> list[str]:
        return [m for text in sources.values() for m in _TEST_FN.findall(text)]
