"""The diagnosis names the known mistakes of hand-written faulty validators, and only those."""

import pytest

from codetrial.core import Attempt, Sample
from codetrial.suites.jsonschema.summary import mistake_table, render_mistakes
from tests.jsonschema.test_grading import CORRECT

NUMBER = "isinstance(instance, (int, float)) and not isinstance(instance, bool)"

FAULTY = {
    # Python == for enum: True == 1
    "python-equality": ("enum/0", "def validate(instance):\n    return instance in [1, 'a']\n"),
    # re.match anchors at the start
    "regex-anchored": ("pattern/0", "import re\n\ndef validate(instance):\n"
                       "    return not isinstance(instance, str) or "
                       "bool(re.match('b+', instance))\n"),
    # bool is an int in Python
    "bool-is-number": ("type/0", "def validate(instance):\n"
                       "    return isinstance(instance, (int, float)) and "
                       "float(instance).is_integer()\n"),
    # 1.0 is an integer in JSON Schema
    "float-not-integer": ("type/0", "def validate(instance):\n    return "
                          "isinstance(instance, int) and not isinstance(instance, bool)\n"),
    # minimum applies to numbers only
    "rejects-other-types": ("minimum/0", f"def validate(instance):\n    return {NUMBER} and "
                            "instance >= 5\n"),
    # format is an annotation in the required tests
    "format-asserted": ("format/0", "import datetime\n\ndef validate(instance):\n"
                        "    if not isinstance(instance, str):\n        return True\n    try:\n"
                        "        datetime.date.fromisoformat(instance)\n    except ValueError:\n"
                        "        return False\n    return True\n"),
    # JavaScript-style length
    "length-not-code-points": ("maxLength/0", "def validate(instance):\n"
                               "    return not isinstance(instance, str) or "
                               "len(instance.encode('utf-16-le')) // 2 <= 2\n"),
    # 0.0075 % 0.0001 is not 0 in floating point
    "float-multipleof": ("multipleOf/0", f"def validate(instance):\n    return not ({NUMBER}) "
                         "or instance % 0.0001 == 0\n"),
    # the maximum beside $ref is ignored
    "ref-siblings-ignored": ("ref/0", f"def validate(instance):\n    return not ({NUMBER}) "
                             "or instance >= 2\n"),
}


@pytest.mark.parametrize("tag", sorted(FAULTY))
def test_known_mistake_is_tagged(grade, tag):
    task_id, code = FAULTY[tag]
    result = grade(task_id, code)
    tags = [m["tag"] for m in result.details["mistakes"]]
    assert tags == [tag], result.details
    example = result.details["mistakes"][0]["example"]
    assert example["got"] != example["expected"]


def test_correct_and_always_false_validators_are_not_tagged(grade):
    assert grade("type/0", CORRECT).details["mistakes"] == []
    nothing = grade("format/0", "def validate(instance):\n    return False\n")
    assert nothing.details["mistakes"] == []  # wrong, but not "format asserted"
    assert nothing.details["unexplained"] == 2


def test_mistake_table_counts_and_renders(grade):
    samples = []
    for tag in ("python-equality", "regex-anchored", "float-not-integer"):
        task_id, code = FAULTY[tag]
        result = grade(task_id, code)
        attempt = Attempt(1, result.verdict, tests=result.tests, details=result.details)
        samples.append(Sample(task_id, 0, [attempt]))
    rows = {r["tag"]: r for r in mistake_table(samples)}
    assert rows["python-equality"]["samples"] == 1
    assert rows["python-equality"]["examples"][0]["task"] == "enum/0"
    assert set(rows) == {"python-equality", "regex-anchored", "float-not-integer", "unexplained"}
    text = render_mistakes({"model-a": list(rows.values()), "model-b": []})
    assert "regex-anchored" in text and "model-b" in text
