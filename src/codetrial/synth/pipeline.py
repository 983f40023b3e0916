"""The synthesis pipeline: seeds -> filter -> instruction -> validation -> YAML cases.

Each stage reads what earlier runs recorded in DIR/synth.sqlite and only does what is left,
so a killed run is resumed by running the same command again.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codetrial.models import Model, ModelOptions, create_model
from codetrial.synth.filtering import Filtered, counts, filter_seeds
from codetrial.synth.instruct import instruct
from codetrial.synth.sources.base import Source, create_source
from codetrial.synth.state import State
from codetrial.synth.validate import validate
from codetrial.synth.writer import write_seed_case

if TYPE_CHECKING:
    from codetrial.sandbox import Sandbox


@dataclass(frozen=True)
class Settings:
    source: str
    out: Path
    author: str | None = None  # None: stop after filtering
    validator: str | None = None  # None: the author validates
    limit: int | None = None  # at most this many seeds go on to the model stages
    functions: tuple[str, ...] = ()  # only these functions (empty: all)
    tries: int = 3  # instruction attempts per seed
    workers: int = 2  # sandbox workers
    concurrency: int = 4  # seeds in flight in the model stages
    base_url: str | None = None  # OpenAI-compatible endpoint for the models
    api_key_env: str | None = None


def environment(source: Source, settings: Settings) -> dict[str, Any]:
    """What the recorded outputs depend on; a resumed run must match it."""
    return {"source": source.spec, "versions": source.versions(),
            "settings": source.settings(), "functions": sorted(settings.functions)}


async def synthesize(settings: Settings, say: Callable[[str], None]) -> dict[str, Any]:
    from codetrial.sandbox import Sandbox

    source = create_source(settings.source)
    source.only = list(settings.functions)
    source.check()
    state = State(settings.out)
    try:
        state.pin(environment(source, settings))
        async with Sandbox(workers=settings.workers) as sandbox:
            results = await filter_stage(state, sandbox, source, say)
            report: dict[str, Any] = {"out": str(settings.out), "filter": counts(results)}
            if settings.author:
                record_run(state, settings)
                kept = [r for r in results if r.kept][: settings.limit]
                await model_stages(state, sandbox, source, settings, kept, say)
                report["cases"] = state.case_counts()
        return report
    finally:
        state.close()


async def filter_stage(state: State, sandbox: Sandbox, source: Source,
                       say: Callable[[str], None]) -> list[Filtered]:
    done = state.filtered()
    if done:
        say(f"filter: reusing {len(done)} judged examples from {state.directory}")
        return done
    seeds = await source.seeds(sandbox)
    if source.only:
        seeds = [s for s in seeds if s.function in source.only]
    say(f"filter: running {len(seeds)} examples twice in the sandbox")
    start = time.perf_counter()
    results = await filter_seeds(sandbox, source, seeds)
    state.save_filtered(results)
    state.put("filter", {"seconds": round(time.perf_counter() - start, 1), **counts(results)})
    return results


def record_run(state: State, settings: Settings) -> None:
    runs = state.get("runs") or []
    runs.append({"at": time.time(), "codetrial": importlib.metadata.version("codetrial"),
                 **{k: str(v) if isinstance(v, Path) else v
                    for k, v in asdict(settings).items()}})
    state.put("runs", runs)


async def model_stages(state: State, sandbox: Sandbox, source: Source, settings: Settings,
                       kept: list[Filtered], say: Callable[[str], None]) -> None:
    options = ModelOptions(base_url=settings.base_url, api_key_env=settings.api_key_env)
    author = create_model(settings.author or "", options)
    validator = create_model(settings.validator, options) if settings.validator else author
    gate = asyncio.Semaphore(settings.concurrency)

    async def one(filtered: Filtered) -> None:
        async with gate:
            await synthesize_case(state, sandbox, source, (author, validator), filtered,
                                  settings.tries)
            say(f"{filtered.seed.id}: {state.case_state(filtered.seed.id)}")

    try:
        for model in (author, validator):
            await model.check()
        await asyncio.gather(*(one(f) for f in kept))
    finally:
        for model in {id(author): author, id(validator): validator}.values():
            await model.aclose()


async def synthesize_case(state: State, sandbox: Sandbox, source: Source,
                          models: tuple[Model, Model], filtered: Filtered, tries: int) -> None:
    seed = filtered.seed
    if state.case_state(seed.id) is not None:
        return
    author, validator = models
    instruction = await instruct(state, author, seed, filtered.output, tries)
    if instruction.text is None:
        state.set_case(seed.id, "no-instruction", note=instruction.verdict)
        return
    result = await validate(state, sandbox, validator, source, seed, instruction.text,
                            filtered.output)
    if result.passed:
        write_seed_case(state, filtered, "passed", "written")
    else:
        state.set_case(seed.id, "review", note=last_line(result.detail)[:300])


def last_line(text: str) -> str:
    """A failure's gist: the last line of its traceback (the exception and its message)."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""
