"""C++: g++ compiles the solution and the test file with the flags of the exercise's CMake
file (C++17, -Wall -Wextra -Wpedantic -Werror) and EXERCISM_RUN_ALL_TESTS, links Catch2's main
object (built once per run), the test sources are removed, then the test binary runs with
Catch2's JUnit reporter on stdout, which must be the only report there and agree with the exit
status (Catch2's count of failed assertions). CMake is not needed: its only job here was that
command line."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from codetrial.core import TestResult
from codetrial.languages import cache
from codetrial.languages.base import Language, Plan, Workspace, language
from codetrial.languages.decoys import CATCH2, disguise
from codetrial.languages.junit import failure_count, parse_junit, report_in_output

MAIN = "test/tests-main.cpp"
DEFINED = frozenset({"EXERCISM_RUN_ALL_TESTS"})  # what the build defines (see plan)
FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
_TEST_CASE = re.compile(r'\bTEST_CASE\s*\(\s*"((?:[^"\\]|\\.)*)"')


@language("cpp")
class Cpp(Language):
    name, display, fence = "cpp", "C++", "cpp"
    extensions = (".cpp", ".h", ".hpp", ".cc")
    packages = "g++ libboost-date-time-dev (apt-get install g++ libboost-date-time-dev)"
    build_files = ("CMakeLists.txt", "*.cmake", "Makefile")
    test_patterns = ("test/*", "*_test.cpp")
    unskipped = "-DEXERCISM_RUN_ALL_TESTS (every TEST_CASE is compiled in)"
    memory_mb = 16384  # each thread reserves an 8 MB stack: bank-account starts 1,000

    def tools(self) -> dict[str, list[str]]:
        return {"g++": ["g++", "--version"]}

    def plan(self, ws: Workspace) -> Plan:
        sources = [p for p in [*ws.solution, *ws.tests]
                   if p.endswith((".cpp", ".cc")) and p != MAIN]
        main = self._main_object(ws)
        libs = ["-pthread"]
        if "boost" in ws.files.get("CMakeLists.txt", "").lower():
            libs.append("-lboost_date_time")
        build = ["g++", *FLAGS, *(f"-D{d}" for d in sorted(DEFINED)), "-I.", *sources,
                 main or MAIN, "-o", ".bin/tests", *libs]
        steps: list[dict[str, Any]] = [
            {"name": "dirs", "mkdir": [".bin"]},
            {"name": "build", "argv": build, "required": True},
            {"name": "hide", "remove": list(ws.tests)},
            # the report on stdout, not in a file the code could rewrite after Catch2 wrote it
            {"name": "test", "argv": [".bin/tests", "-r", "junit"]},
        ]
        masked = disguise({p: ws.files[p] for p in ws.tests if not p.startswith("test/")},
                          CATCH2)
        return Plan(steps, files=masked.files, names=masked.names, decoys=masked.decoys)

    def parse(self, report: dict[str, Any]) -> list[TestResult]:
        return self.read(report)[0]

    def read(self, report: dict[str, Any]) -> tuple[list[TestResult], list[str]]:
        """Catch2 exits with its count of failed assertions (at most 255): a report that says
        otherwise was not the one Catch2 ended with."""
        step = _test_step(report)
        document, forged = report_in_output(step.get("output", ""))
        failures = failure_count(document) if document else None
        if failures is not None and step.get("exit") != min(failures, 255):
            forged.append(f"the report counts {failures} failures but the tests exited with "
                          f"status {step.get('exit')}")
        return parse_junit(document), forged

    def expected(self, sources: dict[str, str]) -> list[str]:
        return [m for path, text in sources.items() if not path.startswith("test/")
                for m in _TEST_CASE.findall(compiled_lines(text, DEFINED))]  # test/: Catch2

    def _main_object(self, ws: Workspace) -> str | None:
        """Catch2's main, the slow part of every build, compiled once per catch.hpp."""
        header, main = ws.pristine.get("test/catch.hpp"), ws.pristine.get(MAIN)
        if ws.cache is None or header is None or main is None:
            return None
        target = ws.cache / f"cpp-main-{cache.key(self.version(), header, main)}"
        cache.build_once(target, lambda tmp: _build_main(tmp, header, main))
        return str(target / "tests-main.o")


def _test_step(report: dict[str, Any]) -> dict[str, Any]:
    return next((s for s in report.get("steps", ()) if s.get("name") == "test"), {})


def _build_main(tmp: Path, header: str, main: str) -> None:
    src = tmp / "src"
    (src / "test").mkdir(parents=True)
    (src / "test" / "catch.hpp").write_text(header)
    (src / MAIN).write_text(main)
    cache.run(["g++", "-std=c++17", "-c", MAIN, "-o", str(tmp / "tests-main.o")], src)
    shutil.rmtree(src)


_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
_DEFINED = re.compile(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)")


def compiled_lines(text: str, defined: frozenset[str]) -> str:
    """The text less the blocks an `#if` on a macro the build does not define leaves out
    (parallel-letter-frequency's benchmark is behind EXERCISM_INCLUDE_BENCHMARK). A condition
    this cannot evaluate counts as true: its tests are expected, never silently dropped."""
    kept, stack = [], []  # stack: (this branch is on, some branch of this #if was on)
    for line in text.splitlines():
        match = _DIRECTIVE.match(line)
        outer = all(on for on, _ in stack)
        if not match:
            if outer:
                kept.append(line)
            continue
        word, rest = match.group(1), match.group(2).split("//")[0].strip()
        if word in ("if", "ifdef", "ifndef"):
            on = _condition(word, rest, defined)
            stack.append((on, on))
        elif word == "elif" and stack:
            taken = stack[-1][1]
            on = not taken and _condition("if", rest, defined)
            stack[-1] = (on, taken or on)
        elif word == "else" and stack:
            stack[-1] = (not stack[-1][1], True)
        elif word == "endif" and stack:
            stack.pop()
    return "\n".join(kept)


def _condition(word: str, rest: str, defined: frozenset[str]) -> bool:
    if word == "ifdef":
        return rest.split()[0] in defined if rest else True
    if word == "ifndef":
        return rest.split()[0] not in defined if rest else True
    expr = _DEFINED.sub(lambda m: str((m.group(1) or m.group(2)) in defined), rest)
    expr = re.sub(r"\b\d+\b", lambda m: str(int(m.group()) != 0), expr)  # `#if 0`
    expr = expr.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    if not re.fullmatch(r"[\s()]*(?:(?:True|False|and|or|not)[\s()]*)+", expr):
        return True
    try:
        return bool(eval(expr, {"__builtins__": {}}))  # only True/False/and/or/not remain
    except SyntaxError:
        return True
