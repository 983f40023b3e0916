"""Everything that defines a run; stored with it so `--resume` rebuilds the same run.

A plain dataclass checked on construction: pydantic took a tenth of a second to import and a
thirtieth to build this class, for twenty fields."""

from __future__ import annotations

import operator
import reprlib
from dataclasses import asdict, dataclass, field, fields
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from codetrial.core.errors import UsageError
from codetrial.runner.defaults import DEFAULT_WORKERS

# What start_run (and import) store beside the config; a resume reads past them.
STORED_BESIDE = frozenset({"suite_version", "planned_samples", "toolchains", "unskipped",
                           "imported_from", "sent"})


def bounded(default: Any, *, ge: float | None = None, gt: float | None = None,
            le: float | None = None) -> Any:
    """A field whose value (unless None) must lie within the given bounds."""
    bounds = {op: limit for op, limit in ((">=", ge), (">", gt), ("<=", le)) if limit is not None}
    return field(default=default, metadata={"bounds": bounds})


@dataclass
class RunConfig:
    suite: str
    model: str = "local"
    protocol: str | None = None
    suite_options: dict[str, Any] = field(default_factory=dict)
    base_url: str | None = None
    api_key_env: str | None = None
    context_window: int | None = None
    samples: int = bounded(1, ge=1)
    # None: not set, so each backend sends what its model accepts (greedy where it can)
    temperature: float | None = bounded(None, ge=0.0)
    top_p: float | None = bounded(None, gt=0.0, le=1.0)
    max_tokens: int | None = bounded(None, ge=1)  # None: the protocol's generous budget
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    thinking_budget: int | None = bounded(None, ge=1024)  # Anthropic's documented minimum
    price_in: float | None = bounded(None, ge=0.0)  # USD per million input tokens
    price_out: float | None = bounded(None, ge=0.0)  # USD per million output tokens
    seed: int | None = None
    task_ids: list[str] | None = None
    limit: int | None = None
    concurrency: int = bounded(4, ge=1)  # API models: the limiter's starting level
    max_concurrency: int | None = bounded(None, ge=1)  # API models: the most it may rise to
    sandbox_workers: int = bounded(DEFAULT_WORKERS, ge=1)  # local; on Ray: each node's CPUs
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None  # "auto" or "HOST:6379"; None starts a local instance
    cache: bool = True
    request_timeout: float = bounded(120.0, gt=0)  # seconds before a model call is an infra error
    max_attempts: int = bounded(8, ge=1)  # API models: tries per model call, backing off

    def __post_init__(self) -> None:
        for f in fields(self):
            value, hint = getattr(self, f.name), _HINTS[f.name]
            if not _fits(value, hint):
                raise _bad(f.name, f"must be {_describe(hint)}, not {reprlib.repr(value)}")
            _check_bounds(f.name, value, f.metadata.get("bounds", {}))
            if isinstance(value, int) and float in _parts(hint):
                setattr(self, f.name, float(value))  # as pydantic did: a stored 1 is 1.0

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """A stored config: every key is a setting or one of STORED_BESIDE, never dropped
        unnoticed."""
        names = {f.name for f in fields(cls)}
        for key in data:
            if key not in names and key not in STORED_BESIDE:
                raise _bad(key, "unknown setting")
        if "suite" not in data:
            raise _bad("suite", "missing")
        return cls(**{k: v for k, v in data.items() if k in names})

    def as_dict(self) -> dict[str, Any]:
        """The settings as JSON-ready values, the form a run stores."""
        return asdict(self)


_HINTS = get_type_hints(RunConfig)  # the annotations as types, not the strings of __future__


def _bad(name: str, message: str) -> UsageError:
    return UsageError(f"setting {name!r}: {message}")


def _parts(hint: Any) -> tuple[Any, ...]:
    """The members of a union (`X | None`, `Literal[...] | None`), or the hint itself."""
    return get_args(hint) if get_origin(hint) in (UnionType, Union) else (hint,)


def _fits(value: Any, hint: Any) -> bool:
    """Whether value has the annotated type; a bool is not a number, an int is a float."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (UnionType, Union):
        return any(_fits(value, a) for a in args)
    if origin is Literal:
        return isinstance(value, str) and value in args
    if hint is Any:
        return True
    if isinstance(value, bool):
        return hint is bool
    if hint is float:
        return isinstance(value, int | float)
    if origin is list:
        return isinstance(value, list) and all(_fits(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(_fits(k, args[0]) for k in value)
    return isinstance(value, hint)


_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
          NoneType: "null", list: "a list of strings", dict: "a mapping of names to values"}


def _describe(hint: Any) -> str:
    return " or ".join(_describe_one(p) for p in _parts(hint))


def _describe_one(hint: Any) -> str:
    if get_origin(hint) is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(hint))
    return _NAMES[get_origin(hint) or hint]


_HOLDS = {">=": operator.ge, ">": operator.gt, "<=": operator.le}


def _check_bounds(name: str, value: Any, bounds: dict[str, float]) -> None:
    if value is None or all(_HOLDS[op](value, limit) for op, limit in bounds.items()):
        return
    raise _bad(name, "must be " + " and ".join(f"{op} {limit:g}" for op, limit in bounds.items()))
