"""The runs a report shows: record, summary and samples, each read from the store once."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from codetrial.core import Sample
from codetrial.store import RunRecord, Store

SETTINGS = ("protocol", "samples", "seed", "limit", "reasoning_effort", "thinking_budget",
            "price_in", "price_out")
SAMPLING = ("temperature", "top_p", "max_tokens")  # a run before "sent" was stored: as asked


@dataclass
class RunView:
    record: RunRecord
    summary: dict[str, Any]
    samples: list[Sample]
    label: str  # unique among the report's runs

    @property
    def run_id(self) -> str:
        return self.record.run_id

    @property
    def contender(self) -> str:
        """What answered: the model, or the library a reference run stands for."""
        return str(self.summary.get("contender") or self.record.model)


def load_runs(store: Store, run_ids: list[str]) -> list[RunView]:
    # run_summary lives in the CLI module; imported here so that the CLI can import the report
    from codetrial.metrics.summary import run_summary

    records = [store.get_run(r) for r in run_ids]
    summaries = [run_summary(store, r) for r in run_ids]
    names = [str(s.get("contender") or r.model) for r, s in zip(records, summaries, strict=True)]
    labels = unique_labels(names, run_ids)
    return [RunView(record, summary, store.load_samples(record.run_id), label)
            for record, summary, label in zip(records, summaries, labels, strict=True)]


def unique_labels(names: list[str], run_ids: list[str]) -> list[str]:
    """A name shared by several runs gets its run id, so no two runs fall into one bar."""
    counts = Counter(names)
    return [n if counts[n] == 1 else f"{n} ({r})" for n, r in zip(names, run_ids, strict=True)]


def settings(run: RunView) -> dict[str, Any]:
    """What was chosen for the run: sampling, limits and the suite's own options."""
    config = run.record.config
    chosen = {k: config[k] for k in SETTINGS if config.get(k) is not None}
    sent = config.get("sent")
    if sent is None:
        chosen |= {k: config[k] for k in SAMPLING if config.get(k) is not None}
    else:  # what reached the API, as the backend built it
        chosen |= {f"sent {k}": v for k, v in sent.items()}
    return chosen | dict(config.get("suite_options") or {})
