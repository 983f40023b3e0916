"""The run store: one SQLite file, written as samples finish.

Samples are written whole, each with its attempts and test results, in one transaction per
call (a run commits the samples that finish close together at once: runner/batched_writes.py),
so a run killed at any moment holds only whole samples; resuming replaces infra-error samples
and skips the rest.

What survives what: the file is in WAL mode with synchronous=NORMAL, so a commit appends the
samples to the write-ahead log without an fsync. Once save_samples returns, they are in the
operating system's page cache, and they survive the process dying at any instant (SIGKILL, the
OOM killer, a crash in native code): the next open reads them from the log. A power cut or
kernel crash may lose the samples committed since the last checkpoint (never part of one: the
file stays consistent), and resume runs them again. One fsync per sample (synchronous=FULL)
would cover power loss too, at about 6 ms a sample here against 0.3 ms: not worth it for work
that a resume redoes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codetrial.core import Attempt, Sample, TestResult, UsageError, Verdict

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, created REAL, finished REAL, suite TEXT, model TEXT, config TEXT
);
CREATE TABLE IF NOT EXISTS samples (
  run_id TEXT, task_id TEXT, sample_index INTEGER, verdict TEXT, passed INTEGER,
  infra INTEGER, tries INTEGER, details TEXT, finished REAL,
  PRIMARY KEY (run_id, task_id, sample_index)
);
CREATE TABLE IF NOT EXISTS attempts (
  run_id TEXT, task_id TEXT, sample_index INTEGER, try_index INTEGER, verdict TEXT,
  request TEXT, reply TEXT, code TEXT, output TEXT, details TEXT,
  model_seconds REAL, test_seconds REAL, prompt_tokens INTEGER, completion_tokens INTEGER,
  cost_usd REAL, reasoning_tokens INTEGER DEFAULT 0,
  PRIMARY KEY (run_id, task_id, sample_index, try_index)
);
CREATE TABLE IF NOT EXISTS test_results (
  run_id TEXT, task_id TEXT, sample_index INTEGER, try_index INTEGER, position INTEGER,
  name TEXT, verdict TEXT, message TEXT,
  PRIMARY KEY (run_id, task_id, sample_index, try_index, position)
);
"""

_ATTEMPT_COLUMNS = (
    "try_index, verdict, request, reply, code, output, details, model_seconds, test_seconds, "
    "prompt_tokens, completion_tokens, cost_usd, reasoning_tokens"
)
# The same, without the texts (request, reply, code, output) that no figure reads.
_FIGURE_COLUMNS = _ATTEMPT_COLUMNS.replace("request, reply, code, output",
                                           "'null', '', '', ''")
# Columns added since the first stores were written: (table, column, declaration).
_ADDED = (("attempts", "reasoning_tokens", "INTEGER DEFAULT 0"),)


@dataclass
class RunRecord:
    run_id: str
    suite: str
    model: str
    config: dict[str, Any]
    created: float = 0.0
    finished: float | None = None


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + os.urandom(2).hex()


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # closed at exit even if never closed nor freed (say, frozen by gc.freeze()): the last
        # connection's close folds the write-ahead log into the file and removes it
        self._closing = weakref.finalize(self, self._db.close)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._add_new_columns()

    def _add_new_columns(self) -> None:
        """An older store gains the columns this version writes; its rows keep the defaults."""
        for table, column, declaration in _ADDED:
            have = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

    def close(self) -> None:
        self._closing()

    def fold_log(self) -> None:
        """Copy the write-ahead log into the file now and empty it (the close would, with its
        fsyncs: 8 to 15 ms after a run), so that a caller can overlap that wait with another."""
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    # runs -----------------------------------------------------------------
    def create_run(self, run: RunRecord) -> None:
        run.created = run.created or time.time()
        self._db.execute(
            "INSERT INTO runs (run_id, created, suite, model, config) VALUES (?, ?, ?, ?, ?)",
            (run.run_id, run.created, run.suite, run.model, json.dumps(run.config)),
        )

    def get_run(self, run_id: str) -> RunRecord:
        row = self._db.execute(
            "SELECT run_id, suite, model, config, created, finished FROM runs WHERE run_id = ?",
            (run_id,),
        ).fetchone()
        if row is None:
            raise UsageError(f"unknown run id {run_id!r} in {self.path}")
        try:
            config = json.loads(row[3])
        except json.JSONDecodeError:
            message = f"{self.path}: run {run_id}: stored config is not valid JSON"
            raise UsageError(message) from None
        return RunRecord(row[0], row[1], row[2], config, row[4], row[5])

    def list_runs(self) -> list[RunRecord]:
        rows = self._db.execute("SELECT run_id FROM runs ORDER BY created").fetchall()
        return [self.get_run(r[0]) for r in rows]

    def delete_run(self, run_id: str) -> None:
        """A run stopped before it stored anything worth keeping (a refused setting)."""
        with self._transaction():
            for table in ("runs", "samples", "attempts", "test_results"):
                self._db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))

    def finish_run(self, run_id: str) -> None:
        self._db.execute("UPDATE runs SET finished = ? WHERE run_id = ?", (time.time(), run_id))

    # samples --------------------------------------------------------------
    def save_sample(self, run_id: str, sample: Sample, replace: bool = True) -> None:
        """Replace whatever was stored for this sample, atomically. `replace=False` says
        nothing is stored for it yet (three statements fewer; a stored row then makes the
        insert fail, so a wrong claim cannot count a sample twice)."""
        self.save_samples(run_id, [(sample, replace)])

    def save_samples(self, run_id: str, samples: list[tuple[Sample, bool]]) -> None:
        """save_sample for each (sample, replace) pair, all in one transaction: a commit
        costs about as much for ten samples as for one (the log rewrites the same pages)."""
        with self._transaction():
            for sample, replace in samples:
                self._insert_sample(run_id, sample, replace)

    def _insert_sample(self, run_id: str, sample: Sample, replace: bool) -> None:
        key = (run_id, sample.task_id, sample.index)
        for table in ("samples", "attempts", "test_results") if replace else ():
            self._db.execute(
                f"DELETE FROM {table} WHERE run_id=? AND task_id=? AND sample_index=?", key
            )
        self._db.execute(
            "INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*key, sample.verdict.value, int(sample.passed), int(sample.is_infra_error),
             len(sample.attempts), json.dumps(sample.details), time.time()),
        )
        for attempt in sample.attempts:
            self._insert_attempt(key, attempt)

    def _insert_attempt(self, key: tuple[str, str, int], a: Attempt) -> None:
        self._db.execute(
            f"INSERT INTO attempts (run_id, task_id, sample_index, {_ATTEMPT_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*key, a.try_index, a.verdict.value, json.dumps(a.request, default=str), a.reply,
             a.code, a.output, json.dumps(a.details, default=str), a.model_seconds,
             a.test_seconds, a.prompt_tokens, a.completion_tokens, a.cost_usd,
             a.reasoning_tokens),
        )
        self._db.executemany(
            "INSERT INTO test_results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(*key, a.try_index, i, t.name, t.verdict.value, t.message)
             for i, t in enumerate(a.tests)],
        )

    def stored_keys(self, run_id: str) -> set[tuple[str, int]]:
        """Every sample stored for the run, infra errors included."""
        rows = self._db.execute(
            "SELECT task_id, sample_index FROM samples WHERE run_id = ?", (run_id,))
        return {(r[0], r[1]) for r in rows}

    def finished_keys(self, run_id: str) -> set[tuple[str, int]]:
        """Samples that need no more work: everything but infra errors."""
        rows = self._db.execute(
            "SELECT task_id, sample_index FROM samples WHERE run_id = ? AND infra = 0", (run_id,)
        )
        return {(r[0], r[1]) for r in rows}

    def load_samples(self, run_id: str, texts: bool = True) -> list[Sample]:
        """Every stored sample of the run; `texts=False` leaves out each try's request, reply,
        code and output (what a summary of 32,800 samples need not hold)."""
        samples = {
            (r[0], r[1]): Sample(r[0], r[1], details=json.loads(r[2]))
            for r in self._db.execute(
                "SELECT task_id, sample_index, details FROM samples WHERE run_id = ? "
                "ORDER BY task_id, sample_index", (run_id,))
        }
        tests = self._load_tests(run_id)
        for row in self._db.execute(
            f"SELECT task_id, sample_index, {_ATTEMPT_COLUMNS if texts else _FIGURE_COLUMNS} "
            "FROM attempts WHERE run_id = ? "
            "ORDER BY task_id, sample_index, try_index", (run_id,)
        ):
            key = (row[0], row[1])
            if key in samples:
                samples[key].attempts.append(_attempt_from_row(row[2:], tests.get((*key, row[2]))))
        return list(samples.values())

    def _load_tests(self, run_id: str) -> dict[tuple[str, int, int], list[TestResult]]:
        out: dict[tuple[str, int, int], list[TestResult]] = {}
        for r in self._db.execute(
            "SELECT task_id, sample_index, try_index, name, verdict, message FROM test_results "
            "WHERE run_id = ? ORDER BY task_id, sample_index, try_index, position", (run_id,)
        ):
            out.setdefault((r[0], r[1], r[2]), []).append(TestResult(r[3], Verdict(r[4]), r[5]))
        return out

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")


def _attempt_from_row(row: tuple[Any, ...], tests: list[TestResult] | None) -> Attempt:
    (try_index, verdict, request, reply, code, output, details, model_s, test_s, p_tok, c_tok,
     cost, r_tok) = row
    return Attempt(
        try_index=try_index, verdict=Verdict(verdict), request=json.loads(request), reply=reply,
        code=code, output=output, tests=tests or [], details=json.loads(details),
        model_seconds=model_s, test_seconds=test_s, prompt_tokens=p_tok,
        completion_tokens=c_tok, cost_usd=cost, reasoning_tokens=r_tok or 0,
    )
