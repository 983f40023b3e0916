"""Exercises shaped like the ones of aider's polyglot benchmark that a grader gets wrong when it
places, compiles or limits files differently from the track's own runner: a header-only C++
example, Catch2 sections, a test behind a macro nobody defines, 1,000 threads, a Java example
of several files listed out of order, node worker threads, a Go exercise whose task is to write
the tests, and Rust tests that compile files of tests/ at run time."""

from __future__ import annotations

from tests.polyglot.exercises import Exercise

JS_COMMONJS_PACKAGE = '{"name": "sum-in-workers", "private": true}\n'  # no "type": "module"
JS_COMMONJS_BABEL = "module.exports = { presets: ['@exercism/babel-preset-javascript'] };\n"

# ---------------------------------------------------------------- C++

CPP_STACK_TEST = """#include "stack.h"
#ifdef EXERCISM_TEST_SUITE
#include <catch2/catch.hpp>
#else
#include "test/catch.hpp"
#endif

TEST_CASE("push_then_top", "[0a1b]") {
    SECTION("one value") {
        stack::stack<int> s;
        s.push(3);
        REQUIRE(s.top() == 3);
    }
    SECTION("two values") {
        stack::stack<int> s;
        s.push(3);
        s.push(4);
        REQUIRE(s.top() == 4);
    }
}

#if defined(EXERCISM_RUN_ALL_TESTS)
TEST_CASE("size counts", "[2c3d]") {
    stack::stack<int> s;
    s.push(1);
    REQUIRE(s.size() == 1);
}
#endif

#if defined(EXERCISM_INCLUDE_BENCHMARK)
TEST_CASE("benchmark") {
    BENCHMARK("push a million") { return 0; };
}
#endif
"""
CPP_STACK_H = """#if !defined(STACK_H)
#define STACK_H
#include <cstddef>
#include <vector>

namespace stack {
template <typename T>
class stack {
   public:
    void push(T value) { items_.push_back(value); }
    T top() const { return items_.back(); }
    std::size_t size() const { return items_.size(); }

   private:
    std::vector<T> items_;
};
}  // namespace stack
#endif
"""
# header-only like binary-search-tree and circular-buffer; sections like zebra-puzzle; a
# benchmark behind a macro like parallel-letter-frequency
CPP_STACK = Exercise(
    "cpp", "stack",
    solution={"stack.cpp": '#include "stack.h"\n\nnamespace stack {\n\n}  // namespace stack\n',
              "stack.h": "#if !defined(STACK_H)\n#define STACK_H\n\nnamespace stack {\n\n}\n"
                         "\n#endif\n"},
    example={"example.h": CPP_STACK_H},
    tests={"stack_test.cpp": CPP_STACK_TEST},
)

CPP_THREADS_TEST = """#include "counter.h"
#include "test/catch.hpp"
#include <thread>
#include <vector>

TEST_CASE("a thousand threads count together") {
    counter::counter c;
    std::vector<std::thread> threads;
    for (int i = 0; i < 1000; ++i) {
        threads.push_back(std::thread([&]() { c.add(1); }));
    }
    for (auto& t : threads) {
        t.join();
    }
    REQUIRE(c.value() == 1000);
}
"""
CPP_THREADS_H = """#pragma once
#include <mutex>

namespace counter {
class counter {
   public:
    void add(int n);
    int value();

   private:
    std::mutex mutex_;
    int value_ = 0;
};
}  // namespace counter
"""
CPP_THREADS = Exercise(  # bank-account's concurrent transactions
    "cpp", "thread-counter",
    solution={"counter.cpp": '#include "counter.h"\n', "counter.h": "#pragma once\n"},
    example={"example.cpp": '#include "counter.h"\n\nnamespace counter {\n'
                            "void counter::add(int n) { std::lock_guard<std::mutex> l(mutex_); "
                            "value_ += n; }\nint counter::value() { std::lock_guard<std::mutex> "
                            "l(mutex_); return value_; }\n}\n",
             "example.h": CPP_THREADS_H},
    tests={"counter_test.cpp": CPP_THREADS_TEST},
)

# ---------------------------------------------------------------- Java

JAVA_HAND_TEST = """import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

public class HandsTest {
    @Test
    public void highestCardWins() {
        assertThat(new Hands().best("3 4", "2 9")).isEqualTo("2 9");
    }

    @Test
    public void singleHandWins() {
        assertThat(new Hands().best("5 5")).isEqualTo("5 5");
    }
}
"""
JAVA_HANDS = Exercise(  # poker: the example is Card, Hand, Poker, helper classes first
    "java", "hands",
    solution={"src/main/java/Hands.java": "class Hands {\n    String best(String... hands) {\n"
              '        throw new UnsupportedOperationException("Delete this statement");\n'
              "    }\n}\n"},
    example={
        "src/reference/java/Card.java": "class Card {\n    final int rank;\n\n"
        "    Card(String text) {\n        rank = Integer.parseInt(text);\n    }\n}\n",
        "src/reference/java/Hand.java": "import java.util.Arrays;\n\nclass Hand {\n"
        "    final String text;\n    final int high;\n\n    Hand(String text) {\n"
        "        this.text = text;\n        this.high = Arrays.stream(text.split(\" \"))"
        ".map(Card::new).mapToInt(c -> c.rank).max().orElse(0);\n    }\n}\n",
        "src/reference/java/Hands.java": "import java.util.Arrays;\nimport java.util.Comparator;"
        "\n\nclass Hands {\n    String best(String... hands) {\n        return Arrays.stream"
        "(hands).map(Hand::new).max(Comparator.comparingInt(h -> h.high)).get().text;\n"
        "    }\n}\n"},
    tests={"src/test/java/HandsTest.java": JAVA_HAND_TEST},
    other={"build.gradle": "plugins { id 'java' }\nrepositories { mavenCentral() }\n"},
)

# ---------------------------------------------------------------- JavaScript

JS_WORKERS_TEST = """import { sumInWorkers } from './sum-in-workers';

describe('sum in workers', () => {
  test('four workers add their parts', async () => {
    await expect(sumInWorkers([[1, 2], [3], [4, 5], [6]])).resolves.toEqual(21);
  });
});
"""
JS_WORKERS_PROOF = """const {
  Worker, isMainThread, workerData, parentPort,
} = require('node:worker_threads');

if (isMainThread) {
  const sumOne = (part) =>
    new Promise((resolve, reject) => {
      const worker = new Worker(__filename, { workerData: part });
      worker.on('message', resolve);
      worker.on('error', reject);
    });
  module.exports.sumInWorkers = async (parts) =>
    (await Promise.all(parts.map(sumOne))).reduce((a, b) => a + b, 0);
} else {
  parentPort.postMessage(workerData.reduce((a, b) => a + b, 0));
}
"""
JS_WORKERS = Exercise(  # parallel-letter-frequency
    "javascript", "sum-in-workers",
    solution={"sum-in-workers.js": "export const sumInWorkers = async (parts) => {\n"
                                   "  throw new Error('Remove this line');\n};\n"},
    example={"proof.ci.js": JS_WORKERS_PROOF},
    tests={"sum-in-workers.spec.js": JS_WORKERS_TEST},
    other={"package.json": JS_COMMONJS_PACKAGE, "babel.config.js": JS_COMMONJS_BABEL},
)

# ---------------------------------------------------------------- Go

GO_WRITE_TESTS = Exercise(  # counter: the task is the test suite, the test file has no test
    "go", "write-tests",
    solution={"tally.go": "package tally\n\n// TODO: add solution stub\n"},
    example={"example.go": "package tally\n\nimport \"testing\"\n\n"
                           "func TestNothing(t *testing.T) {}\n"},
    tests={"tally_test.go": "package tally\n\n// Define your tests here\n"},
    other={"go.mod": "module tally\n\ngo 1.18\n",
           "impl.go": "package tally\n\nfunc Count(s string) int { return len(s) }\n"},
)

# ---------------------------------------------------------------- Rust

RUST_COMPILE_FAIL_TEST = """use std::process::Command;

#[test]
fn works() {
    assert_eq!(must_be_even::half(4), 2);
}

#[test]
#[ignore]
fn compile_fails_odd_literal() {
    let invalid = std::path::Path::new("tests").join("invalid");
    assert!(invalid.join("odd.rs").exists(), "tests/invalid/odd.rs is missing");
    let done = Command::new("cargo")
        .current_dir(&invalid)
        .args(["build", "--offline", "--quiet", "--target-dir", "../../target/invalid", "--bin",
               "odd"])
        .output()
        .expect("cargo runs");
    assert!(!done.status.success(), "odd.rs compiled");
}
"""
RUST_COMPILE_FAIL = Exercise(  # macros: tests/invalid/ is compiled by the tests themselves
    "rust", "must-be-even",
    solution={"src/lib.rs": "pub fn half(n: u32) -> u32 {\n    todo!()\n}\n"},
    example={"example.rs": "pub fn half(n: u32) -> u32 {\n    n / 2\n}\n"},
    tests={"tests/must-be-even.rs": RUST_COMPILE_FAIL_TEST},
    other={"Cargo.toml": '[package]\nname = "must_be_even"\nversion = "0.1.0"\n'
                         'edition = "2021"\n',
           "tests/invalid/Cargo.toml": '[package]\nname = "invalid"\nversion = "0.0.0"\n'
                                       'edition = "2021"\n\n[dependencies.must_be_even]\n'
                                       'path = "../../"\n\n[[bin]]\nname = "odd"\n'
                                       'path = "odd.rs"\n',
           "tests/invalid/odd.rs": "fn main() {\n    let x: u32 = must_be_even::half(\"3\");\n"
                                   "    println!(\"{x}\");\n}\n"},
)

SHAPES = [CPP_STACK, CPP_THREADS, JAVA_HANDS, JS_WORKERS, GO_WRITE_TESTS, RUST_COMPILE_FAIL]
# where each reference file lands in the exercise (the tests check the suite's mapping)
REFERENCE_PLACES = {
    "cpp/stack": {"stack.h": CPP_STACK_H},
    "java/hands": {f"src/main/java/{n}.java": JAVA_HANDS.example[f"src/reference/java/{n}.java"]
                   for n in ("Card", "Hand", "Hands")},
}
