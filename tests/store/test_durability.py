"""A sample whose save returned survives SIGKILL of the process that saved it, and a sample
whose transaction was cut short leaves nothing behind."""

from __future__ import annotations

import signal
import subprocess
import sys

from codetrial.store import Store

SAVE_THEN_DIE = """
import os, signal, sys
from codetrial.core import Attempt, Sample, TestResult, Verdict
from codetrial.store import RunRecord, Store
store = Store(__import__("pathlib").Path(sys.argv[1]))
store.create_run(RunRecord("r1", "humaneval", "reference", {}))
for i in range(20):
    attempt = Attempt(1, Verdict.PASSED, code="x" * 5000, tests=[TestResult("t", Verdict.PASSED)])
    store.save_sample("r1", Sample(f"T/{i}", 0, [attempt]))
# the 21st sample is killed halfway through its transaction
store._db.execute("BEGIN IMMEDIATE")
store._db.execute("INSERT INTO samples (run_id, task_id, sample_index) VALUES ('r1', 'T/20', 0)")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_saved_samples_survive_sigkill_and_a_cut_transaction_leaves_nothing(tmp_path):
    db = tmp_path / "runs.sqlite"
    done = subprocess.run([sys.executable, "-c", SAVE_THEN_DIE, str(db)], timeout=120)
    assert done.returncode == -signal.SIGKILL
    store = Store(db)
    samples = store.load_samples("r1")
    assert sorted(s.task_id for s in samples) == sorted(f"T/{i}" for i in range(20))
    assert all(s.passed and s.attempts[0].tests for s in samples)
    assert store.finished_keys("r1") == {(f"T/{i}", 0) for i in range(20)}


FROZEN_THEN_EXIT = """
import gc, sys
from pathlib import Path
from codetrial.core import Attempt, Sample, Verdict
from codetrial.store import RunRecord, Store
gc.disable()
store = Store(Path(sys.argv[1]))
store.cycle = store  # freed only by the cyclic collector, which is off, then frozen out
store.create_run(RunRecord("r1", "humaneval", "reference", {}))
store.save_sample("r1", Sample("T/0", 0, [Attempt(1, Verdict.PASSED)]))
del store
gc.freeze()
"""


def test_a_store_never_closed_nor_freed_is_closed_at_exit(tmp_path):
    """As a run whose command froze the collector leaves it: the log is folded in and gone."""
    db = tmp_path / "runs.sqlite"
    subprocess.run([sys.executable, "-c", FROZEN_THEN_EXIT, str(db)], timeout=120, check=True)
    assert not db.with_name("runs.sqlite-wal").exists()
    assert [s.task_id for s in Store(db).load_samples("r1")] == ["T/0"]
