"""The lazy-comment counter: it finds elisions a model writes, in every format, and never the
ordinary comments of a correct solution nor lines the file already had."""

from __future__ import annotations

import pytest

from codetrial.editformats import FORMATS, get_format
from codetrial.editformats.lazy import find_lazy_comments, is_elision, lazy_comments
from codetrial.suites import create_suite
from tests.editformats.test_editformat_corpus import CASES, _calls
from tests.suites.exercism_fixture import make_exercises

PARSED = [c for c in CASES if "malformed" not in c["expect"]]


@pytest.mark.parametrize("case", PARSED, ids=lambda case: f"{case['format']}/{case['name']}")
def test_corpus_reply_has_the_elisions_it_declares(case):
    fmt = get_format(case["format"])
    before = case["files_before"]
    edits = fmt.parse(case.get("reply", ""), _calls(case), list(before))
    assert lazy_comments(edits, before) == case["expect"].get("lazy", [])


def test_the_corpus_has_elisions_in_every_format():
    formats = {c["format"] for c in CASES if c["expect"].get("lazy")}
    assert formats == set(FORMATS)


@pytest.mark.parametrize("body,lazy", [
    ("...", True), ("… existing code …", True), (". . . rest of the file", True),
    ("rest of code", True), ("existing code here", True), ("Other methods unchanged", True),
    ("implementation omitted for brevity", True), ("unchanged", True),
    ("same as before", True), ("the rest stays the same", True),
    ("leave other characters unchanged", False), ("... then wrap around", False),
    ("compute the sum of squares", False), ("the previous row, shifted by one", False),
    ("helper shared by the other functions", False), ("the remaining digits", False),
    # ordinary comments of correct code (Python's own library), once counted as elisions
    ("The remaining methods are order-aware.", False), ("Other implementations", False),
    ("Have to close the existing file first.", False), ("No changes.", False),
    ("Keep the original file open when the TextIOWrapper is", False),
    ("Following functions are the same as in sysconfig but with different API", False),
    ("This code sometimes runs when the rest of this module", False),
    ("... followed by attributes in URI+name order", False),
    ("rest of the file", True), ("remaining methods", True), ("the rest of the code here", True),
    ("functions are the same as before", True),
])
def test_what_counts_as_an_elision(body, lazy):
    assert is_elision(body) is lazy


def test_a_line_the_file_had_is_not_the_models_elision():
    reply = "def f():\n    # ... rest of code\n    return 1\n"
    assert find_lazy_comments(reply) == ["# ... rest of code"]
    assert find_lazy_comments(reply, before="def f():\n  # ... rest of code\n") == []


def reference_counts(before: dict[str, str], after: dict[str, str]) -> dict[str, list[str]]:
    """What each format's reference reply (a perfect model) would be counted for."""
    found = {}
    for name in FORMATS:
        fmt = get_format(name)
        text, calls = fmt.reference_reply(before, {**before, **after})
        found[name] = lazy_comments(fmt.parse(text, calls, list(before)), before)
    return found


def test_reference_replies_count_none_on_humaneval():
    suite = create_suite("humaneval-edit", {})
    for task in suite.load_tasks():
        counts = reference_counts(suite.edit_files(task), suite.reference_files(task))
        assert counts == {name: [] for name in FORMATS}, task.id


def test_reference_replies_count_none_on_exercises(tmp_path):
    suite = create_suite("exercism", {"path": str(make_exercises(tmp_path))})
    for task in suite.load_tasks():
        counts = reference_counts(suite.edit_files(task), suite.reference_files(task))
        assert counts == {name: [] for name in FORMATS}, task.id


def test_the_edit_loop_counts_what_a_reply_elides(tmp_path):
    from codetrial.metrics.editing import edit_figures
    from tests.suites.test_edit_loop import RIGHT, run_sample, whole

    lazy = "def two_fer(name='you'):\n    # ... rest of the function unchanged ...\n"
    sample, _ = run_sample(tmp_path, [whole({"two_fer.py": lazy}), whole({"two_fer.py": RIGHT})],
                           tries="2")
    assert [a.details["lazy_comments"] for a in sample.attempts] == [1, 0]
    assert edit_figures([sample])["lazy_comments"] == 1
