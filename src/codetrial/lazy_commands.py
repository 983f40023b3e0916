"""Sub-command groups that are imported only when a command line names them.

`codetrial --help` lists `perf` and `synth` from a name and a help line; `codetrial perf ...`
imports codetrial.perf.cli then. So `codetrial run` and `codetrial --help` do not pay for what
perf and synth import.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from typer import main as typer_main
from typer.core import TyperGroup


@dataclass(frozen=True)
class LazyGroup:
    module: str  # a module whose `app` is a typer.Typer
    help: str


def lazy_groups(groups: dict[str, LazyGroup]) -> type[TyperGroup]:
    """A TyperGroup class (for `typer.Typer(cls=...)`) that mounts `groups` on first use."""

    class Lazy(TyperGroup):
        def list_commands(self, ctx: Any) -> list[str]:
            listed = super().list_commands(ctx)
            return [*listed, *(name for name in groups if name not in listed)]

        def get_command(self, ctx: Any, name: str) -> Any:
            if name in groups and name not in self.commands:  # for the help listing only
                return TyperGroup(name=name, help=groups[name].help)
            return super().get_command(ctx, name)

        def resolve_command(self, ctx: Any, args: list[str]) -> Any:
            if args and args[0] in groups and args[0] not in self.commands:
                self.add_command(_load(args[0], groups[args[0]]), args[0])
            return super().resolve_command(ctx, args)

    return Lazy


def _load(name: str, group: LazyGroup) -> TyperGroup:
    command = typer_main.get_group(importlib.import_module(group.module).app)
    command.name, command.help = name, group.help
    return command
