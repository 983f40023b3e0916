"""The SQLite run store.

Its names are imported on first use: a sandbox start needs only `location`, and the store
module with sqlite3 would cost it 10 ms more."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codetrial.core import lazy

if TYPE_CHECKING:
    from codetrial.store.location import home, open_store
    from codetrial.store.sqlite import RunRecord, Store, new_run_id

__all__ = ["RunRecord", "Store", "home", "new_run_id", "open_store"]
__getattr__ = lazy.exports(__name__, {
    "home": "location", "open_store": "location", "RunRecord": "sqlite", "Store": "sqlite",
    "new_run_id": "sqlite"})
