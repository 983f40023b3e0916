"""Progress on long work: a live bar on a terminal, a plain line now and then elsewhere."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codetrial.core import Sample


def note(text: str) -> None:
    """A line for the user on stderr, as it is (a log keeps it whole: no wrapping)."""
    print(text, file=sys.stderr, flush=True)


class Tally:
    """The running pass rate (infra errors left out) and the API limiter's state."""

    def __init__(self, limiter: Any = None) -> None:
        self.limiter, self.done, self.passed, self.graded = limiter, 0, 0, 0

    def add(self, sample: Sample) -> None:
        self.done += 1
        if not sample.is_infra_error:
            self.graded += 1
            self.passed += sample.passed

    @property
    def rate(self) -> str:
        return f"{self.passed / self.graded:.1%}" if self.graded else "-"

    @property
    def api(self) -> str:
        return str(self.limiter.state()) if self.limiter is not None else ""


@contextmanager
def progress_bar(total: int, limiter: Any = None) -> Iterator[Callable[[Sample], None]]:
    """A live bar with ETA on a terminal; elsewhere (a log, a pipe) a plain line now and
    then and one at the end, which needs neither rich nor a refresh thread."""
    tally = Tally(limiter)
    display = _live_bar if sys.stderr.isatty() else _progress_lines
    with display(total, tally) as update:
        def on_sample(sample: Sample) -> None:
            tally.add(sample)
            update()

        yield on_sample


@contextmanager
def _live_bar(total: int, tally: Tally) -> Iterator[Callable[[], None]]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("pass {task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
               TextColumn("{task.fields[api]}"))
    with Progress(*columns, console=Console(stderr=True)) as progress:
        bar = progress.add_task("samples", total=total, rate="-", api="")
        yield lambda: progress.update(bar, advance=1, rate=tally.rate, api=tally.api)


PLAIN_PROGRESS_SECONDS = 10.0


@contextmanager
def _progress_lines(total: int, tally: Tally) -> Iterator[Callable[[], None]]:
    start = last = time.monotonic()

    def line() -> str:
        return (f"samples {tally.done}/{total} pass {tally.rate} "
                f"{time.monotonic() - start:.0f}s {tally.api}").rstrip()

    def update() -> None:
        nonlocal last
        if time.monotonic() - last >= PLAIN_PROGRESS_SECONDS:
            last = time.monotonic()
            note(line())

    yield update
    note(line())


