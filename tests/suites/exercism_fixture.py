"""Builds small Exercism-layout exercises for tests: a one-file and a two-file exercise."""

from __future__ import annotations

import json
from pathlib import Path

EXERCISES = {
    "two-fer": {
        "docs": {"instructions.md": "Return 'One for X, one for me.' (X defaults to 'you')."},
        "solution": {"two_fer.py": "def two_fer(name):\n    pass\n"},
        "example": {".meta/example.py":
                    "def two_fer(name='you'):\n    return f'One for {name}, one for me.'\n"},
        "test": {"two_fer_test.py": """import unittest

from two_fer import two_fer


class TwoFerTest(unittest.TestCase):
    def test_no_name(self):
        self.assertEqual(two_fer(), "One for you, one for me.")

    def test_a_name(self):
        self.assertEqual(two_fer("Alice"), "One for Alice, one for me.")
"""},
    },
    "area-tools": {
        "docs": {"introduction.md": "Geometry helpers.",
                 "instructions.md": "Implement `square` in geometry.py and `total_area` in "
                                    "area_tools.py using it.",
                 "instructions.append.md": "Areas are floats."},
        "solution": {
            "area_tools.py": "from geometry import square\n\n\ndef total_area(sides):\n    pass\n",
            "geometry.py": "def square(side):\n    pass\n",
        },
        "example": {
            ".meta/example.py": "from geometry import square\n\n\ndef total_area(sides):\n"
                                "    return float(sum(square(s) for s in sides))\n",
            ".meta/example_geometry.py": "def square(side):\n    return side * side\n",
        },
        "test": {"area_tools_test.py": """import unittest

from area_tools import total_area
from geometry import square


class AreaTest(unittest.TestCase):
    def test_square(self):
        self.assertEqual(square(3), 9)

    def test_total(self):
        self.assertEqual(total_area([1, 2]), 5.0)

    def test_empty(self):
        self.assertEqual(total_area([]), 0.0)
"""},
    },
}


def make_exercises(root: Path, layout: str = "flat", names: list[str] | None = None,
                   exercises: dict | None = None) -> Path:
    """layout: flat (DIR/<slug>), track (DIR/exercises/practice/<slug>), multi
    (DIR/python/exercises/practice/<slug>). Returns the DIR to pass as --path. `exercises`:
    other specs of the same shape (a "support" entry: helper files the tests import)."""
    base = {"flat": root, "track": root / "exercises" / "practice",
            "multi": root / "python" / "exercises" / "practice"}[layout]
    for slug, spec in (EXERCISES if exercises is None else exercises).items():
        if names and slug not in names:
            continue
        ex = base / slug
        for files in (spec["solution"], spec["test"], spec["example"], spec.get("support", {})):
            for rel, text in files.items():
                write(ex / rel, text)
        for rel, text in spec["docs"].items():
            write(ex / ".docs" / rel, text)
        config = {"files": {"solution": list(spec["solution"]), "test": list(spec["test"]),
                            "example": list(spec["example"])}}
        write(ex / ".meta" / "config.json", json.dumps(config))
    return root


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
