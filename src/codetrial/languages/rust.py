"""Rust: `cargo test --no-run` builds every test binary offline against Debian's crates
(/usr/share/cargo/registry as the crates.io source), the test sources are removed, then each
binary runs with `--include-ignored`; results are libtest's `test NAME ... ok|FAILED` lines,
read strictly (rust_results.py)."""

from __future__ import annotations

import fnmatch
import re
import shutil
from pathlib import Path
from typing import Any

from codetrial.core import TestResult
from codetrial.languages import cache
from codetrial.languages.base import Language, Plan, Workspace, language
from codetrial.languages.decoys import RUST, disguise
from codetrial.languages.rust_results import read_libtest

CARGO_CONFIG = """[net]
offline = true

[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "/usr/share/cargo/registry"
"""
_TEST_FN = re.compile(r"#\[test\]\s*(?:#\[[^\]]*\]\s*)*(?:pub\s+)?fn\s+(\w+)")
# a test binary: deps/<crate>-<16 hex digits>, no extension
TEST_BINARIES = ".target/debug/deps/*-" + "[0-9a-f]" * 16


def _test_steps(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in report.get("steps", ()) if str(s.get("name", "")).startswith("test:")]


def is_test_target(path: str) -> bool:
    """A source cargo builds into a test binary (tests/x.rs, tests/x/main.rs), hidden before
    the binaries run; other files under tests/ are data the tests read at run time (macros'
    tests/invalid/*.rs must fail to compile), as they are under `cargo test`."""
    parts = path.split("/")
    return parts[0] == "tests" and (len(parts) == 2 or parts[2:] == ["main.rs"])


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
    source_dirs = ("src/",)
    unskipped = ("--include-ignored (every #[ignore] test runs) and --all-features (tests behind "
                 "a feature are compiled)")

    def shell_env(self) -> dict[str, str]:
        return {**cargo_env(), "CARGO_NET_OFFLINE": "true"}

    def tools(self) -> dict[str, list[str]]:
        return {"rustc": ["rustc", "--version"], "cargo": ["cargo", "--version"]}

    def plan(self, ws: Workspace) -> Plan:
        env = cargo_env()
        steps: list[dict[str, Any]] = []
        warm = self._warm_dir(ws)
        if warm is not None:
            steps.append({"name": "cache", "copy": [str(warm / "target"), ".target"]})
        steps += [
            {"name": "build", "argv": ["cargo", "test", "--no-run", "--offline",
                                       "--all-features"], "env": env, "required": True},
            {"name": "hide", "remove": [p for p in ws.tests if is_test_target(p)]},
            # cargo's settings too: macros' tests run `cargo build` on tests/invalid/
            {"name": "test", "argv": ["{}", "--include-ignored", "--test-threads", "2"],
             "each": TEST_BINARIES, "env": {**env, "RUST_BACKTRACE": "0"}},
        ]
        masked = disguise({p: ws.files[p] for p in ws.tests if is_test_target(p)}, RUST)
        return Plan(steps, files={".cargo-home/config.toml": CARGO_CONFIG, **masked.files},
                    names=masked.names, decoys=masked.decoys)

    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        return self.read(report)[0]

    def read(self, report: dict[str, Any]) -> tuple[list[TestResult], list[str]]:
        results: dict[str, TestResult] = {}
        forged: list[str] = []
        for step in _test_steps(report):
            tests, misfits = read_libtest(step.get("output", ""), step.get("exit"))
            results.update((t.name, t) for t in tests)  # per binary; a later binary's wins
            forged += misfits
        return list(results.values()), forged

    def expected(self, sources: dict[str, str]) -> list[str]:
        return [m for text in sources.values() for m in _TEST_FN.findall(text)]

    def _warm_dir(self, ws: Workspace) -> Path | None:
        """The dependencies the exercise's own Cargo.toml lists (time, anyhow, rand), built once."""
        manifest = ws.pristine.get("Cargo.toml", "")
        if ws.cache is None or "[dependencies]" not in manifest:
            return None
        target = ws.cache / f"rust-deps-{cache.key(self.version(), manifest)}"
        return cache.build_once(target, lambda tmp: _warm(tmp, manifest))


def _warm(tmp: Path, manifest: str) -> None:
    src = tmp / "src"
    (src / "src").mkdir(parents=True)
    (src / "Cargo.toml").write_text(manifest)
    (src / "src" / "lib.rs").write_text("")
    (src / ".cargo-home").mkdir()
    (src / ".cargo-home" / "config.toml").write_text(CARGO_CONFIG)
    env = {**cargo_env(), "CARGO_HOME": str(src / ".cargo-home"),
           "CARGO_TARGET_DIR": str(tmp / "target")}
    cache.run(["cargo", "test", "--no-run", "--offline", "--all-features"], src, env)
    shutil.rmtree(src)
    for path in (tmp / "target" / "debug" / "deps").iterdir():  # the empty crate's own tests
        if path.is_file() and fnmatch.fnmatch(path.name, TEST_BINARIES.rsplit("/", 1)[1]):
            path.unlink()
