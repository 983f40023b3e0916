"""Which sections a report has and what their charts and tables say, on stored runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from codetrial.core import Attempt, Sample, TestResult, UsageError, Verdict
from codetrial.report.drilldown import run_html
from codetrial.report.editing import edit_rows
from codetrial.report.html_report import build_sections
from codetrial.report.runs import load_runs
from codetrial.report.spec import group_chart
from codetrial.report.speed import race_rows
from codetrial.report.synthesis import funnel_rows
from codetrial.report.tables import mistake_table, summary_row, unfinished_note
from codetrial.store import Store
from tests.report.builders import (
    HOSTILE,
    add_run,
    attempt,
    completion_run,
    edit_run,
    edit_sample,
    perf_file,
    schema_run,
    schema_sample,
    synth_state,
)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "runs.sqlite")


def section_ids(store: Store, ids: list[str], perf: list[Path] = ()) -> list[str]:
    return [s.id for s in build_sections(load_runs(store, ids), perf)]


def test_a_plain_run_gets_only_its_summary_and_samples(store):
    assert section_ids(store, [completion_run(store)]) == ["summary", "samples"]


def test_each_kind_of_data_adds_its_section(store, tmp_path):
    synth_state(tmp_path / "cases")
    ids = [completion_run(store), edit_run(store, "e", "m", [[1, 2]]),
           schema_run(store, "j", "m", with_mistake=True),
           add_run(store, "y", "yaml", "m", [], suite_options={"path": str(tmp_path / "cases")})]
    assert section_ids(store, ids, [perf_file(tmp_path / "race.json")]) == [
        "summary", "editing", "spec", "speed", "synthesis", "samples"]


def test_edit_bars_split_at_try_one_with_whiskers_from_repeats(store):
    # repeat 0 passes 2 of 4 on try 1 and 3 by try 2; repeat 1 passes 1, then 3
    run = edit_run(store, "e", "m", [[1, 1, 2, None], [1, 2, 2, None]])
    try1, try2 = edit_rows(load_runs(store, [run]))
    assert (try1["start"], try1["end"], try2["start"], try2["end"]) == (0.0, 37.5, 37.5, 75.0)
    assert try1["interval"] == try2["interval"] == "t over 2 repeats"
    assert (try2["low"], try2["high"]) == (75.0, 75.0)  # both repeats: 3 of 4
    assert (try1["low"], try1["high"]) == (0.0, 100.0)  # t interval of 50% and 25%, clipped


def test_edit_whiskers_are_wilson_intervals_without_repeats(store):
    run = edit_run(store, "e", "m", [[1, None]])
    try1, try2 = edit_rows(load_runs(store, [run]))
    assert try1["interval"] == "Wilson (one repeat)"
    assert try1["low"] < 50.0 < try1["high"] and try2["end"] == 50.0


def test_edit_bars_of_one_model_and_format_in_two_runs_stay_apart(store):
    runs = load_runs(store, [edit_run(store, "a", "m", [[1]]), edit_run(store, "b", "m", [[2]])])
    assert {r["format"] for r in edit_rows(runs)} == {"diff (a)", "diff (b)"}


def test_spec_chart_has_a_column_per_group_and_a_dot_per_schema(store):
    runs = load_runs(store, [schema_run(store, "j1", "model-a", True),
                             schema_run(store, "j2", "model-b", False),
                             add_run(store, "j3", "jsonschema", "model-c", [
                                 schema_sample("type/0", "compile", 0, 3),
                                 schema_sample("enum/0", "failure", 0, 2)])])
    spec = group_chart(runs).to_dict()
    rows = spec["data"]["values"]
    assert spec["facet"]["row"]["field"] == "contender"
    assert spec["spec"]["encoding"]["x"]["field"] == "group"
    assert spec["spec"]["encoding"]["x"]["sort"] == ["enum", "type"]
    assert {(r["contender"], r["task"], r["verdict"], r["percent"]) for r in rows} == {
        ("model-a", "type/0", "ok", 100.0), ("model-a", "enum/0", "partial", 50.0),
        ("model-b", "type/0", "ok", 100.0), ("model-b", "enum/0", "partial", 50.0),
        ("model-c", "type/0", "compile", 0.0), ("model-c", "enum/0", "failure", 0.0)}
    compile_ = next(r for r in rows if r["verdict"] == "compile")
    assert compile_["tests"] == "\u274c test 0\n\u274c test 1\n\u274c test 2"
    tooltip = {t["field"] for t in spec["spec"]["encoding"]["tooltip"]}
    assert {"group", "description", "schema", "tests"} <= tooltip
    # the schemas' text is looked up, once, not repeated per contender
    [lookup] = spec["spec"]["transform"]
    assert [r["task"] for r in lookup["from"]["data"]["values"]] == ["enum/0", "type/0"]
    assert "schema" not in rows[0]


def test_mistake_table_has_a_column_per_contender(store):
    runs = load_runs(store, [schema_run(store, "j1", "model-a", True),
                             schema_run(store, "j2", "model-b", False)])
    table = mistake_table(runs)
    assert "<th>model-a</th><th>model-b</th>" in table
    assert "bool-is-int" in table and "1 (1 wrong)" in table
    assert "enum/0: true expected False, got True" in table


def test_summary_keeps_infra_errors_out_of_the_rate(store):
    row = summary_row(load_runs(store, [completion_run(store)])[0])
    assert row[3] == ("50.0%\n[9.5%, 90.5%]", "num")  # 1 of 2 graded, not 1 of 3
    assert row[5] == ("infra errors 1\nfailed 1\npassed 1", "num")


def test_drilldown_puts_failures_first_and_shows_every_part_of_a_try(store):
    run = load_runs(store, [edit_run(store, "e", "m", [[1, None]])])[0]
    page = run_html(run)
    assert page.index("HumanEval/1") < page.index("HumanEval/0")  # failed both tries: first
    for part in ("prompt", "reply", "applied edits", "test output", "code graded"):
        assert f"<summary>{part}</summary>" in page
    assert "user:\nfix solution.py (try 2)" in page
    assert "solution.py: replaced line 2" in page
    assert "-answer = 1\n+answer = 2" in page  # the diff between the tries
    assert "FAIL: test_answer (try 1)" in page
    assert "model 0.50 s, tests 0.25 s, tokens 10 in / 5 out" in page


def test_drilldown_escapes_model_output(store):
    page = run_html(load_runs(store, [completion_run(store)])[0])
    assert HOSTILE not in page and "<script" not in page and "<img" not in page
    assert "&lt;/script&gt;&lt;script&gt;" in page
    assert page.index("HumanEval/1") < page.index("HumanEval/2") < page.index("HumanEval/0")


def test_speed_rows_come_from_a_perf_file(tmp_path):
    rows = race_rows(perf_file(tmp_path / "race.json"))
    assert {r["contender"] for r in rows} == {"jsonschema", "model-x"}
    assert {r["race"] for r in rows} == {"race-1"}
    (tmp_path / "bad.json").write_text("not json")
    with pytest.raises(UsageError, match="perf"):
        race_rows(tmp_path / "bad.json")


def test_funnel_counts_each_stage_of_a_synthesis(store, tmp_path):
    expected = synth_state(tmp_path / "cases")
    run = add_run(store, "y", "yaml", "m", [], suite_options={"path": str(tmp_path / "cases")})
    rows = funnel_rows(load_runs(store, [run]))
    assert {r["stage"]: r["count"] for r in rows} == expected
    assert [r["stage"] for r in sorted(rows, key=lambda r: r["order"])] == list(expected)


def test_no_funnel_for_hand_written_cases(store, tmp_path):
    (tmp_path / "cases").mkdir()
    run = add_run(store, "y", "yaml", "m", [], suite_options={"path": str(tmp_path / "cases")})
    assert funnel_rows(load_runs(store, [run])) == []
    assert not (tmp_path / "cases" / "synth.sqlite").exists()  # reading made nothing


def test_a_long_setting_folds_to_a_count_with_the_list_on_demand(store):
    names = [f"exercise-{i:03d}" for i in range(129)]
    run = add_run(store, "x", "exercism", "m", [], suite_options={
        "exercises": ",".join(names), "edit_format": "whole", "path": "/tracks/python"})
    settings = summary_row(load_runs(store, [run])[0])[-1]
    assert '<details class="fold"><summary>exercises: 129 items</summary>' in settings.html
    assert "exercise-000, exercise-001" in settings.html and "exercise-128" in settings.html
    assert "edit_format=whole<br>" in settings.html and "path=/tracks/python" in settings.html


def test_an_unfinished_run_says_so_and_how_to_complete_it(store):
    run = add_run(store, "died", "humaneval", "m", [
        Sample("HumanEval/0", 0, [attempt(Verdict.PASSED)])], finished=False)
    view = load_runs(store, [run, completion_run(store)])
    state = summary_row(view[0])[-2]
    assert "unfinished: 1 sample stored so far" in state.html
    assert "<code>codetrial run --resume died</code>" in state.html
    assert summary_row(view[1])[-2] == "finished"
    note = unfinished_note([v.summary for v in view])
    assert "died" in note and "hostile" not in note
    assert unfinished_note([view[1].summary]) == ""


def chat_sample(task: str, system: str, user: str, tries: int = 1) -> Sample:
    """An edit-loop sample: try k sends everything try k-1 sent, its reply and the output."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    attempts = []
    for t in range(1, tries + 1):
        attempts.append(attempt(Verdict.FAILED, t, request={"kind": "chat",
                                                             "messages": list(messages)},
                                reply=f"```python\nanswer = {t}\n```", code=f"answer = {t}\n"))
        messages += [{"role": "assistant", "content": f"reply {t}"},
                     {"role": "user", "content": f"FAIL: try {t}"}]
    return Sample(task, 0, attempts)


def test_drilldown_shows_what_samples_share_once(store):
    system = "Reply with whole files. " * 10
    intro = "".join(f"Rule {i}: write plain Python.\n" for i in range(8))
    samples = [chat_sample(f"t{i}", system, f"{intro}Task {i}: return {i}.", tries=2)
               for i in range(3)]
    page = run_html(load_runs(store, [add_run(store, "c", "exercism", "m", samples)])[0])
    assert page.count(system) == 1 and page.count("Rule 7: write plain Python.") == 1
    assert "<summary>system prompt (the same for every sample)</summary>" in page
    assert page.count("[the run's system prompt, shown above the samples]") == 3
    assert page.count("[the beginning every prompt shares, shown above]\nTask 1: return 1.") == 1
    # try 2 shows only what it added to try 1's messages
    assert page.count("[the first 2 messages: as in the previous try]") == 3
    assert "assistant:\nreply 1\n\nuser:\nFAIL: try 1" in page
    # the code graded is the reply's code block: shown once, in the reply
    assert "<summary>code graded</summary>" not in page


def test_drilldown_counts_tests_that_all_passed(store):
    tests = [TestResult(f"test {i}", Verdict.PASSED) for i in range(5)]
    sample = Sample("type/0", 0, [Attempt(1, Verdict.PASSED, tests=tests)])
    page = run_html(load_runs(store, [add_run(store, "p", "jsonschema", "m", [sample])])[0])
    assert "all 5 tests passed" in page and "<th>test</th>" not in page


def test_edit_bars_of_two_suites_name_their_suite(store):
    exercism = add_run(store, "x", "exercism", "m", [edit_sample("two-fer", 0, 1)])
    runs = load_runs(store, [edit_run(store, "e", "m", [[1]]), exercism])
    assert {r["model"] for r in edit_rows(runs)} == {"m (humaneval-edit)", "m (exercism)"}
    assert {r["model"] for r in edit_rows(runs[:1])} == {"m"}
