"""A check by value small enough to read at once, the answer that hangs after a wrong one, and
an executor wrapper that records how each program ended: shared by the tests that judge answers
as they stream out, locally and on Ray."""

from __future__ import annotations

from codetrial.suites.grading import CallCheck

SQUARE = CallCheck(prelude="", entry="sq", reference="def sq(n):\n    return n * n\n",
                   test="def check(candidate):\n"
                        "    assert candidate(3) == 9\n"
                        "    assert candidate(4) == 16\n")
# wrong on the check's first call, then hangs on its second
HANGS_AFTER_A_WRONG_ANSWER = ("import time\ndef sq(n):\n    if n == 4:\n        time.sleep(100)\n"
                              "    return 0\n")


class Counting:
    """An executor (a Sandbox, a RayExecutor), counting the programs graded through it and how
    each ended."""

    def __init__(self, executor) -> None:  # noqa: ANN001
        self.executor, self.ended = executor, []

    async def run(self, program, limits, watch=None):  # noqa: ANN001, ANN201
        outcome = await self.executor.run(program, limits, watch)
        self.ended.append(outcome.status)
        return outcome
