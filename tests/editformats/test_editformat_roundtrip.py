"""The reference reply of every format, parsed and applied, must give back `after` exactly:
that is what lets the reference contender score 100% and proves parser and applier."""

from __future__ import annotations

import random

import pytest

from codetrial.core.errors import UsageError
from codetrial.editformats import FORMATS, get_format

FENCE = "`" * 3

PAIRS = {
    "fill-in": (
        {"hello_world.py": 'def hello():\n    pass\n'},
        {"hello_world.py": 'def hello():\n    return "Hello, World!"\n'},
    ),
    "humaneval-like": (
        {"solution.py": 'from typing import List\n\n\ndef has_close(numbers: List[float], t: '
                        'float) -> bool:\n    """ Check if two numbers are closer than t.\n'
                        '    >>> has_close([1.0, 2.0], 0.5)\n    False\n    """\n'},
        {"solution.py": 'from typing import List\n\n\ndef has_close(numbers: List[float], t: '
                        'float) -> bool:\n    """ Check if two numbers are closer than t.\n'
                        '    >>> has_close([1.0, 2.0], 0.5)\n    False\n    """\n'
                        '    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n'
                        '            if abs(a - b) < t:\n                return True\n'
                        '    return False\n'},
    ),
    "multi-file": (
        {"bank/account.py": "class Account:\n    def __init__(self):\n        pass\n\n"
                            "    def open(self):\n        pass\n",
         "bank/errors.py": "class BankError(Exception):\n    pass\n",
         "README.md": "# Bank\n"},
        {"bank/account.py": "from bank.errors import BankError\n\n\nclass Account:\n"
                            "    def __init__(self):\n        self.open_ = False\n\n"
                            "    def open(self):\n        if self.open_:\n"
                            "            raise BankError('already open')\n"
                            "        self.open_ = True\n",
         "bank/errors.py": "class BankError(Exception):\n    pass\n",
         "README.md": "# Bank\n",
         "bank/helpers.py": "def cents(amount):\n    return round(amount * 100)\n"},
    ),
    "fence-in-string": (
        {"markdown.py": "def render(code):\n    pass\n"},
        {"markdown.py": f'TEMPLATE = """\n{FENCE}python\n{{code}}\n{FENCE}\n"""\n\n\n'
                        "def render(code):\n    return TEMPLATE.format(code=code)\n"},
    ),
    "crlf": (
        {"crlf.py": "def add(a, b):\r\n    pass\r\n\r\n\r\ndef sub(a, b):\r\n    pass\r\n"},
        {"crlf.py": "def add(a, b):\r\n    return a + b\r\n\r\n\r\ndef sub(a, b):\r\n"
                    "    return a - b\r\n"},
    ),
    "tabs": (
        {"tabs.py": "class Stack:\n\tdef __init__(self):\n\t\tpass\n\n\tdef push(self, x):\n"
                    "\t\tpass\n"},
        {"tabs.py": "class Stack:\n\tdef __init__(self):\n\t\tself.items = []\n\n"
                    "\tdef push(self, x):\n\t\tself.items.append(x)\n"},
    ),
    "repeated-code": (
        {"twins.py": "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"},
        {"twins.py": "def a():\n    x = 2\n    return x\n\n\ndef b():\n    x = 3\n    return x\n"},
    ),
    "empty-stub": ({"empty.py": ""}, {"empty.py": "VALUE = 42\n"}),
    "blank-stub": ({"blank.py": "\n\n"}, {"blank.py": "VALUE = 42\n"}),
    "markers-in-docstring": (
        {"doc.py": 'def f():\n    """Title\n    =====\n    """\n    pass\n'},
        {"doc.py": 'def f():\n    """Title\n    =====\n    """\n    return 1\n'},
    ),
    "no-final-newline-kept": (
        {"tail.py": "def f():\n    pass\n\nX = 1"},
        {"tail.py": "def f():\n    return 2\n\nX = 1"},
    ),
}


def _check(name: str, before: dict[str, str], after: dict[str, str]) -> None:
    fmt = get_format(name)
    text, calls = fmt.reference_reply(before, after)
    result = fmt.edit(text, calls, before)
    assert result.ok, result.errors
    assert result.files == after, text


@pytest.mark.parametrize("pair", sorted(PAIRS))
@pytest.mark.parametrize("name", list(FORMATS))
def test_reference_reply_round_trip(name: str, pair: str) -> None:
    before, after = PAIRS[pair]
    if name == "whole" and pair == "no-final-newline-kept":
        pytest.skip("a fenced whole file always ends with a newline")
    _check(name, before, after)


CODE = ["", "x = 1", "    pass", "return x", "    x = 1", "def f():", "# note", "\tx = 2", "}"]
# Lines that look like the formats' own syntax: fences, markers, headers, paths, elisions.
HOSTILE = ["", "x = 1", "    pass", FENCE, FENCE + "python", "~~~", "````", "...", "    ...",
           "# ...", "=======", "    =======", "+++ b", "@@ x @@", "-- c", "hello.py", "# a.py:",
           "**b.py**", FENCE + "b.py", "\ty", "  "]


def _random_file(rng: random.Random, vocab: list[str]) -> str:
    return "".join(rng.choice(vocab) + "\n" for _ in range(rng.randint(0, 25)))


def _mutate(rng: random.Random, text: str, vocab: list[str]) -> str:
    lines = text.split("\n")[:-1]
    for _ in range(rng.randint(1, 6)):
        where = rng.randint(0, len(lines))
        action = rng.choice(["insert", "delete", "change"])
        if action == "insert" or not lines:
            lines.insert(where, rng.choice(vocab) + rng.choice(["", " # new", "!"]))
        elif action == "delete":
            del lines[min(where, len(lines) - 1)]
        else:
            lines[min(where, len(lines) - 1)] += " # changed"
    return "".join(line + "\n" for line in lines)


@pytest.mark.parametrize("vocab", [CODE, HOSTILE], ids=["repeated-lines", "format-syntax"])
@pytest.mark.parametrize("name", list(FORMATS))
def test_round_trip_on_random_files(name: str, vocab: list[str]) -> None:
    """Files of few distinct lines force the reference to widen hunks until they are unique;
    lines that look like fences, markers or file names must not confuse the parsers."""
    rng = random.Random(20240611)
    for _ in range(200):
        before = {"a.py": _random_file(rng, vocab), "b.py": _random_file(rng, vocab)}
        after = {path: _mutate(rng, text, vocab) for path, text in before.items()}
        if after != before:
            _check(name, before, after)


def test_unknown_format_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="whole, diff, udiff, whole-func, diff-func"):
        get_format("patch")


def test_formats_describe_themselves() -> None:
    for name in FORMATS:
        fmt = get_format(name)
        assert fmt.name == name
        assert "Example" in fmt.system_prompt()
        assert (fmt.tools() is not None) == fmt.uses_tools
    tool = get_format("diff-func").tools()[0]["function"]
    assert tool["name"] == "replace_lines"
    assert tool["parameters"]["properties"]["edits"]["items"]["required"] == [
        "path", "original_lines", "updated_lines"]
