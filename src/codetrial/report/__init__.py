"""Terminal tables and (later) HTML reports."""
