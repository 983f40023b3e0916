"""Small exercises in the polyglot layout, written by the tests: two per language, one with a
test its track skips by default, one whose solution is two files (and, where the track has
them, an editor file). Each also has a wrong and a never-terminating solution."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Exercise:
    language: str
    slug: str
    solution: dict[str, str]  # stubs
    example: dict[str, str]  # .meta path -> reference, in solution order
    tests: dict[str, str]
    other: dict[str, str] = field(default_factory=dict)  # build files, unlisted tests
    editor: dict[str, str] = field(default_factory=dict)
    wrong: dict[str, str] = field(default_factory=dict)  # solution path -> a wrong version
    hang: dict[str, str] = field(default_factory=dict)  # solution path -> never terminates

    @property
    def task_id(self) -> str:
        return self.slug if self.language == "python" else f"{self.language}/{self.slug}"

    def reference(self) -> dict[str, str]:
        return dict(zip(self.solution, self.example.values(), strict=True))

    def write(self, root: Path) -> Path:
        if self.language == "cpp":
            self.other = {**cpp_support(), **self.other}
        folder = root / self.language / "exercises" / "practice" / self.slug
        files = {**self.solution, **self.tests, **self.other, **self.editor,
                 **{f".meta/{k}": v for k, v in self.example.items()}}
        for rel, text in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text)
        config = {"files": {"solution": list(self.solution), "test": list(self.tests),
                            "example": [f".meta/{k}" for k in self.example]}}
        if self.editor:
            config["files"]["editor"] = list(self.editor)
        (folder / ".meta" / "config.json").write_text(json.dumps(config, indent=2))
        (folder / ".docs").mkdir(exist_ok=True)
        (folder / ".docs" / "instructions.md").write_text(f"# {self.slug}\n\nMake the tests "
                                                          "pass.\n")
        return folder


# ---------------------------------------------------------------- Go

GO_LEAP_TEST = """package leap

import "testing"

var cases = []struct {
	year int
	want bool
}{{1996, true}, {1900, false}, {2000, true}, {2015, false}}

func TestLeapYears(t *testing.T) {
	for _, c := range cases {
		if got := IsLeapYear(c.year); got != c.want {
			t.Errorf("IsLeapYear(%d) = %v, want %v", c.year, got, c.want)
		}
	}
}

func TestCentury(t *testing.T) {
	if IsLeapYear(2100) {
		t.Fatal("2100 is not a leap year")
	}
}
"""
GO_LEAP_BONUS = """//go:build bonus

package leap

import "testing"

func TestBonusFarFuture(t *testing.T) {
	if !IsLeapYear(2400) {
		t.Fatal("2400 is a leap year")
	}
}
"""
GO_LEAP = Exercise(
    "go", "leap",
    solution={"leap.go": 'package leap\n\nfunc IsLeapYear(year int) bool {\n\tpanic("todo")\n}\n'},
    example={"example.go": "package leap\n\nfunc IsLeapYear(y int) bool {\n"
                           "\treturn y%4 == 0 && (y%100 != 0 || y%400 == 0)\n}\n"},
    tests={"leap_test.go": GO_LEAP_TEST},
    other={"go.mod": "module leap\n\ngo 1.18\n", "bonus_test.go": GO_LEAP_BONUS},
    wrong={"leap.go": "package leap\n\nfunc IsLeapYear(y int) bool {\n\treturn y%4 == 0\n}\n"},
    hang={"leap.go": "package leap\n\nfunc IsLeapYear(y int) bool {\n\tfor {\n\t}\n}\n"},
)
GO_SHAPES_TEST = """package shapes

import "testing"

func TestArea(t *testing.T) {
	if got := Area(Rect{2, 3}); got != 6 {
		t.Fatalf("Area = %d, want 6", got)
	}
}

func TestDouble(t *testing.T) {
	if got := Double(Rect{1, 2}); got != (Rect{2, 4}) {
		t.Fatalf("Double = %v", got)
	}
}
"""
GO_SHAPES = Exercise(
    "go", "shapes",
    solution={"area.go": "package shapes\n\nfunc Area(r Rect) int {\n\treturn 0\n}\n",
              "double.go": "package shapes\n\nfunc Double(r Rect) Rect {\n\treturn r\n}\n"},
    example={"area.go": "package shapes\n\nfunc Area(r Rect) int {\n\treturn r.W * r.H\n}\n",
             "double.go": "package shapes\n\nfunc Double(r Rect) Rect {\n"
                          "\treturn Rect{scale(r.W), scale(r.H)}\n}\n\n"
                          "func scale(n int) int { return 2 * n }\n"},
    tests={"shapes_test.go": GO_SHAPES_TEST},
    other={"go.mod": "module shapes\n\ngo 1.18\n"},
    editor={"defs.go": "package shapes\n\n// Rect is given: do not change it.\ntype Rect struct {"
                       "\n\tW, H int\n}\n"},
    wrong={"area.go": "package shapes\n\nfunc Area(r Rect) int {\n\treturn r.W + r.H\n}\n"},
    hang={"area.go": "package shapes\n\nimport \"time\"\n\nfunc Area(r Rect) int {\n"
                     "\ttime.Sleep(time.Hour)\n\treturn 0\n}\n"},
)

# ---------------------------------------------------------------- Rust

RUST_LEAP_TEST = """use leap::*;

#[test]
fn year_2000_is_leap() {
    assert!(is_leap_year(2000));
}

#[test]
#[ignore]
fn year_1900_is_not_leap() {
    assert!(!is_leap_year(1900));
}

#[test]
#[ignore]
fn year_1996_is_leap() {
    assert!(is_leap_year(1996));
}
"""
RUST_LEAP = Exercise(
    "rust", "leap",
    solution={"src/lib.rs": "pub fn is_leap_year(year: u64) -> bool {\n    todo!(\"{year}\")\n}\n",
              "Cargo.toml": '[package]\nname = "leap"\nversion = "0.1.0"\nedition = "2021"\n'},
    example={"example.rs": "pub fn is_leap_year(y: u64) -> bool {\n"
                           "    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)\n}\n",
             "Cargo-example.toml": '[package]\nname = "leap"\nversion = "0.1.0"\n'
                                   'edition = "2021"\n'},
    tests={"tests/leap.rs": RUST_LEAP_TEST},
    wrong={"src/lib.rs": "pub fn is_leap_year(y: u64) -> bool {\n    y % 4 == 0\n}\n"},
    hang={"src/lib.rs": "pub fn is_leap_year(_y: u64) -> bool {\n    loop {}\n}\n"},
)
RUST_SHAPES_TEST = """use shapes::*;

#[test]
fn area_of_a_rectangle() {
    assert_eq!(area(&Rect { w: 2, h: 3 }), 6);
}

#[test]
#[ignore]
fn area_of_a_square() {
    assert_eq!(area(&Rect { w: 4, h: 4 }), 16);
}
"""
RUST_SHAPES_LIB = ("mod area;\n\npub use area::area;\n\n"
                   "pub struct Rect {\n    pub w: u32,\n    pub h: u32,\n}\n")
RUST_SHAPES_CARGO = ('[package]\nname = "shapes"\nversion = "0.1.0"\nedition = "2021"\n\n'
                     '[dependencies]\nanyhow = "1.0"\n')  # from Debian's crates, built once
RUST_SHAPES = Exercise(
    "rust", "shapes",
    solution={"src/lib.rs": RUST_SHAPES_LIB,
              "src/area.rs": "use crate::Rect;\n\npub fn area(_r: &Rect) -> u32 {\n"
                             "    todo!()\n}\n",
              "Cargo.toml": RUST_SHAPES_CARGO},
    example={"lib.rs": RUST_SHAPES_LIB,
             "area.rs": "use crate::Rect;\n\npub fn area(r: &Rect) -> u32 {\n    r.w * r.h\n}\n",
             "Cargo.toml": RUST_SHAPES_CARGO},
    tests={"tests/shapes.rs": RUST_SHAPES_TEST},
    wrong={"src/area.rs": "use crate::Rect;\n\npub fn area(r: &Rect) -> u32 {\n    r.w + r.h\n}\n"},
    hang={"src/area.rs": "use crate::Rect;\n\npub fn area(_r: &Rect) -> u32 {\n"
                         "    std::thread::sleep(std::time::Duration::from_secs(3600));\n"
                         "    0\n}\n"},
)

# ---------------------------------------------------------------- C++

CATCH_HEADER = Path("/usr/include/catch2/catch.hpp")  # Debian's catch2, v2 like the tracks'
CPP_MAIN = "#define CATCH_CONFIG_MAIN\n#include \"catch.hpp\"\n"
CPP_CMAKE = "cmake_minimum_required(VERSION 3.5.1)\nproject(exercise CXX)\n"


def cpp_support() -> dict[str, str]:
    return {"test/catch.hpp": CATCH_HEADER.read_text() if CATCH_HEADER.is_file() else "",
            "test/tests-main.cpp": CPP_MAIN, "CMakeLists.txt": CPP_CMAKE}


CPP_LEAP_TEST = """#include "leap.h"
#include "test/catch.hpp"

TEST_CASE("year 2000 is a leap year") { REQUIRE(leap::is_leap_year(2000)); }

#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("year 1900 is not a leap year") { REQUIRE_FALSE(leap::is_leap_year(1900)); }

TEST_CASE("year 1996 is a leap year") { REQUIRE(leap::is_leap_year(1996)); }
#endif
"""
CPP_LEAP_H = "#pragma once\n\nnamespace leap {\nbool is_leap_year(int year);\n}\n"
CPP_LEAP = Exercise(
    "cpp", "leap",
    solution={"leap.cpp": '#include "leap.h"\n\nnamespace leap {}\n', "leap.h": "#pragma once\n"},
    example={"example.cpp": '#include "leap.h"\n\nnamespace leap {\nbool is_leap_year(int y) '
                            "{ return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }\n}\n",
             "example.h": CPP_LEAP_H},
    tests={"leap_test.cpp": CPP_LEAP_TEST},
    wrong={"leap.cpp": '#include "leap.h"\n\nnamespace leap {\nbool is_leap_year(int y) '
                       "{ return y % 4 == 0; }\n}\n", "leap.h": CPP_LEAP_H},
    hang={"leap.cpp": '#include "leap.h"\n\nnamespace leap {\nbool is_leap_year(int y) '
                      "{ volatile int x = y; while (x == y) {} return false; }\n}\n",
          "leap.h": CPP_LEAP_H},
)
CPP_SHAPES_TEST = """#include "shapes.h"
#include "test/catch.hpp"

TEST_CASE("area of a rectangle") { REQUIRE(shapes::area({2, 3}) == 6); }

#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("area of a square") { REQUIRE(shapes::area({4, 4}) == 16); }
#endif
"""
CPP_SHAPES_H = ("#pragma once\n\nnamespace shapes {\nstruct rect { int w, h; };\n"
                "int area(rect r);\n}\n")
CPP_SHAPES = Exercise(
    "cpp", "shapes",
    solution={"shapes.cpp": '#include "shapes.h"\n\nnamespace shapes {}\n',
              "shapes.h": "#pragma once\n"},
    example={"example.cpp": '#include "shapes.h"\n\nnamespace shapes {\n'
                            "int area(rect r) { return r.w * r.h; }\n}\n",
             "example.h": CPP_SHAPES_H},
    tests={"shapes_test.cpp": CPP_SHAPES_TEST},
    wrong={"shapes.cpp": '#include "shapes.h"\n\nnamespace shapes {\n'
                         "int area(rect r) { return r.w + r.h; }\n}\n", "shapes.h": CPP_SHAPES_H},
    hang={"shapes.cpp": '#include "shapes.h"\n#include <thread>\n#include <chrono>\n\n'
                        "namespace shapes {\nint area(rect) { std::this_thread::sleep_for("
                        "std::chrono::hours(1)); return 0; }\n}\n", "shapes.h": CPP_SHAPES_H},
)

# ---------------------------------------------------------------- Java

JAVA_LEAP_TEST = """import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

public class LeapTest {
    @Test
    public void year2000IsLeap() {
        assertThat(new Leap().isLeapYear(2000)).isTrue();
    }

    @Disabled("Remove to run test")
    @Test
    public void year1900IsNotLeap() {
        assertThat(new Leap().isLeapYear(1900)).isFalse();
    }

    @Disabled
    @Test
    public void year1996IsLeap() {
        assertThat(new Leap().isLeapYear(1996)).isTrue();
    }
}
"""
JAVA_BUILD = "plugins { id 'java' }\nrepositories { mavenCentral() }\n"
JAVA_LEAP = Exercise(
    "java", "leap",
    solution={"src/main/java/Leap.java": "class Leap {\n    boolean isLeapYear(int year) {\n"
              "        throw new UnsupportedOperationException(\"todo\");\n    }\n}\n"},
    example={"src/reference/java/Leap.java": "class Leap {\n    boolean isLeapYear(int y) {\n"
             "        return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);\n    }\n}\n"},
    tests={"src/test/java/LeapTest.java": JAVA_LEAP_TEST},
    other={"build.gradle": JAVA_BUILD},
    wrong={"src/main/java/Leap.java": "class Leap {\n    boolean isLeapYear(int y) {\n"
           "        return y % 4 == 0;\n    }\n}\n"},
    hang={"src/main/java/Leap.java": "class Leap {\n    boolean isLeapYear(int y) {\n"
          "        while (y > 0) { Thread.onSpinWait(); }\n        return false;\n    }\n}\n"},
)
JAVA_SHAPES_TEST = """import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

public class ShapesTest {
    @Test
    public void areaOfARectangle() {
        assertEquals(6, Shapes.area(new Rect(2, 3)));
    }

    @Disabled("Remove to run test")
    @Test
    public void perimeterOfASquare() {
        assertEquals(16, Perimeter.of(new Rect(4, 4)));
    }
}
"""
JAVA_SHAPES = Exercise(
    "java", "shapes",
    solution={"src/main/java/Shapes.java": "class Shapes {\n    static int area(Rect r) {\n"
              "        return 0;\n    }\n}\n",
              "src/main/java/Perimeter.java": "class Perimeter {\n    static int of(Rect r) {\n"
              "        return 0;\n    }\n}\n"},
    example={"src/reference/java/Shapes.java": "class Shapes {\n    static int area(Rect r) {\n"
             "        return r.w() * r.h();\n    }\n}\n",
             "src/reference/java/Perimeter.java": "class Perimeter {\n    static int of(Rect r) {"
             "\n        return 2 * (r.w() + r.h());\n    }\n}\n"},
    tests={"src/test/java/ShapesTest.java": JAVA_SHAPES_TEST},
    other={"build.gradle": JAVA_BUILD},
    editor={"src/main/java/Rect.java": "record Rect(int w, int h) {}\n"},
    wrong={"src/main/java/Shapes.java": "class Shapes {\n    static int area(Rect r) {\n"
           "        return r.w() + r.h();\n    }\n}\n"},
    hang={"src/main/java/Shapes.java": "class Shapes {\n    static int area(Rect r) {\n"
          "        try { Thread.sleep(3_600_000); } catch (InterruptedException e) {}\n"
          "        return 0;\n    }\n}\n"},
)

# ---------------------------------------------------------------- JavaScript

JS_PACKAGE = ('{"name": "exercise", "private": true, "type": "module",\n'
              ' "scripts": {"test": "jest ./*"}}\n')
JS_BABEL = "export default { presets: ['@exercism/babel-preset-javascript'] };\n"
JS_LEAP_TEST = """import { isLeap } from './leap';

describe('leap', () => {
  test('year 2000 is a leap year', () => {
    expect(isLeap(2000)).toBe(true);
  });

  xtest('year 1900 is not a leap year', () => {
    expect(isLeap(1900)).toBe(false);
  });

  xit('year 1996 is a leap year', () => {
    expect(isLeap(1996)).toBe(true);
  });

  test.skip('optional: every year up to 10000', () => {
    for (let y = 1; y <= 10000; y += 1) expect(isLeap(y)).toBe(y % 4 === 0);
  });
});
"""
JS_LEAP = Exercise(
    "javascript", "leap",
    solution={"leap.js": "export const isLeap = (year) => {\n"
                         "  throw new Error('Remove this line and implement the function');\n};\n"},
    example={"proof.ci.js": "export const isLeap = (y) =>\n"
                            "  y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);\n"},
    tests={"leap.spec.js": JS_LEAP_TEST},
    other={"package.json": JS_PACKAGE, "babel.config.js": JS_BABEL},
    wrong={"leap.js": "export const isLeap = (y) => y % 4 === 0;\n"},
    hang={"leap.js": "export const isLeap = (y) => {\n  for (;;) {}\n};\n"},
)
JS_SHAPES_TEST = """import { area } from './shapes';

describe('shapes', () => {
  test('area of a rectangle', () => {
    expect(area({ w: 2, h: 3 })).toBe(6);
  });

  xit('area of a square', () => {
    expect(area({ w: 4, h: 4 })).toBe(16);
  });
});
"""
JS_SHAPES = Exercise(
    "javascript", "shapes",
    solution={"shapes.js": "export const area = (rect) => {\n  throw new Error('todo');\n};\n",
              "multiply.js": "export const multiply = (a, b) => {\n"
                             "  throw new Error('todo');\n};\n"},
    example={"shapes.js": "import { multiply } from './multiply';\n\n"
                          "export const area = (r) => multiply(r.w, r.h);\n",
             "multiply.js": "export const multiply = (a, b) => a * b;\n"},
    tests={"shapes.spec.js": JS_SHAPES_TEST},
    other={"package.json": JS_PACKAGE, "babel.config.js": JS_BABEL},
    wrong={"shapes.js": "export const area = (r) => r.w + r.h;\n"},
    hang={"shapes.js": "export const area = () => {\n  const t = Date.now();\n"
                       "  while (Date.now() - t < 3600000) {}\n  return 0;\n};\n"},
)

# ---------------------------------------------------------------- Python (the suite's own path)

PY_LEAP_TEST = """import unittest

from leap import leap_year


class LeapTest(unittest.TestCase):
    def test_year_2000_is_a_leap_year(self):
        self.assertIs(leap_year(2000), True)

    def test_year_1900_is_not_a_leap_year(self):
        self.assertIs(leap_year(1900), False)

    def test_year_1996_is_a_leap_year(self):
        self.assertIs(leap_year(1996), True)
"""
PY_LEAP = Exercise(
    "python", "leap",
    solution={"leap.py": "def leap_year(year):\n    pass\n"},
    example={"example.py": "def leap_year(y):\n    return y % 4 == 0 and (y % 100 != 0 or "
                           "y % 400 == 0)\n"},
    tests={"leap_test.py": PY_LEAP_TEST},
    wrong={"leap.py": "def leap_year(y):\n    return y % 4 == 0\n"},
    hang={"leap.py": "def leap_year(y):\n    while True:\n        pass\n"},
)
PY_SHAPES = Exercise(
    "python", "shapes",
    solution={"shapes.py": "def area(w, h):\n    pass\n", "scale.py": "def double(n):\n    pass\n"},
    example={"shapes.py": "from scale import double\n\n\ndef area(w, h):\n    return w * h\n\n\n"
                          "def double_area(w, h):\n    return double(area(w, h))\n",
             "scale.py": "def double(n):\n    return 2 * n\n"},
    tests={"shapes_test.py": "import unittest\n\nfrom shapes import area, double_area\n\n\n"
                             "class ShapesTest(unittest.TestCase):\n    def test_area(self):\n"
                             "        self.assertEqual(area(2, 3), 6)\n\n"
                             "    def test_double_area(self):\n"
                             "        self.assertEqual(double_area(2, 3), 12)\n"},
    wrong={"shapes.py": "def area(w, h):\n    return w + h\n"},
    hang={"shapes.py": "import time\n\n\ndef area(w, h):\n    time.sleep(3600)\n"},
)

ALL = [GO_LEAP, GO_SHAPES, RUST_LEAP, RUST_SHAPES, CPP_LEAP, CPP_SHAPES,
       JAVA_LEAP, JAVA_SHAPES, JS_LEAP, JS_SHAPES,
       PY_LEAP, PY_SHAPES]


def write_all(root: Path, exercises: list[Exercise] | None = None) -> Path:
    if root.exists():
        shutil.rmtree(root)
    for exercise in exercises or ALL:
        exercise.write(root)
    return root


def by_language(language: str) -> list[Exercise]:
    return [e for e in ALL if e.language == language]
