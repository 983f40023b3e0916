import sqlite3

import pytest

from codetrial.core import Attempt, Sample, TestResult, UsageError, Verdict
from codetrial.store import RunRecord, Store


def make_sample(task: str, index: int, verdict: Verdict) -> Sample:
    attempt = Attempt(1, verdict, request={"prompt": "p"}, reply="r", code="c", output="o",
                      tests=[TestResult("t1", verdict, "m")], prompt_tokens=3,
                      completion_tokens=4, cost_usd=0.5)
    return Sample(task, index, [attempt], details={"k": 1})


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "runs.sqlite")
    s.create_run(RunRecord("r1", "humaneval", "reference", {"samples": 2}))
    yield s
    s.close()


def test_round_trip(store):
    store.save_sample("r1", make_sample("T/0", 0, Verdict.PASSED))
    [loaded] = store.load_samples("r1")
    assert loaded.passed and loaded.details == {"k": 1}
    a = loaded.attempts[0]
    assert (a.request, a.reply, a.code, a.prompt_tokens, a.cost_usd) == ({"prompt": "p"}, "r",
                                                                          "c", 3, 0.5)
    assert a.tests == [TestResult("t1", Verdict.PASSED, "m")]


def test_infra_errors_are_not_finished_and_get_replaced(store):
    store.save_sample("r1", make_sample("T/0", 0, Verdict.INFRA_ERROR))
    store.save_sample("r1", make_sample("T/0", 1, Verdict.FAILED))
    assert store.finished_keys("r1") == {("T/0", 1)}
    store.save_sample("r1", make_sample("T/0", 0, Verdict.PASSED))
    samples = store.load_samples("r1")
    assert [(s.index, s.verdict) for s in samples] == [(0, Verdict.PASSED), (1, Verdict.FAILED)]
    rows = sqlite3.connect(store.path).execute("SELECT COUNT(*) FROM test_results").fetchone()
    assert rows[0] == 2  # the replaced sample's test rows are gone


def test_unknown_run_is_a_usage_error(store):
    with pytest.raises(UsageError, match="unknown run id"):
        store.get_run("nope")


def test_run_record_round_trip(store):
    record = store.get_run("r1")
    assert (record.suite, record.model, record.config, record.finished) == (
        "humaneval", "reference", {"samples": 2}, None)
    store.finish_run("r1")
    assert store.get_run("r1").finished is not None


def test_folding_the_log_leaves_every_sample_in_the_file_alone(store, tmp_path):
    store.save_samples("r1", [(make_sample(f"T/{i}", 0, Verdict.PASSED), False)
                              for i in range(20)])
    log = tmp_path / "runs.sqlite-wal"
    assert log.stat().st_size > 0
    store.fold_log()
    assert log.stat().st_size == 0  # what was in the log is in the file now
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes((tmp_path / "runs.sqlite").read_bytes())  # the file alone, no log
    assert len(Store(copy).finished_keys("r1")) == 20
