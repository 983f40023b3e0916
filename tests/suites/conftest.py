"""Fixtures shared by the suite tests."""

from __future__ import annotations

import pytest

from codetrial.suites.humaneval import HumanEval, call_check


@pytest.fixture(scope="module")
def checks():
    """The first three HumanEval checks."""
    return [call_check(t) for t in HumanEval({}).load_tasks()[:3]]
