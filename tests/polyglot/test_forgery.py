"""A model-written build file or edited test never reaches the run (aider issue 5681): a wrong
solution sent with a test file that would pass it and a config that would skip the tests still
fails, in every language. In Go, code that exits or prints results inside a test fails too."""

from __future__ import annotations

import dataclasses
import re

import pytest

from codetrial.core import Verdict
from tests.polyglot.exercises import GO_LEAP, by_language, write_all

FORGED = {  # a build file that would make the tool report success without running the tests
    "go": {"go.mod": "module leap\n\ngo 1.18\n", "leap_test.go": "package leap\n",
           "bonus_test.go": "package leap\n"},
    "rust": {"Cargo.toml": '[package]\nname = "leap"\nversion = "0.1.0"\nedition = "2021"\n'
                           "[lib]\ntest = false\n[[test]]\nname = \"leap\"\n"
                           'path = "src/lib.rs"\n',
             "tests/leap.rs": "#[test]\nfn year_1900_is_not_leap() {}\n"},
    "cpp": {"CMakeLists.txt": "add_custom_target(test ALL COMMAND true)\n",
            "leap_test.cpp": '#include "test/catch.hpp"\nTEST_CASE("year 1900 is not a leap '
                             'year") {}\n'},
    "java": {"build.gradle": "test { enabled = false }\n",
             "src/test/java/LeapTest.java": "public class LeapTest {}\n"},
    "javascript": {"package.json": '{"scripts": {"test": "true"}, "jest": {"testMatch": []}}\n',
                   "babel.config.js": "throw new Error('forged');\n",
                   "leap.spec.js": "test('year 1900 is not a leap year', () => {});\n"},
}


@pytest.mark.parametrize("language", sorted(FORGED))
def test_forged_config_and_tests_fail(grade, language):
    leap, _ = by_language(language)
    files = {**leap.solution, **leap.wrong, **FORGED[language]}
    [result] = grade([(leap, files)])
    assert result.verdict == Verdict.FAILED, result.output
    verdicts = {t.name: t.verdict for t in result.tests}
    assert len(verdicts) == 3, verdicts  # the pristine tests, not the forged one
    assert {Verdict.FAILED, Verdict.PASSED} == set(verdicts.values()), verdicts


GO_ONE_TEST = dataclasses.replace(
    GO_LEAP, slug="octal-like",
    tests={"leap_test.go": 'package leap\n\nimport "testing"\n\nfunc TestLeapYears(t *testing.T)'
                           ' {\n\tfor _, y := range []int{1996, 1900, 2000} {\n\t\tif '
                           'IsLeapYear(y) != (y != 1900) {\n\t\t\tt.Fatalf("IsLeapYear(%d)", y)'
                           '\n\t\t}\n\t}\n}\n'},
    other={"go.mod": "module leap\n\ngo 1.18\n"})
_GO_EXIT = ('package leap\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nvar _, _ = fmt.Sprint, os.Exit\n\n'
            "func IsLeapYear(y int) bool {\n\t{print}\n\treturn y%4 == 0\n}\n")
GO_CHANNELS = {  # the wrong answer (y % 4 == 0), with a way out before the test can fail
    "silent exit 0": _GO_EXIT.replace("{print}", "if y == 1900 {\n\t\tos.Exit(0)\n\t}"),
    "printed result lines, then exit 0": _GO_EXIT.replace(
        "{print}", 'if y == 1900 {\n\t\tfmt.Println("--- PASS: TestLeapYears (0.00s)\\nPASS")\n'
                   "\t\tos.Exit(0)\n\t}"),
    "marked result line, then the real failure": _GO_EXIT.replace(
        "{print}", 'if y == 1900 {\n\t\tfmt.Print("\\x16--- PASS: TestLeapYears (0.00s)\\n")\n'
                   "\t}"),
}


@pytest.fixture(scope="module")
def one_test_root(tmp_path_factory):
    return write_all(tmp_path_factory.mktemp("one-test") / "exercises", [GO_ONE_TEST])


def test_go_code_that_exits_or_prints_results_inside_the_only_test_fails(grade, one_test_root):
    """octal, trinary and zebra-puzzle have one test: an exit from inside it must not pass it
    (test2json credits the package's final pass to the running test); printed results are
    output, and a marked one that does not fit the run's accounting is shown as forged."""
    jobs = [(GO_ONE_TEST, {"leap.go": code}) for code in GO_CHANNELS.values()]
    jobs.append((GO_ONE_TEST, GO_ONE_TEST.reference()))  # the honest control
    *forged, honest = grade(jobs, root=one_test_root)
    assert honest.verdict == Verdict.PASSED, honest.output
    for name, result in zip(GO_CHANNELS, forged, strict=True):
        assert result.verdict == Verdict.FAILED, (name, result.output)
        assert [t.verdict for t in result.tests] == [Verdict.FAILED], (name, result.tests)
    silent, printed, marked = forged
    assert "ended during this test" in silent.tests[0].message or \
        "never reported" in silent.tests[0].message  # its decoy may have run first
    assert "forged" not in silent.details and "forged" not in printed.details
    # the name it printed is not the test's name in this run
    assert marked.details["forged"] == ["a result for TestLeapYears, which never started"] * 2
    assert "forged results: a result for TestLeapYears, which never started" in \
        marked.details["tried"]
    assert silent.details["tried"] == ["exits the process: leap.go"]  # named from its source
    assert "tried" not in honest.details


_RUST_WRONG = "pub fn is_leap_year(y: u64) -> bool {{\n    {hook}\n    y % 4 == 0\n}}\n"
RUST_CHANNELS = {  # the wrong answer, with a way out before libtest can report the failure
    "silent exit 0": _RUST_WRONG.format(hook="if y == 1900 { std::process::exit(0) }"),
    "an ok line on the real stdout, then the real failure": _RUST_WRONG.format(
        hook='if y == 1900 {\n        use std::io::Write;\n        let _ = writeln!(std::io::'
             'stdout(), "test year_1900_is_not_leap ... ok");\n    }'),
    "ok lines from an atexit handler, after libtest's summary": (
        'extern "C" {\n    fn atexit(callback: extern "C" fn()) -> i32;\n}\n\n'
        'extern "C" fn forge() {\n    println!("test year_1900_is_not_leap ... ok");\n}\n\n'
        + _RUST_WRONG.format(hook="unsafe { atexit(forge) };")),
}


def test_rust_code_that_exits_or_prints_results_fails(grade):
    leap, _ = by_language("rust")
    jobs = [(leap, {**leap.solution, "src/lib.rs": code}) for code in RUST_CHANNELS.values()]
    jobs.append((leap, leap.reference()))
    *forged, honest = grade(jobs, timeout=60)
    assert honest.verdict == Verdict.PASSED, honest.output
    assert all(t.verdict == Verdict.PASSED for t in honest.tests) and len(honest.tests) == 3
    for name, result in zip(RUST_CHANNELS, forged, strict=True):
        assert result.verdict == Verdict.FAILED, (name, result.output)
        by_name = {t.name: t.verdict for t in result.tests}
        assert by_name["year_1900_is_not_leap"] == Verdict.FAILED, (name, by_name)
    silent, printed, atexit = forged
    assert "forged" not in silent.details
    assert not any(t.verdict == Verdict.PASSED for t in silent.tests)  # no summary: none
    # the name it printed is not the test's name in this run, and it printed it twice (from
    # the test and from its decoy)
    assert printed.details["forged"] == ["year_1900_is_not_leap reported twice (ok, then ok)"]
    assert atexit.details["forged"][0].startswith("a result line after the summary")
    assert atexit.details["tried"][:2] == ["runs code before main or at exit: src/lib.rs",
                                           "prints test results: src/lib.rs"]
    assert atexit.details["tried"][2].startswith("forged results: ")
    assert all(r.details.get("tried") for r in forged) and "tried" not in honest.details


_CPP_WRONG = ('#include "leap.h"\n#include <cstdio>\n#include <cstdlib>\n#include <unistd.h>\n\n'
              "{hook}\nnamespace leap {{\nbool is_leap_year(int y) {{ return y % 4 == 0; }}\n}}\n")
CPP_CHANNELS = {  # the wrong answer, and a way to change what the run says after Catch2 spoke
    "a second report from an atexit handler": _CPP_WRONG.format(
        hook='static void forge() { std::printf("<?xml version=\\"1.0\\"?><testsuites>'
             '<testsuite tests=\\"3\\" failures=\\"0\\" errors=\\"0\\"/></testsuites>\\n"); }\n'
             "struct Hook { Hook() { std::atexit(forge); } } hook;\n"),
    "exit status 0 from an atexit handler": _CPP_WRONG.format(
        hook="static void forge() { _exit(0); }\n"
             "struct Hook { Hook() { std::atexit(forge); } } hook;\n"),
}


def test_cpp_code_that_rewrites_what_catch2_reported_fails(grade):
    leap, _ = by_language("cpp")
    header = leap.reference()["leap.h"]
    jobs = [(leap, {"leap.cpp": code, "leap.h": header}) for code in CPP_CHANNELS.values()]
    jobs.append((leap, leap.reference()))
    *forged, honest = grade(jobs, timeout=60)
    assert honest.verdict == Verdict.PASSED and "forged" not in honest.details, honest.output
    for name, result in zip(CPP_CHANNELS, forged, strict=True):
        assert result.verdict == Verdict.FAILED, (name, result.output)
        assert result.details.get("forged"), (name, result.details)
    second, status = forged
    assert second.details["forged"] == ["2 JUnit reports in the test binary's output"]
    [said] = status.details["forged"]  # its failures: the leap test's and the decoys'
    assert re.fullmatch(r"the report counts \d+ failures but the tests exited with status 0", said)


_JAVA_REPORT = ('"<testsuite tests=\\"3\\" failures=\\"0\\" errors=\\"0\\"><testcase name=\\"'
                'year2000IsLeap()\\"/><testcase name=\\"year1900IsNotLeap()\\"/><testcase '
                'name=\\"year1996IsLeap()\\"/></testsuite>"')
_JAVA_WRITE = ('try { Files.writeString(Path.of(".out/TEST-junit-jupiter.xml"), '
               + _JAVA_REPORT + "); } catch (Exception e) { }")


def _java_wrong(hook: str) -> str:
    return ("import java.nio.file.*;\n\nclass Leap {\n    " + hook + "\n"
            "    boolean isLeapYear(int y) {\n        return y % 4 == 0;\n    }\n}\n")


JAVA_CHANNELS = {  # the wrong answer, with the report written by the code
    "a report from a static initializer, then halt(0)": _java_wrong(
        "static { " + _JAVA_WRITE + " Runtime.getRuntime().halt(0); }"),
    "the real report rewritten by a shutdown hook": _java_wrong(
        "static { Runtime.getRuntime().addShutdownHook(new Thread(() -> { " + _JAVA_WRITE
        + " })); }"),
}


def test_java_code_that_writes_the_report_itself_fails(grade):
    leap, _ = by_language("java")
    path = "src/main/java/Leap.java"
    jobs = [(leap, {path: code}) for code in JAVA_CHANNELS.values()]
    jobs.append((leap, leap.reference()))
    *forged, honest = grade(jobs, timeout=60)
    assert honest.verdict == Verdict.PASSED and "forged" not in honest.details, honest.output
    for name, result in zip(JAVA_CHANNELS, forged, strict=True):
        assert result.verdict == Verdict.FAILED, (name, result.output)
        assert not any(t.verdict == Verdict.PASSED and "1900" in t.name for t in result.tests)
    halted, hooked = forged
    assert "forged" not in halted.details  # no summary: nothing counts, nothing to compare
    [said] = hooked.details["forged"]  # failed: the leap test and the three decoys
    assert said == "the console counted 2 successful and 4 failed tests, the XML report 3 and 0"


GO_LEARNS_NAMES = '''package leap

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// A consistent forgery: the test running now (from the stack), the tests after it (from the
// binary's own -test.list), each reported once as passed, the final PASS, exit 0.
func IsLeapYear(y int) bool {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	current := ""
	for frame, more := frames.Next(); more; frame, more = frames.Next() {
		if i := strings.Index(frame.Function, ".Test"); i >= 0 {
			current = strings.SplitN(frame.Function[i+1:], ".", 2)[0]
		}
	}
	out, _ := exec.Command(os.Args[0], "-test.list", ".*").Output()
	seen := false
	for _, name := range strings.Fields(string(out)) {
		if name == current {
			seen = true
			fmt.Printf("\\x16--- PASS: %s (0.00s)\\n", name)
		} else if seen {
			fmt.Printf("\\x16=== RUN   %s\\n\\x16--- PASS: %s (0.00s)\\n", name, name)
		}
	}
	fmt.Print("\\x16PASS\\n")
	os.Exit(0)
	return false
}
'''


def test_go_results_forged_with_names_learned_at_run_time_fail_on_the_decoys(grade):
    leap, _ = by_language("go")
    [result] = grade([(leap, {**leap.solution, "leap.go": GO_LEARNS_NAMES})])
    assert result.verdict == Verdict.FAILED, result.output
    assert not any(t.verdict == Verdict.PASSED for t in result.tests), result.tests
    assert any(f.startswith("a decoy of ") for f in result.details["forged"]), result.details
    assert "TestLeapYears" in result.output  # the model reads its tests' own names,
    assert not re.search(r"Test[0-9A-F]{12}", result.output)  # never the run's


CPP_LEARNS_NAMES = r'''#include "leap.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

// A consistent forgery, before main: the binary lists its own test cases (Catch2's
// --list-test-names-only), they are reported passed in one JUnit report on stdout, exit 0.
namespace {
struct Forge {
    Forge() {
        if (std::getenv("FORGING")) return;
        setenv("FORGING", "1", 1);
        char self[400] = {0}, command[512];
        if (readlink("/proc/self/exe", self, sizeof self - 1) < 0) return;
        std::snprintf(command, sizeof command, "%s --list-test-names-only", self);
        FILE* listing = popen(command, "r");
        if (!listing) return;
        char line[512];
        std::printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite "
                    "name=\"tests\" errors=\"0\" failures=\"0\" tests=\"3\">\n");
        while (std::fgets(line, sizeof line, listing)) {
            line[std::strcspn(line, "\r\n")] = 0;
            if (*line) std::printf("<testcase classname=\"tests.global\" name=\"%s\"/>\n", line);
        }
        pclose(listing);
        std::printf("</testsuite>\n</testsuites>\n");
        std::fflush(stdout);
        _exit(0);
    }
} forge;
}

namespace leap {
bool is_leap_year(int y) { return y % 4 == 0; }
}
'''


def test_cpp_results_forged_from_the_binarys_own_listing_fail_on_the_decoys(grade):
    leap, _ = by_language("cpp")
    [result] = grade([(leap, {"leap.cpp": CPP_LEARNS_NAMES,
                              "leap.h": leap.reference()["leap.h"]})], timeout=60)
    assert result.verdict == Verdict.FAILED, result.output
    assert not any(t.verdict == Verdict.PASSED for t in result.tests), result.tests
    assert any(f.startswith("a decoy of ") for f in result.details["forged"]), result.details


JAVA_LEARNS_NAMES = """import java.lang.reflect.Method;
import java.nio.file.*;

// A consistent forgery: the test class from the stack, its @Test methods by reflection, a
// report that passes them all and the launcher's summary for it, then halt(0).
class Leap {
    boolean isLeapYear(int y) {
        try {
            for (StackTraceElement frame : new Throwable().getStackTrace()) {
                Class<?> type = Class.forName(frame.getClassName());
                if (!type.getName().endsWith("Test")) continue;
                StringBuilder xml = new StringBuilder("<testsuite>");
                int count = 0;
                for (Method m : type.getDeclaredMethods()) {
                    if (m.isAnnotationPresent(org.junit.jupiter.api.Test.class)) {
                        xml.append("<testcase name=\\"" + m.getName() + "()\\"/>");
                        count++;
                    }
                }
                Files.writeString(Path.of(".out/TEST-junit-jupiter.xml"), xml + "</testsuite>");
                System.out.println("[ " + count + " tests successful ]\\n[ 0 tests failed ]");
                System.out.flush();
                Runtime.getRuntime().halt(0);
            }
        } catch (Exception e) {
        }
        return y % 4 == 0;
    }
}
"""


def test_java_results_forged_by_reflection_fail_on_the_decoys(grade):
    leap, _ = by_language("java")
    [result] = grade([(leap, {"src/main/java/Leap.java": JAVA_LEARNS_NAMES})], timeout=60)
    assert result.verdict == Verdict.FAILED, result.output
    assert not any(t.verdict == Verdict.PASSED for t in result.tests), result.tests
    assert any(f.startswith("a decoy of ") for f in result.details["forged"]), result.details


_JS_WRONG = "export const isLeap = (y) => {{\n{forge}\n  return y % 4 === 0;\n}};\n"
_JS_FORGED_REPORT = (  # jest's --json shape and our reporter's: every test passed
    "const passed = (title) => ({ title, status: 'passed', failureMessages: [] });\n"
    "const report = JSON.stringify({ numFailedTests: 0, success: true, testResults: [{\n"
    "  assertionResults: ['year 2000 is a leap year', 'year 1900 is not a leap year',\n"
    "    'year 1996 is a leap year'].map(passed) }] });\n")
JS_CHANNELS = {  # the wrong answer (y % 4 === 0), with a way to make jest's verdict a pass
    "replaces expect": _JS_WRONG.format(forge=(
        "  const pass = () => ({ toBe() {}, toEqual() {} });\n"
        "  globalThis.expect = pass;\n  global.expect = pass;")),
    "overrides the matchers with expect.extend": _JS_WRONG.format(forge=(
        "  try { expect.extend({ toBe: () => ({ pass: true, message: () => '' }) }); }"
        " catch (e) {}")),
    "writes a report file, then exits": "import fs from 'fs';\n" + _JS_FORGED_REPORT
    + _JS_WRONG.format(forge=(
        "  if (y === 1900) {\n    for (const f of ['.out/jest.json', '../.out/jest.json']) {\n"
        "      try { fs.writeFileSync(f, report); } catch (e) {}\n    }\n"
        "    console.log(report);\n    process.exit(0);\n  }")),
    "flips jest's report from an exit listener on the real process": (
        "const realProcess = require('vm').runInThisContext('process');\n"
        "const fs = require('fs');\n" + _JS_FORGED_REPORT
        + "realProcess.on('exit', () => {\n"
        "  try { fs.writeFileSync('../.out/jest.json', report); } catch (e) {}\n"
        "  console.log(report);\n});\n" + _JS_WRONG.format(forge="")),
    "learns the test names from the spec and prints passes": (
        "import fs from 'fs';\nimport path from 'path';\n" + _JS_WRONG.format(forge=(
            "  if (y === 1900) {\n    for (const dir of ['.', '..', process.cwd() + '/..']) {\n"
            "      for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.spec.js'))) {\n"
            "        const text = fs.readFileSync(path.join(dir, f), 'utf8');\n"
            "        for (const [, name] of text.matchAll(/test\\('([^']+)'/g)) {\n"
            "          console.log(`  \\u2713 ${name}`);\n        }\n      }\n    }\n"
            "    process.exit(0);\n  }"))),
    "reads jest's key from its parent's environment": (
        "import fs from 'fs';\n" + _JS_FORGED_REPORT + _JS_WRONG.format(forge=(
            "  if (y === 1900) {\n    for (const pid of [process.ppid, 1, 2, 3]) {\n"
            "      try {\n        const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');\n"
            "        const key = /CODETRIAL_JEST_KEY=([0-9a-f]+)/.exec(env);\n"
            "        if (key) console.log(`\\n${key[1]} ${report}`);\n"
            "      } catch (e) {}\n    }\n  }"))),
    "rewrites what jest's process reads later (its babel config, a module, node_modules)": (
        "import fs from 'fs';\n" + _JS_WRONG.format(forge=(
            "  const hook = 'global.expect = () => ({ toBe() {} });\\n';\n"
            "  for (const f of ['../babel.config.js', '../late.js', '/tmp/late.js']) {\n"
            "    try { fs.writeFileSync(f, hook + 'module.exports = {};\\n'); } catch (e) {}\n"
            "  }\n  try { fs.unlinkSync('../node_modules'); } catch (e) {}"))),
    "kills jest's process once the passing tests are in": _JS_WRONG.format(forge=(
        "  if (y === 1900) process.kill(process.ppid, 'SIGKILL');")),
}


def test_js_code_cannot_reach_jest_or_its_report(grade):
    """The model's module runs in a node process of its own: nothing it does there changes
    what jest reports, and what it did is named from its source. Honest code, interleaved,
    passes."""
    leap, _ = by_language("javascript")
    jobs = []
    for code in JS_CHANNELS.values():
        jobs += [(leap, {"leap.js": code}), (leap, leap.reference())]
    results = grade(jobs, timeout=60)
    for name, forged, honest in zip(JS_CHANNELS, results[::2], results[1::2], strict=True):
        assert honest.verdict == Verdict.PASSED, (name, honest.output)
        assert len(honest.tests) == 3 and "tried" not in honest.details, name
        assert forged.verdict == Verdict.FAILED, (name, forged.output)
        by_name = {t.name: t.verdict for t in forged.tests}
        assert by_name["year 1900 is not a leap year"] != Verdict.PASSED, (name, by_name)
        assert forged.details.get("tried"), name


def test_js_errors_classes_and_promises_cross_between_the_processes(grade, tmp_path):
    """What the tests see of the model's objects behaves as it would in their own process."""
    _, shapes = by_language("javascript")
    spec = """import { area, Rect, BadShape, later, callsBack } from './shapes';

test('instances, classes and errors', () => {
  const r = new Rect(2, 3);
  expect(r).toBeInstanceOf(Rect);
  expect(r.area()).toBe(6);
  expect(area({ w: 2, h: 3 })).toEqual(6);
  expect(() => area(null)).toThrow(TypeError);
  expect(() => area({ w: -1, h: 1 })).toThrow(BadShape);
  expect(() => area({ w: -1, h: 1 })).toThrow('negative');
  expect(new Map([[1, [2n, -0, NaN, undefined]]])).toEqual(callsBack((x) => x));
});

test('promises and callbacks fired later', async () => {
  await expect(later(5)).resolves.toBe(5);
  await expect(later(-1)).rejects.toThrow(RangeError);
  const seen = await new Promise((resolve) => callsBack(resolve, 10));
  expect(seen).toEqual(new Map([[1, [2n, -0, NaN, undefined]]]));
});
"""
    code = """export class BadShape extends Error {}
export class Rect {
  constructor(w, h) { this.w = w; this.h = h; }
  area() { return area(this); }
}
export const area = (r) => {
  if (r === null) throw new TypeError('no shape');
  if (r.w < 0) throw new BadShape('negative width');
  return r.w * r.h;
};
export const later = (v) => new Promise((ok, no) => setTimeout(
  () => (v < 0 ? no(new RangeError('negative')) : ok(v)), 5));
export const callsBack = (fn, ms) => {
  const value = new Map([[1, [2n, -0, NaN, undefined]]]);
  if (ms === undefined) return fn(value);
  setTimeout(() => fn(value), ms);
  return undefined;
};
"""
    spec_path = next(iter(shapes.tests))
    exercise = dataclasses.replace(shapes, tests={spec_path: spec})
    root = write_all(tmp_path / "polyglot", [exercise])
    [result] = grade([(exercise, {"shapes.js": code})], timeout=60, root=root)
    assert result.verdict == Verdict.PASSED, result.output
    assert [t.verdict for t in result.tests] == [Verdict.PASSED] * 2, result.tests


def test_every_forgery_of_the_corpus_is_named_from_its_source_and_no_reference_is():
    from codetrial.languages.scan import tried

    corpus = [*(("go", c) for c in GO_CHANNELS.values()), ("go", GO_LEARNS_NAMES),
              *(("rust", c) for c in RUST_CHANNELS.values()),
              *(("cpp", c) for c in CPP_CHANNELS.values()), ("cpp", CPP_LEARNS_NAMES),
              *(("java", c) for c in JAVA_CHANNELS.values()), ("java", JAVA_LEARNS_NAMES),
              *(("javascript", c) for c in JS_CHANNELS.values())]
    for language, code in corpus:
        assert tried(language, {"solution": code}), (language, code[:200])
    from tests.polyglot.exercises import ALL

    for exercise in ALL:
        assert tried(exercise.language, exercise.reference()) == [], exercise.task_id


def test_js_subject_writes_only_its_own_directory_and_cannot_read_jest(grade):
    """Landlock keeps the subject from changing what jest's process reads later; jest's process
    is undumpable, so its environment (and the report's key) is out of reach too."""
    leap, _ = by_language("javascript")
    probe = """import fs from 'fs';
const seen = [];
for (const f of ['../babel.config.js', '../late.js', 'mine.txt']) {
  try { fs.writeFileSync(f, 'x'); seen.push(`${f}: written`); }
  catch (e) { seen.push(`${f}: ${e.code}`); }
}
try { fs.readFileSync(`/proc/${process.ppid}/environ`); seen.push('environ: read'); }
catch (e) { seen.push(`environ: ${e.code}`); }
console.log(`PROBE ${seen.join(', ')}`);
export const isLeap = (y) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
"""
    [result] = grade([(leap, {"leap.js": probe})], timeout=60)
    assert result.verdict == Verdict.PASSED, result.output
    line = next(x for x in result.output.splitlines() if "PROBE " in x)
    assert "../babel.config.js: EACCES" in line and "../late.js: EACCES" in line, line
    assert "mine.txt: written" in line and "environ: EACCES" in line, line
