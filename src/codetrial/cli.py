"""The command line: run, report, doctor."""

import functools
import gc
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from codetrial.core import UsageError
from codetrial.lazy_commands import LazyGroup, lazy_groups
from codetrial.report.progress import note
from codetrial.runner.defaults import DEFAULT_WORKERS

if TYPE_CHECKING:  # imported by the commands that use them: `--help` needs none of them
    from rich.console import Console

    from codetrial.core import Sample
    from codetrial.runner import RunConfig
    from codetrial.store import Store

GROUPS = {
    "perf": LazyGroup("codetrial.perf.cli", "Speed of generated code against peers."),
    "synth": LazyGroup("codetrial.synth.cli", "Synthesize test cases from library documentation."),
}
app = typer.Typer(cls=lazy_groups(GROUPS), add_completion=False, pretty_exceptions_enable=False,
                  no_args_is_help=True, help="Evaluate code-writing language models in a sandbox.")


@functools.cache
def console() -> "Console":
    """rich, for what is printed on stdout (summaries, tables): imported only by the commands
    that print them."""
    from rich.console import Console

    return Console()


StoreOpt = Annotated[Path | None, typer.Option("--store", help="Run store (SQLite file).")]


def open_store(path: Path | None) -> "Store":
    import sqlite3

    from codetrial.store import open_store as open_path

    try:
        return open_path(path)
    except (OSError, sqlite3.Error) as exc:
        where = f"--store {path}" if path else "the run store"
        raise UsageError(f"{where}: cannot be opened ({exc})") from None


def parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option {pair!r}: expected KEY=VALUE")
        options[key] = value
    return options


@app.command()
def run(
    suite: Annotated[str | None, typer.Argument(help="Suite name, e.g. humaneval.")] = None,
    model: Annotated[str, typer.Option(
        help="local, local:PATH, openai:NAME, anthropic:NAME, hf:PATH, reference")] = "local",
    protocol: Annotated[str | None, typer.Option(
        help="completion, chat, edit, agent, fim or fill-chat (default: the suite's)")] = None,
    mode: Annotated[str | None, typer.Option(help="yaml cases: fim or chat")] = None,
    fim_format: Annotated[str | None, typer.Option(help="FIM family (default: from name)")] = None,
    header: Annotated[str | None, typer.Option(help="Line put before an infill context.")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N tasks.")] = None,
    tasks: Annotated[str | None, typer.Option(help="Comma-separated task ids.")] = None,
    samples: Annotated[int, typer.Option("-n", "--samples", help="Samples per task.")] = 1,
    repeat: Annotated[int | None, typer.Option(help="Repeat the whole run R times.")] = None,
    temperature: Annotated[float | None, typer.Option(
        help="Default: greedy where the model allows it, else the model's own.")] = None,
    top_p: Annotated[float | None, typer.Option(help="Default: not sent.")] = None,
    max_tokens: Annotated[int | None, typer.Option(
        help="Output budget, reasoning included (default: the protocol's, never cutting a "
             "capable model short).")] = None,
    reasoning_effort: Annotated[str | None, typer.Option(
        help="low, medium or high (OpenAI reasoning_effort; Anthropic effort).")] = None,
    thinking_budget: Annotated[int | None, typer.Option(
        help="Anthropic extended thinking: budget_tokens (>= 1024).")] = None,
    price_in: Annotated[float | None, typer.Option(
        help="USD per million input tokens (default: the genai-prices list).")] = None,
    price_out: Annotated[float | None, typer.Option(
        help="USD per million output tokens (default: the genai-prices list).")] = None,
    seed: int | None = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Env var holding the key.")] = None,
    request_timeout: Annotated[float, typer.Option(help="Seconds per model call.")] = 120.0,
    max_attempts: Annotated[int, typer.Option(
        help="API models: tries per model call (retries back off) before it is an infra "
             "error, which --resume tries again.")] = 8,
    concurrency: Annotated[int, typer.Option(
        help="Model calls in flight (API models: the limiter's starting level).")] = 4,
    max_concurrency: Annotated[int | None, typer.Option(
        help="API models: the most the limiter may rise to.")] = None,
    workers: Annotated[int, typer.Option(
        help="Warm sandbox workers (local executor; on Ray each node uses its CPUs).")
    ] = DEFAULT_WORKERS,
    executor: Annotated[str, typer.Option(help="local or ray")] = "local",
    ray_address: Annotated[str | None, typer.Option(
        help="Ray cluster: auto or HOST:6379 (default: start a local instance).")] = None,
    path: Annotated[Path | None, typer.Option(help="Suite data directory.")] = None,
    edit_format: Annotated[str | None, typer.Option(help="whole, diff, udiff, *-func")] = None,
    tries: Annotated[int | None, typer.Option(
        help="Edit tries (default 2; the agent protocol: 1).")] = None,
    max_steps: Annotated[int | None, typer.Option(
        help="Agent: tool calls per try (default 30).")] = None,
    max_try_tokens: Annotated[int | None, typer.Option(
        help="Agent: tokens in and out per try (default 200000).")] = None,
    max_try_seconds: Annotated[float | None, typer.Option(
        help="Agent: wall time per try (default 900).")] = None,
    exercises: Annotated[str | None, typer.Option(help="Comma-separated exercises.")] = None,
    languages: Annotated[str | None, typer.Option(
        help="Exercism: comma-separated languages (cpp,go,java,javascript,python,rust).")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o", help="Suite KEY=VALUE.")] = [],  # noqa: B006,E501
    resume: Annotated[str | None, typer.Option(help="Continue a killed run.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Skip the reply cache.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    store_path: StoreOpt = None,
) -> None:
    """Evaluate a model on a suite (or resume a run), storing every sample as it finishes."""
    from codetrial.runner import RunConfig, early

    store = open_store(store_path) if resume else None
    if resume and store.get_run(resume).config.get("imported_from"):
        path, suite = imported_run(store, resume, None)
        show(store, run_import(store, path, suite, workers, resume), as_json)
        return
    if resume:
        stored = store.get_run(resume).config
        config = RunConfig.from_dict(stored | {"executor": executor,
                                                "ray_address": ray_address})
    elif suite is None:
        raise UsageError("name a suite (e.g. humaneval) or pass --resume RUN_ID")
    else:
        named = {"path": str(path) if path else None, "edit_format": edit_format,
                 "tries": tries, "exercises": exercises, "languages": languages,
                 "max_steps": max_steps, "max_try_tokens": max_try_tokens,
                 "max_try_seconds": max_try_seconds,
                 "fim_format": fim_format,
                 "header": header}
        suite_options = parse_options(option) | {k: v for k, v in named.items() if v is not None}
        config = RunConfig(
            suite=suite, model=model, protocol=protocol or protocol_for_mode(mode),
            suite_options=suite_options,
            base_url=base_url, api_key_env=api_key_env, samples=repeat or samples,
            temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
            reasoning_effort=reasoning_effort, thinking_budget=thinking_budget,
            price_in=price_in, price_out=price_out,
            task_ids=tasks.split(",") if tasks else None, limit=limit,
            concurrency=concurrency, max_concurrency=max_concurrency, sandbox_workers=workers,
            executor=executor, ray_address=ray_address, cache=not no_cache,
            request_timeout=request_timeout, max_attempts=max_attempts,
        )
    early.begin(config)  # the sandbox starts while the rest is imported
    import asyncio

    store = store or open_store(store_path)
    try:
        run_id = asyncio.run(run_async(store, config, resume))
    except KeyboardInterrupt:
        note("interrupted: resume with  codetrial run --resume RUN_ID (see codetrial report)")
        raise typer.Exit(130) from None
    show(store, run_id, as_json)


def protocol_for_mode(mode: str | None) -> str | None:
    """`--mode fim|chat` is the infill study's wording for the fim and fill-chat protocols."""
    if mode is None:
        return None
    modes = {"fim": "fim", "chat": "fill-chat"}
    if mode not in modes:
        raise UsageError(f"--mode {mode!r}: use fim or chat")
    return modes[mode]


async def run_async(store: "Store", config: "RunConfig", resume: str | None) -> str:
    """One event loop for the whole run: API clients are bound to the loop that made them."""
    from codetrial.runner import execute, pending, prepare, start_run
    from codetrial.store import home

    plan = await prepare(config, home() / "cache.sqlite" if config.cache else None)
    run_id = resume
    try:
        run_id = run_id or start_run(store, plan)
        work = pending(store, run_id, plan)
        note(f"run {run_id}: {config.suite} x {plan.model.name}, "
             f"{len(plan.tasks)} tasks x {config.samples} samples, {len(work)} to do")
        from codetrial.report.progress import progress_bar

        with progress_bar(len(work), plan.limiter) as on_sample:
            gc.freeze()  # what start-up made stays: later collections need not look at it
            gc.enable()
            await execute(store, run_id, plan, work, on_sample)
    except UsageError:  # the API refused a setting: a new run that stored nothing is dropped
        if run_id and not resume and not store.stored_keys(run_id):
            store.delete_run(run_id)
        raise
    finally:
        await plan.aclose()  # the model, and the executor if the run never started
    return run_id


def show(store: "Store", run_id: str, as_json: bool) -> None:
    from codetrial.metrics.summary import run_summary

    summary = run_summary(store, run_id)
    if as_json:
        print(json.dumps(summary))
    else:
        from codetrial.report.terminal import print_summary

        print_summary(summary, console())


@app.command()
def report(
    run_ids: Annotated[list[str], typer.Argument(help="Run ids.")],
    as_json: Annotated[bool, typer.Option("--json")] = False,
    html_path: Annotated[Path | None, typer.Option(
        "--html", help="Write one self-contained HTML report (charts, samples) here.")] = None,
    png_dir: Annotated[Path | None, typer.Option(
        "--png", help="With --html: also write each chart as DIR/NAME.png.")] = None,
    perf: Annotated[list[Path], typer.Option(
        "--perf", help="With --html: chart a `codetrial perf --out` file (repeatable).")] = [],  # noqa: B006
    store_path: StoreOpt = None,
) -> None:
    """Print the results of stored runs again, or write them as an HTML report."""
    store = open_store(store_path)
    if (png_dir or perf) and not html_path:
        raise UsageError("--png and --perf go with --html FILE")
    if html_path:
        from codetrial.report.html_report import write_html_report

        write_html_report(store, run_ids, html_path, png_dir=png_dir, perf_files=perf)
        note(f"wrote {html_path}" + (f" and charts as PNG in {png_dir}" if png_dir else ""))
        return
    for run_id in run_ids:
        show(store, run_id, as_json)


@app.command()
def compare(
    run_a: Annotated[str, typer.Argument(help="Baseline run id.")],
    run_b: Annotated[str, typer.Argument(help="Run to compare with it.")],
    as_json: Annotated[bool, typer.Option("--json")] = False,
    store_path: StoreOpt = None,
) -> None:
    """Paired comparison on shared (task, sample) pairs: difference, interval, McNemar, flips."""
    from codetrial.metrics.paired import compare as paired
    from codetrial.report.terminal import print_comparison

    store = open_store(store_path)
    result = paired(store.load_samples(run_a), store.load_samples(run_b))
    if as_json:
        print(json.dumps({"run_a": run_a, "run_b": run_b, "pairs": result.pairs,
                          "rate_a": result.rate_a, "rate_b": result.rate_b,
                          "difference": result.difference.as_dict(), "p_value": result.p_value,
                          "a_only": result.a_only, "b_only": result.b_only}))
    else:
        print_comparison(run_a, run_b, result, console())


@app.command()
def export(
    run_id: Annotated[str, typer.Argument(help="Run id.")],
    fmt: Annotated[str, typer.Option("--format", help="jsonl, csv or humaneval")] = "jsonl",
    output: Annotated[Path | None, typer.Option("--out", help="File (default stdout).")] = None,
    store_path: StoreOpt = None,
) -> None:
    """Write a stored run out for other tools."""
    from codetrial.store.export import export as render
    from codetrial.suites import create_suite

    store = open_store(store_path)
    record = store.get_run(run_id)
    prompts: dict[str, str] = {}
    if fmt == "humaneval":
        suite = create_suite(record.suite, record.config.get("suite_options", {}))
        prompts = {t.id: t.prompt for t in suite.load_tasks()}
    text = render(store.load_samples(run_id), fmt, prompts)
    if output:
        write_atomically(output, text)
    else:
        sys.stdout.write(text)


@app.command("import")
def import_(
    samples_file: Annotated[Path | None, typer.Argument(
        help="JSONL of {task_id, completion} (with --resume: the run's own file).")] = None,
    suite: Annotated[str, typer.Option(help="Suite the task ids belong to.")] = "humaneval",
    workers: Annotated[int, typer.Option(help="Warm sandbox workers.")] = DEFAULT_WORKERS,
    resume: Annotated[str | None, typer.Option(help="Continue a killed import.")] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="Suite KEY=VALUE (test_timeout=S).")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    store_path: StoreOpt = None,
) -> None:
    """Grade completions made elsewhere, as a new run (or finish a killed one)."""
    store = open_store(store_path)
    if resume:
        samples_file, suite = imported_run(store, resume, samples_file)
    elif samples_file is None:
        raise UsageError("name a samples file (JSONL of {task_id, completion})")
    run_id = run_import(store, samples_file, suite, workers, resume, parse_options(option or []))
    show(store, run_id, as_json)


def imported_run(store: "Store", run_id: str, given: Path | None) -> tuple[Path, str]:
    """The file and suite a stored import came from (a file given must be that one)."""
    record = store.get_run(run_id)
    origin = record.config.get("imported_from")
    if not origin:
        raise UsageError(f"--resume {run_id}: not an import (resume it with codetrial run)")
    if given is not None and given.resolve() != Path(origin):
        raise UsageError(f"--resume {run_id}: the run imported {origin}, not {given}")
    return Path(origin), record.suite


def run_import(store: "Store", path: Path, suite: str, workers: int,
               resume: str | None, options: dict[str, Any] | None = None) -> str:
    import asyncio
    from contextlib import ExitStack

    from codetrial.runner.importer import import_samples

    with ExitStack() as stack:
        def started(run_id: str, todo: int) -> Callable[["Sample"], None]:
            note(f"import {run_id}: {path.name}, {todo} samples to grade")
            from codetrial.report.progress import progress_bar

            gc.freeze()  # as `run` does: start-up's objects stay, and grading's cycles (each
            gc.enable()  # failed check's traceback holds its frames) are collected as they come
            return stack.enter_context(progress_bar(todo))

        try:
            return asyncio.run(import_samples(store, path, suite, workers, resume, started,
                                              options))
        except KeyboardInterrupt:
            note("interrupted: resume with  codetrial run --resume RUN_ID "
                 "(see codetrial report)")
            raise typer.Exit(130) from None


def write_atomically(path: Path, text: str) -> None:
    """No half-written output: write beside the target, then rename over it."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


@app.command()
def doctor(
    runtime_only: Annotated[bool, typer.Option(
        "--runtime-only", help="Only check that the embedded model generates.")] = False,
) -> None:
    """Check the sandbox, the embedded model's runtime (it must generate, in a child process),
    the store. Exits 1 when a check that a run needs fails."""
    from codetrial.doctor import checks, runtime_checks
    from codetrial.store import home

    results = runtime_checks() if runtime_only else checks(home())
    for check in results:
        colour, word = ("green", "ok  ") if check.ok else (
            ("red", "FAIL") if check.required else ("yellow", "warn"))
        console().print(f"[{colour}]{word}[/] {check.name}: {check.detail}", highlight=False,
                        soft_wrap=True)
    if any(c.required and not c.ok for c in results):
        raise typer.Exit(1)


def main() -> None:
    # No cyclic collection while the command imports (most of a short run's collections, and
    # nothing to free): `run` freezes what it imported and turns the collector on before the
    # samples run.
    gc.disable()
    try:
        app()
    except UsageError as exc:
        print(f"codetrial: error: {exc}", file=sys.stderr)
        sys.exit(2)
    finally:
        gc.enable()
