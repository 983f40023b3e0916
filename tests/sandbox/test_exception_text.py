"""The tracebacks programs print read as Python's own, less the carets (inside/exception_text)."""

import json
import re
import traceback

import pytest

from codetrial.inside import exception_text, plain
from codetrial.sandbox import Program

CARETS = re.compile(r"^ +[\^~]+ *$")


def python_text(exc: BaseException) -> str:
    """traceback's text, with the lines that only underline a frame's line dropped (a
    SyntaxError's caret stays)."""
    return "".join(_without_carets(piece) if piece.startswith('  File "') and ", in " in piece
                   else piece for piece in traceback.format_exception(exc))


def _without_carets(frame: str) -> str:
    lines = frame.splitlines(keepends=True)
    return "".join(line for line in lines if not CARETS.match(line.rstrip("\n")))


def deep(n: int) -> None:
    if n == 0:
        raise ValueError("bottom") from KeyError("cause")
    deep(n - 1)


def handled_badly() -> None:
    try:
        {}["missing"]
    except KeyError:
        print(1 / 0)


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")


def noted() -> None:
    error = TypeError("with notes")
    error.add_note("first note\nsecond line")
    raise error


def suppressed() -> None:
    try:
        raise KeyError("hidden")
    except KeyError:
        raise ValueError("shown") from None


def cyclic() -> None:
    a, b = ValueError("a"), TypeError("b")
    a.__context__, b.__context__ = b, a
    raise a


def group() -> None:
    raise ExceptionGroup("two", [ValueError("x"), TypeError("y")])


@pytest.mark.parametrize("raiser", [
    lambda: deep(40), handled_badly, noted, suppressed, cyclic, group,
    lambda: compile("x = (\n", "broken.py", "exec"),
    lambda: (_ for _ in ()).throw(Unprintable()),
    lambda: exec("raise SystemExit('bye')"),
], ids=["recursion-and-cause", "context", "notes", "suppressed", "cycle", "group",
        "syntax-error", "str-fails", "system-exit"])
def test_the_text_is_pythons_without_the_carets(raiser):
    try:
        raiser()
    except BaseException as exc:  # noqa: BLE001
        assert exception_text.format_exception(exc) == python_text(exc)
    else:
        pytest.fail("raised nothing")


def test_a_repeated_frame_is_folded_as_python_folds_it():
    try:
        deep(40)
    except ValueError as exc:
        text = exception_text.format_exception(exc)
    assert "[Previous line repeated 37 more times]" in text
    assert text.count("in deep") == 4  # three repeats and the frame that raised


def test_an_answer_that_raises_shows_where_in_the_models_code(sandbox):
    """HumanEval's judge prints the model's traceback for the report; the code's own line is
    there, the judge's frames too, but no line that only underlines."""
    code = ("from codetrial_judge import answer_calls\n"
            "answer_calls('def f(x):\\n    return x[5]\\n', 'f')\n")
    calls = json.dumps([plain.encode((([1, 2],), {}))])
    outcome = sandbox.run_sync(Program(code=code, stdin=calls))
    assert outcome.status == "ok", outcome
    assert "IndexError: list index out of range" in outcome.stderr
    assert "    return x[5]\n" in outcome.stderr
    assert not any(CARETS.match(line) for line in outcome.stderr.splitlines())
