"""Terminal tables (terminal.py) and the self-contained HTML report (html_report.py)."""
