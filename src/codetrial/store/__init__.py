"""The SQLite run store."""

from codetrial.store.sqlite import RunRecord, Store, new_run_id

__all__ = ["RunRecord", "Store", "new_run_id"]
