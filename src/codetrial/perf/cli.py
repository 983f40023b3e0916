"""`codetrial perf ...`: speed of generated code against reference implementations.

Mounted by the main CLI with `app.add_typer(perf_app, name="perf")`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer

from codetrial.core import UsageError
from codetrial.perf.cases import SIZES, pick_cases
from codetrial.perf.race import Settings, generated_contenders, run_race
from codetrial.perf.stats import race_json, render

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Race generated code against compilers and libraries.")


@app.callback()
def perf() -> None:
    """Speed of generated code against reference implementations."""


def parse_sizes(text: str | None) -> tuple[int, ...]:
    if not text:
        return SIZES
    try:
        sizes = tuple(sorted({int(s) for s in text.split(",") if s.strip()}))
    except ValueError:
        raise UsageError(f"--sizes {text!r}: expected comma-separated integers") from None
    if not sizes or sizes[0] < 1:
        raise UsageError("--sizes: sizes must be at least 1")
    return sizes


@app.command("jsonschema")
def jsonschema_race(
    run_id: Annotated[str | None, typer.Argument(help="Run whose passing validators race.")] = None,
    cases: Annotated[str | None, typer.Option(help="allOf,uniqueItems,oneOf (default all)")] = None,
    sizes: Annotated[str | None, typer.Option(help="Input sizes, e.g. 1,10,100.")] = None,
    point_seconds: Annotated[float, typer.Option(help="Time budget per size and case.")] = 1.0,
    target_spread: Annotated[float, typer.Option(help="Stop when IQR/median is below.")] = 0.05,
    as_json: Annotated[bool, typer.Option("--json", help="Print the data as JSON.")] = False,
    out: Annotated[Path | None, typer.Option(help="Also write the JSON data here.")] = None,
    store_path: Annotated[Path | None, typer.Option("--store", help="Run store.")] = None,
) -> None:
    """Race a run's passing validators against compilers, libraries and hand-written code."""
    from codetrial.store import open_store

    chosen = pick_cases(cases.split(",") if cases else None)
    extra = {}
    if run_id:
        store = open_store(store_path)
        extra = {c.name: generated_contenders(store, run_id, c) for c in chosen}
    settings = Settings(sizes=parse_sizes(sizes), point_seconds=point_seconds,
                        target_spread=target_spread)
    result = asyncio.run(run_race(chosen, extra, settings))
    data = race_json(result) | {"run_id": run_id}
    if out:
        out.write_text(json.dumps(data, indent=1))
    print(json.dumps(data) if as_json else render(result))
