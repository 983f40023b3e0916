"""Every verdict class, per-test results, exception text and flags, on hand-written validators."""

import textwrap

import pytest

from codetrial.core import SchemaVerdict, Verdict

CORRECT = """
def validate(instance):
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
"""
PARTLY_WRONG = "def validate(instance):\n    return isinstance(instance, int)\n"
ALWAYS_WRONG = CORRECT + "\n\n_right = validate\n\ndef validate(instance):\n" \
                         "    return not _right(instance)\n"
SYNTAX_ERROR = "def validate(instance)\n    return True\n"
NO_VALIDATE = "def check(instance):\n    return True\n"
IMPORT_ERROR = "import no_such_module_here\n\ndef validate(instance):\n    return True\n"


@pytest.mark.parametrize("code,schema_verdict,verdict,passed", [
    (CORRECT, SchemaVerdict.OK, Verdict.PASSED, 5),
    (PARTLY_WRONG, SchemaVerdict.PARTIAL, Verdict.FAILED, 3),
    (ALWAYS_WRONG, SchemaVerdict.FAILURE, Verdict.FAILED, 0),
    (SYNTAX_ERROR, SchemaVerdict.COMPILE, Verdict.ERROR, 0),
    (NO_VALIDATE, SchemaVerdict.COMPILE, Verdict.ERROR, 0),
    (IMPORT_ERROR, SchemaVerdict.COMPILE, Verdict.ERROR, 0),
])
def test_every_verdict_class(grade, code, schema_verdict, verdict, passed):
    result = grade("type/0", code)
    assert result.details["schema_verdict"] == schema_verdict
    assert result.verdict == verdict
    assert result.details["tests_passed"] == passed and result.details["tests_total"] == 5
    assert [t.name for t in result.tests][:2] == ["an integer", "a float with zero fraction"]


def test_compile_says_why(grade):
    assert "SyntaxError" in grade("type/0", SYNTAX_ERROR).output
    assert "no function named validate" in grade("type/0", NO_VALIDATE).output
    assert "ModuleNotFoundError" in grade("type/0", IMPORT_ERROR).output


def test_per_test_results_carry_the_wrong_answer_and_exception_text(grade):
    code = textwrap.dedent("""
        def validate(instance):
            if isinstance(instance, str):
                raise TypeError("strings confuse me")
            if isinstance(instance, float):
                return "yes"
            return isinstance(instance, int)
    """)
    tests = {t.name: t for t in grade("type/0", code).tests}
    assert tests["a string"].verdict == Verdict.ERROR
    assert "TypeError: strings confuse me" in tests["a string"].message
    assert tests["a bool"].verdict == Verdict.FAILED
    assert tests["a bool"].message == "said valid, expected invalid"
    assert "not a bool" in tests["a float"].message


def test_a_hanging_call_times_out_alone(grade):
    code = "def validate(instance):\n    while isinstance(instance, str):\n        pass\n" \
           "    return isinstance(instance, int) and not isinstance(instance, bool)\n"
    result = grade("type/0", code)
    by_name = {t.name: t.verdict for t in result.tests}
    assert by_name["a string"] == Verdict.TIMEOUT and by_name["an integer"] == Verdict.PASSED
    assert result.details["schema_verdict"] == SchemaVerdict.PARTIAL


def test_exit_while_loading_is_not_a_pass(grade):
    result = grade("type/0", "import os\nos._exit(0)\n")
    assert result.verdict != Verdict.PASSED
    assert result.details["tests_passed"] == 0


def test_library_import_and_embedded_schema_are_flagged(grade):
    library = "import jsonschema\n\ndef validate(instance):\n" \
              "    return jsonschema.Draft202012Validator({'minimum': 5}).is_valid(instance)\n"
    embedded = "SCHEMA = {'minimum': 5}\n\ndef validate(instance):\n    return " \
               "not isinstance(instance, (int, float)) or instance >= SCHEMA['minimum']\n"
    plain = "def validate(instance):\n    return not isinstance(instance, (int, float))" \
            " or isinstance(instance, bool) or instance >= 5\n"
    assert grade("minimum/0", library).details["flags"] == ["library-import", "embedded-schema"]
    assert grade("minimum/0", embedded).details["flags"] == ["embedded-schema"]
    assert grade("minimum/0", plain).details["flags"] == []


def test_augmented_instances_catch_what_the_suite_misses(grade):
    """allOf simple types tests only 35 and 25: a validator that checks only the minimum
    passes the suite but not the augmented instances."""
    lazy = "def validate(instance):\n    if isinstance(instance, bool) or " \
           "not isinstance(instance, (int, float)):\n        return True\n" \
           "    return instance >= 20\n"
    result = grade("allOf/0", lazy)
    assert result.details["schema_verdict"] == SchemaVerdict.PARTIAL
    strict = lazy.replace("instance >= 20", "instance >= 20 and instance != 35")
    fooled = grade("allOf/0", strict)
    assert fooled.details["schema_verdict"] == SchemaVerdict.OK
    assert fooled.details["augmented_passed"] < fooled.details["augmented_total"]
    assert fooled.details["augmented_failed"][0]["expected"] is False
