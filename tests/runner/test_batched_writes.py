"""Samples that finish close together share one commit, and none is reported before it is
stored; a failed commit stops the run instead of losing samples quietly."""

from __future__ import annotations

import asyncio

import pytest

from codetrial.core import Attempt, Sample, Verdict
from codetrial.runner.batched_writes import COMMIT_SECONDS, MAX_BATCH, BatchedWrites
from codetrial.store import RunRecord, Store


class CountingStore(Store):
    """A real SQLite store that also keeps the size of every commit of samples."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.commits: list[int] = []

    def save_samples(self, run_id: str, samples: list[tuple[Sample, bool]]) -> None:
        super().save_samples(run_id, samples)
        self.commits.append(len(samples))


@pytest.fixture
def store(tmp_path):
    store = CountingStore(tmp_path / "runs.sqlite")
    store.create_run(RunRecord("r1", "humaneval", "reference", {}))
    yield store
    store.close()


def sample(i: int) -> Sample:
    return Sample(f"T/{i}", 0, [Attempt(1, Verdict.PASSED)])


def test_samples_that_finish_together_share_one_commit_and_are_reported_once_stored(store):
    reported: list[str] = []

    def on_sample(done: Sample) -> None:  # the progress line: only what the store holds
        assert (done.task_id, 0) in store.stored_keys("r1")
        reported.append(done.task_id)

    async def run() -> None:
        writes = BatchedWrites(store, "r1", on_sample)
        for i in range(5):
            writes.add(sample(i), replace=False)
            await asyncio.sleep(0)
        assert reported == [] and store.commits == []  # not yet: others may still come
        await asyncio.sleep(COMMIT_SECONDS * 4)
        assert store.commits == [5]
        writes.add(sample(5), replace=False)
        writes.flush()  # the run's end: no waiting

    asyncio.run(run())
    assert store.commits == [5, 1]
    assert reported == [f"T/{i}" for i in range(6)]


def test_a_full_batch_is_committed_at_once(store):
    async def run() -> None:
        writes = BatchedWrites(store, "r1", lambda s: None)
        for i in range(MAX_BATCH + 1):
            writes.add(sample(i), replace=False)
        assert store.commits == [MAX_BATCH]
        writes.flush()

    asyncio.run(run())
    assert store.commits == [MAX_BATCH, 1]
    assert len(store.finished_keys("r1")) == MAX_BATCH + 1


def test_a_replaced_sample_is_stored_once(store):
    store.save_sample("r1", Sample("T/0", 0, [Attempt(1, Verdict.INFRA_ERROR)]))

    async def run() -> None:
        writes = BatchedWrites(store, "r1", lambda s: None)
        writes.add(sample(0), replace=True)
        writes.flush()

    asyncio.run(run())
    [stored] = store.load_samples("r1")
    assert stored.passed and store.finished_keys("r1") == {("T/0", 0)}


def test_a_commit_that_fails_on_the_timer_is_raised_to_the_run(store):
    async def run() -> None:
        writes = BatchedWrites(store, "r1", lambda s: None)
        writes.add(sample(0), replace=False)
        store._db.close()  # the next commit fails
        await asyncio.sleep(COMMIT_SECONDS * 4)
        with pytest.raises(Exception, match="closed database"):
            writes.add(sample(1), replace=False)
        with pytest.raises(Exception, match="closed database"):
            writes.flush()

    asyncio.run(run())
