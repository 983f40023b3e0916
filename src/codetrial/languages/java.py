"""Java: javac compiles the solution, editor and test classes against JUnit 5 and AssertJ from
Debian's jars, the test sources are removed, then the JUnit console launcher runs the classes
and writes its XML report. Gradle is not used: it would download itself and its jars."""

from __future__ import annotations

import functools
import os
import re
import zipfile
from pathlib import Path
from typing import Any

from codetrial.core import TestResult, Verdict
from codetrial.languages.base import Language, Plan, Workspace, language
from codetrial.languages.decoys import JUNIT, disguise
from codetrial.languages.junit import parse_junit

JARS = Path("/usr/share/java")
CONSOLE = JARS / "junit-platform-console-standalone.jar"
LIBRARIES = ("assertj-core.jar", "byte-buddy.jar", "opentest4j.jar", "apiguardian-api.jar",
             "json-latest.jar")
JVM = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx768m", "-Xss4m",
       "-XX:CompressedClassSpaceSize=128m", "-XX:ReservedCodeCacheSize=64m"]
_DISABLED = re.compile(r"@(?:Disabled|Ignore)\b(?:\s*\([^)]*\))?")
_TEST = re.compile(r"@Test\b\s*(?:@\w+(?:\([^)]*\))?\s*)*(?:public\s+|protected\s+)?"
                   r"(?:final\s+)?void\s+(\w+)\s*\(")


# AssertJ 3.26 and its Byte Buddy (setup_languages.sh): the exercises use AssertJ 3.25's API
NEWER = Path(os.environ.get("CODETRIAL_JAVA_DIR", "/usr/local/share/codetrial/java"))


def classpath() -> str:
    """Debian's jars, each replaced by its newer copy in NEWER where set-up put one."""
    found = [NEWER / j if (NEWER / j).is_file() else JARS / j
             for j in ("junit-platform-console-standalone.jar", *LIBRARIES)]
    return ":".join(str(p) for p in found if p.is_file())


@language("java")
class Java(Language):
    name, display, fence = "java", "Java", "java"
    extensions = (".java",)
    packages = ("openjdk-17-jdk-headless junit5 libassertj-core-java "
                "(bash scripts/setup_languages.sh java)")
    build_files = ("build.gradle", "settings.gradle", "gradle/*", "gradlew*", "*.kts")
    test_patterns = ("src/test/*",)
    source_dirs = ("src/main/",)
    unskipped = "@Disabled (bare and with a reason) and @Ignore removed from every test file"

    def tools(self) -> dict[str, list[str]]:
        tools = {"javac": ["javac", "-version"], "java": ["java", "-version"]}
        if not CONSOLE.is_file():
            tools["junit5"] = []  # missing: version() names the package
        return tools

    def version(self) -> str:
        """The JDK's, and AssertJ's: which assertions a test can call depends on it."""
        return f"{super().version()}; AssertJ {_assertj_version()}"

    def plan(self, ws: Workspace) -> Plan:
        sources = sorted(p for p in ws.files if p.endswith(".java") and p.startswith("src/"))
        cp = classpath()
        build = ["javac", *(f"-J{o}" for o in JVM), "-encoding", "UTF-8", "-proc:none",
                 "-nowarn", "-d", ".cls", "-cp", cp, *sources]
        run = ["java", *JVM, "-jar", str(CONSOLE), "-cp", f".cls:{cp}", "--scan-classpath",
               ".cls", "--fail-if-no-tests", "--disable-banner", "--details=tree",
               "--reports-dir", ".out"]
        steps: list[dict[str, Any]] = [
            {"name": "dirs", "mkdir": [".cls", ".out"]},
            {"name": "build", "argv": build, "required": True},
            {"name": "hide", "remove": ["src/test"]},
            {"name": "test", "argv": run},
        ]
        masked = disguise({p: ws.files[p] for p in ws.files
                           if p.startswith("src/test/") and p.endswith(".java")}, JUNIT)
        return Plan(steps, collect=[".out/*.xml"], files=masked.files, names=masked.names,
                    decoys=masked.decoys)

    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        return self.read(report)[0]

    def read(self, report: dict[str, Any]) -> tuple[list[TestResult], list[str]]:
        """The XML report's results, which count only when the launcher lived to print its
        summary (a halt from the code, after writing a report, ends it before). The summary
        is printed after the report is written: the two must agree (a shutdown hook that
        rewrites the report cannot change what the console said)."""
        found = [t for text in (report.get("files") or {}).values()
                 for t in parse_junit(text or "", strip_parens=True)]
        summaries = _summaries(_test_output(report))
        if not summaries:
            return [TestResult(t.name, Verdict.FAILED, t.message or ENDED_EARLY)
                    for t in found], []
        if len(summaries) > 1:
            return found, [f"{len(summaries)} test summaries in the launcher's output"]
        said, wrote = summaries[0], _counts(found)
        if said[0] != wrote[0] or said[1] > wrote[1]:  # aborted tests are not "failed"
            return found, [f"the console counted {said[0]} successful and {said[1]} failed "
                           f"tests, the XML report {wrote[0]} and {wrote[1]}"]
        return found, []

    def expected(self, sources: dict[str, str]) -> list[str]:
        return [m for text in sources.values() for m in _TEST.findall(text)]

    def unskip(self, text: str) -> str:
        return _DISABLED.sub("", text)


@functools.cache
def _assertj_version() -> str:
    jar = next((p for p in (NEWER / "assertj-core.jar", JARS / "assertj-core.jar") if p.is_file()),
               None)
    if jar is None:
        return "missing"
    try:
        with zipfile.ZipFile(jar) as archive:
            pom = archive.read("META-INF/maven/org.assertj/assertj-core/pom.properties")
    except (OSError, KeyError, zipfile.BadZipFile):
        return "unknown"
    found = re.search(r"^version=(\S+)", pom.decode("utf-8", "replace"), re.M)
    return found.group(1) if found else "unknown"


ENDED_EARLY = "the JUnit launcher ended before it printed its summary"
_SUMMARY = re.compile(r"^\[\s*(\d+) tests successful\s*\]\s*\n\[\s*(\d+) tests failed\s*\]", re.M)


def _test_output(report: dict[str, Any]) -> str:
    step = next((s for s in report.get("steps", ()) if s.get("name") == "test"), {})
    return str(step.get("output", ""))


def _summaries(output: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in _SUMMARY.findall(output)]


def _counts(tests: list[TestResult]) -> tuple[int, int]:
    passed = sum(1 for t in tests if t.verdict == Verdict.PASSED)
    return passed, len(tests) - passed
