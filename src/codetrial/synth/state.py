"""The pipeline's state and provenance, in DIR/synth.sqlite.

Every stage writes its results here as it goes, so a killed run resumes where it stopped:
the filter's verdict per seed, each prompt sent and reply received (with the model and its
sampling), and each case's state (written, review, accepted, rejected). The settings of the
first run are kept; resuming in a different environment (another engine version) is refused,
since the outputs recorded so far would no longer hold.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from codetrial.core import UsageError
from codetrial.synth.filtering import Filtered
from codetrial.synth.seeds import Seed

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS seeds (
  id TEXT PRIMARY KEY, ord INTEGER, function TEXT, seed TEXT, reason TEXT, output TEXT,
  detail TEXT);
CREATE TABLE IF NOT EXISTS steps (
  seed_id TEXT, stage TEXT, try INTEGER, model TEXT, request TEXT, reply TEXT, result TEXT,
  verdict TEXT, at REAL, PRIMARY KEY (seed_id, stage, try));
CREATE TABLE IF NOT EXISTS cases (
  seed_id TEXT PRIMARY KEY, state TEXT, file TEXT, note TEXT, at REAL);
"""
STATE_FILE = "synth.sqlite"


class State:
    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.db = sqlite3.connect(directory / STATE_FILE, isolation_level=None)
        self.db.executescript(SCHEMA)

    @classmethod
    def existing(cls, directory: Path) -> State:
        if not (directory / STATE_FILE).is_file():
            raise UsageError(f"{directory}: no synthesis here (no {STATE_FILE})")
        return cls(directory)

    def close(self) -> None:
        self.db.close()

    # provenance ---------------------------------------------------------
    def get(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def pin(self, environment: dict[str, Any]) -> None:
        """Record the environment on the first run; refuse to continue in another one."""
        recorded = self.get("environment")
        if recorded is None:
            self.put("environment", environment)
        elif recorded != environment:
            raise UsageError(f"{self.directory}: made with {recorded}, now {environment}; "
                             "use a new --out directory")

    # seeds --------------------------------------------------------------
    def save_filtered(self, results: list[Filtered]) -> None:
        rows = [(r.seed.id, order, r.seed.function, json.dumps(r.seed.to_json()), r.reason,
                 json.dumps(r.output), r.detail) for order, r in enumerate(results)]
        self.db.execute("BEGIN")
        self.db.executemany("INSERT OR REPLACE INTO seeds VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        self.db.execute("COMMIT")

    def filtered(self) -> list[Filtered]:
        rows = self.db.execute(
            "SELECT seed, reason, output, detail FROM seeds ORDER BY ord").fetchall()
        return [Filtered(Seed.from_json(json.loads(s)), reason, json.loads(o), d)
                for s, reason, o, d in rows]

    def seed(self, seed_id: str) -> Filtered:
        match = [f for f in self.filtered() if f.seed.id == seed_id]
        if not match:
            raise UsageError(f"{self.directory}: no case {seed_id!r}")
        return match[0]

    # model steps --------------------------------------------------------
    def record_step(self, seed_id: str, stage: str, try_index: int, model: str,
                    request: dict[str, Any], reply: str, result: Any, verdict: str) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO steps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (seed_id, stage, try_index, model, json.dumps(request), reply, json.dumps(result),
             verdict, time.time()))

    def steps(self, seed_id: str, stage: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT try, model, request, reply, result, verdict FROM steps "
            "WHERE seed_id = ? AND stage = ? ORDER BY try", (seed_id, stage)).fetchall()
        return [{"try": t, "model": m, "request": json.loads(q), "reply": r,
                 "result": json.loads(res), "verdict": v} for t, m, q, r, res, v in rows]

    # cases --------------------------------------------------------------
    def set_case(self, seed_id: str, state: str, file: str = "", note: str = "") -> None:
        self.db.execute("INSERT OR REPLACE INTO cases VALUES (?, ?, ?, ?, ?)",
                        (seed_id, state, file, note, time.time()))

    def case_state(self, seed_id: str) -> str | None:
        row = self.db.execute("SELECT state FROM cases WHERE seed_id = ?", (seed_id,)).fetchone()
        return row[0] if row else None

    def cases(self, state: str | None = None) -> list[tuple[str, str, str]]:
        """(seed id, state, note), in seed order."""
        query = ("SELECT c.seed_id, c.state, c.note FROM cases c JOIN seeds s ON s.id = c.seed_id"
                 + (" WHERE c.state = ?" if state else "") + " ORDER BY s.ord")
        return self.db.execute(query, (state,) if state else ()).fetchall()

    def case_counts(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT state, COUNT(*) FROM cases GROUP BY state"))
