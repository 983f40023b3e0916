"""C++: g++ compiles the solution and the test file with the flags of the exercise's CMake
file (C++17, -Wall -Wextra -Wpedantic -Werror) and EXERCISM_RUN_ALL_TESTS, links Catch2's main
object (built once per run), the test sources are removed, then the test binary runs with
Catch2's JUnit reporter. CMake is not needed: its only job here was that command line."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from codetrial.core import TestResult
from codetrial.languages import cache
from codetrial.languages.base import Language, Plan, Workspace, language
from codetrial.languages.junit import parse_junit

MAIN = "test/tests-main.cpp"
FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
REPORT = ".out/junit.xml"
_TEST_CASE = re.compile(r'\bTEST_CASE\s*\(\s*"((?:[^"\\]|\\.)*)"')


@language("cpp")
class Cpp(Language):
    name, display, fence = "cpp", "C++", "cpp"
    extensions = (".cpp", ".h", ".hpp", ".cc")
    packages = "g++ libboost-date-time-dev (apt-get install g++ libboost-date-time-dev)"
    build_files = ("CMakeLists.txt", "*.cmake", "Makefile")
    test_patterns = ("test/*", "*_test.cpp")
    unskipped = "-DEXERCISM_RUN_ALL_TESTS (every TEST_CASE is compiled in)"

    def tools(self) -> dict[str, list[str]]:
        return {"g++": ["g++", "--version"]}

    def plan(self, ws: Workspace) -> Plan:
        sources = [p for p in [*ws.solution, *ws.tests]
                   if p.endswith((".cpp", ".cc")) and p != MAIN]
        main = self._main_object(ws)
        libs = ["-pthread"]
        if "boost" in ws.files.get("CMakeLists.txt", "").lower():
            libs.append("-lboost_date_time")
        build = ["g++", *FLAGS, "-DEXERCISM_RUN_ALL_TESTS", "-I.", *sources,
                 main or MAIN, "-o", ".bin/tests", *libs]
        steps: list[dict[str, Any]] = [
            {"name": "dirs", "mkdir": [".bin", ".out"]},
            {"name": "build", "argv": build, "required": True},
            {"name": "hide", "remove": list(ws.tests)},
            {"name": "test", "argv": [".bin/tests", "-r", "junit", "-o", REPORT]},
        ]
        return Plan(steps, collect=[REPORT])

    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        return parse_junit((report.get("files") or {}).get(REPORT) or "")

    def expected(self, sources: dict[str, str]) -> list[str]:
        return [m for path, text in sources.items() if not path.startswith("test/")
                for m in _TEST_CASE.findall(text)]  # test/ holds Catch2 itself

    def _main_object(self, ws: Workspace) -> str | None:
        """Catch2's main, the slow part of every build, compiled once per catch.hpp."""
        header, main = ws.pristine.get("test/catch.hpp"), ws.pristine.get(MAIN)
        if ws.cache is None or header is None or main is None:
            return None
        target = ws.cache / f"cpp-main-{cache.key(self.version(), header, main)}"
        cache.build_once(target, lambda tmp: _build_main(tmp, header, main))
        return str(target / "tests-main.o")


def _build_main(tmp: Path, header: str, main: str) -> None:
    src = tmp / "src"
    (src / "test").mkdir(parents=True)
    (src / "test" / "catch.hpp").write_text(header)
    (src / MAIN).write_text(main)
    cache.run(["g++", "-std=c++17", "-c", MAIN, "-o", str(tmp / "tests-main.o")], src)
    shutil.rmtree(src)
