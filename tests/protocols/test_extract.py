import pytest

from codetrial.protocols.extract import extract_code, truncate_at_stops

CODE = "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize("reply", [
    f"Here you go:\n```python\n{CODE}```\nDone.",
    f"```\n{CODE}```",
    f"```py\n{CODE}```",
    f"Sure!\n\n```python\n{CODE}",  # unclosed fence
    f"{CODE}\nThis adds two numbers.",  # no fence, trailing prose
    f"Explanation first.\n{CODE}",
])
def test_extract_finds_the_function(reply):
    code = extract_code(reply, "add")
    assert code is not None and "return a + b" in code
    assert "Done" not in code and "This adds" not in code and "Explanation" not in code


def test_several_blocks_prefers_the_one_defining_the_entry_point():
    reply = ("```python\nprint(add(1, 2))\n```\n" f"```python\n{CODE}```\n"
             "```bash\npython x.py\n```")
    assert extract_code(reply, "add") == CODE


def test_several_blocks_without_entry_point_are_joined():
    reply = "```python\nimport math\n```\ntext\n```python\nx = math.pi\n```"
    assert extract_code(reply) == "import math\n\n\nx = math.pi\n"


def test_prose_only_gives_nothing():
    assert extract_code("I cannot help with that.", "add") is None


def test_truncate_at_first_stop():
    stops = ["\ndef ", "\nclass "]
    assert truncate_at_stops("    return 1\ndef other():\n", stops) == "    return 1"
    assert truncate_at_stops("    return 1\n", ["\ndef "]) == "    return 1\n"
