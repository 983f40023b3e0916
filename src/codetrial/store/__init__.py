"""The SQLite run store."""

from codetrial.store.location import home, open_store
from codetrial.store.sqlite import RunRecord, Store, new_run_id

__all__ = ["RunRecord", "Store", "home", "new_run_id", "open_store"]
