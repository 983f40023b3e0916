"""One module per suite: where tasks come from and how each is graded."""

from codetrial.suites.base import SUITES, Grade, Suite, create_suite, select_tasks

__all__ = ["SUITES", "Grade", "Suite", "create_suite", "select_tasks"]
