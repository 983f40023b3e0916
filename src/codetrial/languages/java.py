"""Java: javac compiles the solution, editor and test classes against JUnit 5 and AssertJ from
Debian's jars, the test sources are removed, then the JUnit console launcher runs the classes
and writes its XML report. Gradle is not used: it would download itself and its jars."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from codetrial.core import TestResult
from codetrial.languages.base import Language, Plan, Workspace, language
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


def classpath() -> str:
    return ":".join(str(JARS / j) for j in ("junit-platform-console-standalone.jar", *LIBRARIES)
                    if (JARS / j).is_file())


@language("java")
class Java(Language):
    name, display, fence = "java", "Java", "java"
    extensions = (".java",)
    packages = ("openjdk-17-jdk-headless junit5 libassertj-core-java "
                "(bash scripts/setup_languages.sh java)")
    build_files = ("build.gradle", "settings.gradle", "gradle/*", "gradlew*", "*.kts")
    test_patterns = ("src/test/*",)
    unskipped = "@Disabled (bare and with a reason) and @Ignore removed from every test file"

    def tools(self) -> dict[str, list[str]]:
        tools = {"javac": ["javac", "-version"], "java": ["java", "-version"]}
        if not CONSOLE.is_file():
            tools["junit5"] = []  # missing: version() names the package
        return tools

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
        return Plan(steps, collect=[".out/*.xml"])

    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        return [t for text in (report.get("files") or {}).values()
                for t in parse_junit(text or "", strip_parens=True)]

    def expected(self, sources: dict[str, str]) -> list[str]:
        return [m for text in sources.values() for m in _TEST.findall(text)]

    def unskip(self, text: str) -> str:
        return _DISABLED.sub("", text)
