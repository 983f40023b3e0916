"""Loading the polyglot layout, prompts that name the language, and what a missing toolchain
says (no sandbox needed)."""

from __future__ import annotations

import pytest

from codetrial.core import TestResult, UsageError, Verdict
from codetrial.languages import get_language
from codetrial.languages.base import _versions
from codetrial.languages.grading import reconcile
from codetrial.protocols.edit import first_message
from codetrial.suites import create_suite
from tests.polyglot.exercises import ALL, GO_SHAPES, RUST_LEAP


def _tasks(root, **options):
    return {t.id: t for t in create_suite("exercism", {"path": str(root), **options}).load_tasks()}


def test_ids_name_the_language(poly_root):
    assert sorted(_tasks(poly_root)) == sorted(e.task_id for e in ALL)
    assert {"leap", "shapes"} <= set(_tasks(poly_root))  # Python keeps its bare slugs
    assert sorted(_tasks(poly_root, languages="go,rust")) == [
        "go/leap", "go/shapes", "rust/leap", "rust/shapes"]
    assert list(_tasks(poly_root, exercises="go/leap")) == ["go/leap"]


def test_prompt_names_the_language_and_shows_editor_files_read_only(poly_root):
    suite = create_suite("exercism", {"path": str(poly_root)})
    task = _tasks(poly_root)["go/shapes"]
    text = first_message(suite.instructions(task), suite.edit_files(task),
                         *suite.prompt_language(task))
    assert "only the Go standard library" in text and "Python" not in text
    assert "area.go\n```go\n" in text and "double.go\n```go\n" in text
    assert "read-only" in text and GO_SHAPES.editor["defs.go"] in text
    assert "defs.go" not in suite.edit_files(task)  # shown, not the model's to edit


def test_build_files_are_never_the_models(poly_root):
    suite = create_suite("exercism", {"path": str(poly_root)})
    task = _tasks(poly_root)["rust/leap"]
    assert list(suite.edit_files(task)) == ["src/lib.rs"]
    assert list(suite.reference_files(task)) == ["src/lib.rs"]
    assert RUST_LEAP.solution.keys() == {"src/lib.rs", "Cargo.toml"}


def test_missing_toolchain_names_the_package(monkeypatch):
    lang = get_language("rust")
    monkeypatch.setattr(type(lang), "tools", lambda self: {"rustc": ["rustc-not-here"]})
    _versions.cache_clear()
    try:
        with pytest.raises(UsageError, match="install rustc-web cargo-web"):
            lang.version()
    finally:
        _versions.cache_clear()


def test_unknown_language_is_a_usage_error(poly_root):
    with pytest.raises(UsageError, match="unknown language"):
        _tasks(poly_root, languages="cobol")


def test_a_test_that_never_reports_fails():
    reported = [TestResult("TestA", Verdict.PASSED), TestResult("mod::b", Verdict.PASSED)]
    results = reconcile(["TestA", "b", "TestGone"], reported)
    assert [(t.name, t.verdict) for t in results][-1] == ("TestGone", Verdict.FAILED)
    assert len(results) == 3


@pytest.mark.parametrize(("language", "source", "expected"), [
    ("javascript", "xtest('a', () => {});\ntest.skip(\"b\", () => {});\nxit(`c`, f);",
     "test('a', () => {});\ntest.skip(\"b\", () => {});\nit(`c`, f);"),
    ("java", '@Disabled("Remove to run test")\n@Test\n@Disabled\n@Test', "\n@Test\n\n@Test"),
])
def test_unskip(language, source, expected):
    assert get_language(language).unskip(source) == expected


def test_doctor_lists_every_toolchain():
    from codetrial.languages.toolchains import toolchain_checks

    found = {c.name: c for c in toolchain_checks()}
    assert sorted(found) == [f"toolchain {n}" for n in
                             ("cpp", "go", "java", "javascript", "python", "rust")]
    assert all(c.ok and not c.required for c in found.values()), found
    assert "jest 29.7.0" in found["toolchain javascript"].detail
    assert found["toolchain go"].detail.startswith("go version go1.")


def test_a_tracks_own_layout_is_told_by_its_files(tmp_path):
    from tests.polyglot.exercises import write_all

    write_all(tmp_path / "polyglot", [GO_SHAPES, RUST_LEAP])
    (tmp_path / "polyglot" / "go").rename(tmp_path / "my-go-track")
    (tmp_path / "polyglot" / "rust" / "exercises" / "practice" / "leap").rename(
        tmp_path / "leap")  # DIR/<slug>/
    assert list(_tasks(tmp_path / "my-go-track")) == ["go/shapes"]
    assert list(_tasks(tmp_path, exercises="leap")) == ["rust/leap"]


def test_a_runs_settings_name_each_languages_toolchain_and_what_was_unskipped(poly_root):
    suite = create_suite("exercism", {"path": str(poly_root), "languages": "go,rust,python"})
    settings = suite.run_settings(suite.load_tasks())
    assert set(settings["toolchains"]) == {"go", "python", "rust"}
    assert all(settings["toolchains"].values())
    assert "go" in settings["unskipped"] and "rust" in settings["unskipped"]
    assert "ignore" in settings["unskipped"]["rust"]
