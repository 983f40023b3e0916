"""`codetrial synth SOURCE ...` and `codetrial synth review DIR ...`.

The sub-app is mounted by the main command line; `synth SOURCE` is short for `synth make SOURCE`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from rich.console import Console
from typer.core import TyperGroup

from codetrial.core import InfraError, UsageError
from codetrial.synth import review as queue
from codetrial.synth.pipeline import Settings, synthesize
from codetrial.synth.state import State

err = Console(stderr=True)


class _DefaultsToMake(TyperGroup):
    """`synth duckdb ...` runs `synth make duckdb ...`; `synth review ...` stays a command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["make", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(cls=_DefaultsToMake, no_args_is_help=True, add_completion=False,
                  help="Synthesize test cases from a library's documentation "
                  "(`synth SOURCE ...` is short for `synth make SOURCE ...`).")


@app.command()
def make(
    source: Annotated[str, typer.Argument(help="duckdb, spark or python:MODULE")],
    out_dir: Annotated[Path, typer.Option("--out", help="Directory for cases and state.")],
    author_model: Annotated[str | None, typer.Option(
        help="Model that writes instructions; without it only the filter runs.")] = None,
    validator_model: Annotated[str | None, typer.Option(
        help="Model that validates instructions (default: the author).")] = None,
    limit: Annotated[int | None, typer.Option(help="Seeds sent to the models, at most.")] = None,
    functions: Annotated[str | None, typer.Option(help="Comma-separated function names.")] = None,
    tries: Annotated[int, typer.Option(help="Instruction attempts per seed.")] = 3,
    workers: Annotated[int, typer.Option(help="Warm sandbox workers.")] = 2,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Env var holding the key.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Filter documented examples into seeds, then write instructions and validate them."""
    if limit is not None and limit < 1:
        raise UsageError("--limit must be at least 1")
    settings = Settings(source=source, out=out_dir, author=author_model,
                        validator=validator_model, limit=limit, tries=tries, workers=workers,
                        functions=tuple(f for f in (functions or "").split(",") if f),
                        base_url=base_url, api_key_env=api_key_env)
    try:
        report = asyncio.run(synthesize(settings, lambda line: err.print(line, highlight=False)))
    except InfraError as exc:  # a model or the sandbox failed: what was done is kept
        err.print(f"codetrial: {exc} (run the same command again to resume)", markup=False)
        raise typer.Exit(1) from None
    if as_json:
        print(json.dumps(report))
    else:
        print_report(report)


def print_report(report: dict[str, Any]) -> None:
    f = report["filter"]
    dropped = ", ".join(f"{reason} {n}" for reason, n in f["dropped"].items())
    typer.echo(f"filter: {f['examples']} examples of {f['functions']} functions")
    typer.echo(f"  dropped: {dropped}")
    typer.echo(f"  kept: {f['kept_examples']} examples of {f['kept_functions']} functions")
    if "cases" in report:
        cases = ", ".join(f"{state} {n}" for state, n in sorted(report["cases"].items()))
        typer.echo(f"cases: {cases or 'none'}  (in {report['out']})")


@app.command()
def review(
    directory: Annotated[Path, typer.Argument(help="The --out directory of a synthesis.")],
    action: Annotated[str, typer.Argument(help="list, show, accept or reject")] = "list",
    case_id: Annotated[str | None, typer.Argument(help="Case id (for show/accept/reject).")]
    = None,
) -> None:
    """List the cases waiting for review, show one, accept or reject it."""
    state = State.existing(directory)
    try:
        if action == "list":
            for seed_id, note in queue.queue(state):
                typer.echo(f"{seed_id}\t{note}")
            return
        if action not in ("show", "accept", "reject"):
            raise UsageError(f"review action {action!r}: use list, show, accept or reject")
        if not case_id:
            raise UsageError(f"review {action} needs a case id (see: synth review DIR list)")
        if action == "show":
            typer.echo(queue.show(state, case_id))
        elif action == "accept":
            typer.echo(f"accepted: wrote {queue.accept(state, case_id)}")
        else:
            queue.reject(state, case_id)
            typer.echo(f"rejected: {case_id}")
    finally:
        state.close()
